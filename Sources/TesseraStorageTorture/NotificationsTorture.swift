// The notification half of the torture tool: schedules COUNT one-off notifications a second apart
// (first run only), then walks a virtual clock through them, delivering each to the inbox and a
// webhook, printing "delivered <due-second>" after each step. The crash test kills it with SIGKILL
// at varying points, runs it again on the same data, and checks that every occurrence is in the
// inbox exactly once and that repeated webhook POSTs carry the same idempotency key.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TesseraClock
import TesseraNotifications
import TesseraSDK

/// Delivers the notifications as the file's header says, until they are all delivered or the
/// process is killed. With `lead`, at most `lead` deliveries ahead of its reader: each newline on
/// stdin allows one more (the end of stdin, any number). The test reads a line and allows one;
/// without a bound, a tool that outran a test slowed by other work finished every notification
/// before the test's kills were spent (in a suite run, three kills of eight landed).
func deliverNotificationsUntilKilled(dataDirectory: String, count: Int, webhook: String, lead: Int? = nil) async -> Never {
    do {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let store = try NotificationStore(path: dataDirectory + "/notifications.sqlite")
        let origin = Date(timeIntervalSince1970: 1_767_225_600)
        if try store.counters()["scheduled"] == nil {
            let all = (0..<count).map { i in
                ScheduledNotification(plugin: "torture", request: NotificationRequest(
                    key: "n\(i)", title: "n\(i)", body: "", schedule: .at(origin.addingTimeInterval(Double(i)))),
                    nextDue: origin.addingTimeInterval(Double(i)))
            }
            try store.put(all)
            try store.count("scheduled", by: Int64(count))
        }
        let start = try store.earliestDue() ?? origin
        let clock = VirtualClockSource(start: start)
        let scheduler = NotificationScheduler(store: store, clock: clock,
                                              settings: NotificationSettings(webhooks: [URL(string: webhook)!]))
        var allowed = lead ?? Int.max
        while let due = try store.earliestDue() {
            if allowed == 0 { allowed = allowanceFromStdin() }
            if allowed != Int.max { allowed -= 1 }
            clock.set(to: due)
            try await scheduler.runDue(now: due)
            say("delivered \(Int(due.timeIntervalSince(origin)))")
        }
        try await scheduler.webhooks?.flush()
        say("done")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("tessera-storage-torture notifications: \(error)\n".utf8))
        exit(1)
    }
}

/// Blocks until stdin brings at least one newline; how many it brought (`Int.max` at its end).
private func allowanceFromStdin() -> Int {
    var buffer = [UInt8](repeating: 0, count: 256)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return Int.max }
        let newlines = buffer[..<n].reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        if newlines > 0 { return newlines }
    }
}
