#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TesseraNotifications
import TesseraSDK
import TesseraTestFixtures

/// Kills the notification torture run with SIGKILL while it delivers, runs it again on the same
/// data, and checks the delivery ledger: every occurrence in the inbox exactly once; the webhook
/// may see an occurrence twice, but then always with the same idempotency key.
@Suite struct NotificationCrashTests {
    static let count = 300
    static let kills = 8
    /// How many deliveries the tool may run ahead of the lines this test has read. The kills' draws
    /// (seed 0x0715: 24, 11, 29, 33, 7, 20, 35, 35 lines) and this lead allow at most 258 deliveries
    /// before the last kill, fewer than `count`: every kill lands before the tool is done, however
    /// slowly this test reads on a busy machine, and within its lead the tool delivers freely, so
    /// where a kill lands in a delivery still varies.
    static let lead = 8

    @Test(.hangWatchdog) func killNineDuringDeliveryNeverDuplicatesAnInboxEntry() async throws {
        let tool = try #require(Fixtures.storageTortureExecutable, "tessera-storage-torture not found next to the test binary")
        let receiver = try LoopbackHTTPServer(.status(200))
        defer { receiver.close() }
        let dir = Fixtures.temporaryDirectory("notify-torture")
        var random = SplitMix64(seed: 0x0715)
        var killed = 0
        for run in 0..<Self.kills {
            let child = try PipedProcess(tool, ["notifications", dir, String(Self.count), receiver.url(), String(Self.lead)],
                                         stderrPath: dir + "/stderr-\(run).txt", writableStdin: true)
            let killAfter = 1 + Int(random.next() % 40)
            // The reads and the wait block while the tool delivers: on a thread of their own, not on
            // one of Swift concurrency's two, which the other tests' servers need.
            let (finished, status) = try await onOwnThread {
                var reader = LineReader(fd: child.stdout)
                var seen = 0
                var finished = false
                while seen < killAfter, let line = reader.nextLine() {
                    if line == "done" { finished = true; break }
                    seen += 1
                    child.write("\n")  // one more delivery allowed
                }
                child.kill()
                let status = child.wait()
                child.closeOutput()
                return (finished, status)
            }
            if status.signal == SIGKILL { killed += 1 }
            if finished { break }
        }
        // A last run to completion.
        let final = try PipedProcess(tool, ["notifications", dir, String(Self.count), receiver.url()],
                                     stderrPath: dir + "/stderr-final.txt")
        let (lastLine, status) = try await onOwnThread {
            var reader = LineReader(fd: final.stdout)
            var lastLine = ""
            while let line = reader.nextLine() { lastLine = line }
            let status = final.wait()
            final.closeOutput()
            return (lastLine, status)
        }
        let stderr = (try? String(contentsOfFile: dir + "/stderr-final.txt", encoding: .utf8)) ?? ""
        #expect(status.exitCode == 0, "\(status): \(stderr)")
        #expect(lastLine == "done")
        #expect(killed == Self.kills, "every run was killed before it was done")

        let store = try NotificationStore(path: dir + "/notifications.sqlite")
        let inbox = try store.inbox(limit: Self.count * 2)
        #expect(inbox.count == Self.count, "each occurrence once in the inbox")
        #expect(Set(inbox.map(\.key)).count == Self.count)
        var keysByNotification: [String: Set<String>] = [:]
        for request in receiver.requests {
            let body = try JSONValue(parsing: Array(request.body.utf8))
            keysByNotification[body["key"]?.stringValue ?? "", default: []].insert(request.headers["idempotency-key"] ?? "")
        }
        #expect(keysByNotification.count == Self.count, "every occurrence reached the webhook")
        #expect(keysByNotification.values.allSatisfy { $0.count == 1 }, "a repeated POST carries the same key")
    }
}
