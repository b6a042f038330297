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

func deliverNotificationsUntilKilled(dataDirectory: String, count: Int, webhook: String) async -> Never {
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
        while let due = try store.earliestDue() {
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
