import Foundation
import Testing
import TesseraClock
import TesseraManifest
import TesseraNotifications
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// Notifications through a real host: scheduled by a plugin, fired on the virtual clock, delivered
/// once per occurrence into the inbox, kept across restarts, marked late after downtime.
@Suite struct NotificationsTests {
    /// `remind` schedules (or replaces) a notification from its input; `cancel` and `pending` pass through.
    final class Reminder: Plugin {
        func start(context: PluginContext) async throws {
            let notifications = try context.capability(.notifications)
            context.onOperation("remind") { call in
                let input = call.input
                let schedule: NotificationSchedule
                if let rule = input["rule"]?.stringValue {
                    schedule = .recurring(rule: rule, startingAt: try Date(input["start"]?.stringValue ?? "", strategy: .iso8601),
                                          timeZone: input["zone"]?.stringValue ?? "UTC")
                } else {
                    schedule = .at(try Date(input["at"]?.stringValue ?? "", strategy: .iso8601))
                }
                var request = NotificationRequest(
                    key: input["key"]?.stringValue ?? "", title: input["title"]?.stringValue ?? "Reminder", body: "",
                    payload: ["n": input["n"] ?? .null], schedule: schedule)
                if let priority = input["priority"]?.stringValue { request.priority = NotificationPriority(rawValue: priority) ?? .normal }
                if let key = input["messageKey"]?.stringValue {
                    request.message = NotificationMessage(key, ["day": .day("2026-01-01"), "n": .number(2.5), "left": .seconds(1500)])
                }
                try await notifications.schedule(request)
                return [:]
            }
            context.onOperation("cancel") { call in
                try await notifications.cancel(key: call.input["key"]?.stringValue ?? "")
                return [:]
            }
            context.onOperation("pending") { _ in
                .array(try await notifications.pending().map { .string($0.request.key + "@" + $0.nextAt.formatted(.iso8601)) })
            }
        }
    }

    static let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z

    func workspace(_ name: String, notifications: [String: Any] = [:], hotSwap: Bool = false) -> FixtureWorkspace {
        let ws = FixtureWorkspace(name)
        let anyOp: [String: Any] = ["type": "object"]
        ws.addManifest(id: "test.remind", library: ws.root + "/none.so") { m in
            m["requires"] = [["capability": "notifications", "version": "^1.0"]]
            m["operations"] = ["remind", "cancel", "pending"].map { ["name": $0, "input": anyOp, "output": [:] as [String: Any]] }
            m["hotSwap"] = hotSwap
        }
        ws.writeDeployment(plugins: [entry("test.remind", grants: ["notifications": [:] as [String: Any]])],
                           extra: ["providers": [
                               "clock": ["kind": "virtual", "start": "2026-01-01T00:00:00Z"], "notifications": notifications]])
        return ws
    }

    func host(_ ws: FixtureWorkspace) async throws -> PluginHost {
        let host = try PluginHost(deployment: DeploymentReader.read(file: ws.deploymentFile), options: HostOptions(
            dataDirectory: ws.dataDirectory, inProcessPlugins: ["test.remind": PluginFactory { Reminder() }]))
        await host.start()
        #expect(host.status(of: "test.remind")?.state == .active, "\(host.status(of: "test.remind")?.history ?? [])")
        return host
    }

    func remind(_ host: PluginHost, _ key: String, at offset: TimeInterval, n: Int = 0) async throws {
        _ = try await host.call("test.remind", "remind", input: [
            "key": .string(key), "at": .string(Self.start.addingTimeInterval(offset).formatted(.iso8601)), "n": .integer(Int64(n)),
        ], as: user)
    }

    @Test func rescheduledKeysReplaceAndEachOccurrenceLandsOnceInTheInbox() async throws {
        let ws = workspace("notify-basic")
        let host = try await host(ws)
        try await remind(host, "tea", at: 600, n: 1)
        try await remind(host, "tea", at: 900, n: 2)  // replaces, never adds
        try await remind(host, "walk", at: 1200)
        try await remind(host, "gone", at: 300)
        _ = try await host.call("test.remind", "cancel", input: ["key": "gone"], as: user)
        #expect(try await host.call("test.remind", "pending", input: [:], as: user)
                == ["tea@2026-01-01T00:15:00Z", "walk@2026-01-01T00:20:00Z"])

        _ = try await host.advanceClock(by: 3600)
        let inbox = try host.inbox()
        #expect(inbox.map(\.key) == ["walk", "tea"], "newest first")
        #expect(inbox.last?.payload["n"] == .integer(2))
        #expect(inbox.last?.dueAt == Self.start.addingTimeInterval(900))
        #expect(inbox.allSatisfy { !$0.late && $0.deliveredAt == $0.dueAt })
        #expect(try await host.call("test.remind", "pending", input: [:], as: user) == [])
        _ = try await host.advanceClock(by: 3600)
        #expect(try host.inbox().count == 2)
        await host.stop()
    }

    @Test func pendingNotificationsSurviveARestartAndFireOnce() async throws {
        let ws = workspace("notify-restart")
        let first = try await host(ws)
        for i in 0..<20 { try await remind(first, "r\(i)", at: 60 * Double(i + 1)) }
        _ = try await first.advanceClock(by: 600)  // ten of twenty
        #expect(try first.inbox(limit: 100).count == 10)
        await first.stop()

        let second = try await host(ws)
        #expect(try await second.call("test.remind", "pending", input: [:], as: user).arrayValue?.count == 10)
        _ = try await second.advanceClock(by: 3600)
        let keys = try second.inbox(limit: 100).map(\.key)
        #expect(keys.count == 20)
        #expect(Set(keys) == Set((0..<20).map { "r\($0)" }))
        #expect(try second.notificationCounters()["delivered"] == 20)
        await second.stop()
    }

    @Test func afterDowntimeWhatFellDueIsDeliveredLateAndPastTheHorizonDropped() async throws {
        let ws = workspace("notify-late", notifications: ["lateHorizon": "2h"])
        let first = try await host(ws)
        try await remind(first, "recent", at: 3 * 3600)      // due 03:00
        try await remind(first, "old", at: 600)              // due 00:10
        _ = try await first.call("test.remind", "remind", input: [
            "key": "daily", "rule": "FREQ=DAILY", "start": "2026-01-01T04:00:00Z", "zone": "UTC"], as: user)
        await first.stop()
        // The host is down from 00:00 until 2026-01-03T04:30Z.
        let down = try SQLiteTimerStore(path: ws.dataDirectory + "/host.sqlite")
        try down.saveVirtualNow(Self.start.addingTimeInterval(2 * 86_400 + 4.5 * 3600))

        let second = try await host(ws)
        _ = try await second.advanceClock(by: 0)
        let inbox = try second.inbox(limit: 100)
        // "old" and "recent" are both over two hours late: dropped and counted. The daily one
        // delivers its latest missed occurrence (04:00 today), late; the two before are superseded.
        #expect(inbox.map(\.key) == ["daily"])
        #expect(inbox.first?.late == true)
        #expect(inbox.first?.dueAt == Self.start.addingTimeInterval(2 * 86_400 + 4 * 3600))
        let counters = try second.notificationCounters()
        #expect(counters["droppedLate"] == 2)
        #expect(counters["superseded"] == 2)
        #expect(counters["late"] == 1)
        #expect(try await second.call("test.remind", "pending", input: [:], as: user) == ["daily@2026-01-04T04:00:00Z"])
        await second.stop()
    }

    @Test(arguments: [
        // Spring: CET (UTC+1) until Sunday 2026-03-29, CEST (UTC+2) after.
        ("2026-03-20T00:00:00Z", ["2026-03-20T07:00:00Z", "2026-03-27T07:00:00Z", "2026-04-03T06:00:00Z", "2026-04-10T06:00:00Z"]),
        // Autumn: CEST until Sunday 2026-10-25, CET after.
        ("2026-10-16T00:00:00Z", ["2026-10-16T06:00:00Z", "2026-10-23T06:00:00Z", "2026-10-30T07:00:00Z", "2026-11-06T07:00:00Z"]),
    ])
    func everyFridayAtEightPragueTimeStaysAtEightAcrossDaylightSaving(start: String, expected: [String]) async throws {
        let ws = workspace("notify-dst")
        let host = try await host(ws)
        let origin = try Date(start, strategy: .iso8601)
        _ = try await host.setClock(to: origin)
        _ = try await host.call("test.remind", "remind", input: [
            "key": "weekly", "rule": "FREQ=WEEKLY;BYDAY=FR;BYHOUR=8;BYMINUTE=0", "start": .string(start), "zone": "Europe/Prague"], as: user)
        _ = try await host.advanceClock(by: 28 * 86_400)
        let delivered = try host.inbox(after: 0, limit: 10)
        #expect(delivered.map { $0.dueAt.formatted(.iso8601) } == expected)
        #expect(delivered.allSatisfy { $0.deliveredAt == $0.dueAt && !$0.late })
        var prague = Calendar(identifier: .gregorian)
        prague.timeZone = TimeZone(identifier: "Europe/Prague")!
        #expect(delivered.allSatisfy { prague.component(.hour, from: $0.dueAt) == 8 && prague.component(.weekday, from: $0.dueAt) == 6 })
        await host.stop()
    }

    @Test func deliveryDoesNotNeedThePluginRunning() async throws {
        let ws = workspace("notify-unloaded")
        let first = try await host(ws)
        try await remind(first, "tea", at: 600)
        await first.stop()
        // The host comes back without the plugin: disabled, or failing to load, or not chosen.
        let second = try PluginHost(deployment: DeploymentReader.read(file: ws.deploymentFile), options: HostOptions(
            dataDirectory: ws.dataDirectory, onlyPlugins: []))
        await second.start()
        #expect(second.status(of: "test.remind")?.state != .active)
        _ = try await second.advanceClock(by: 3600)
        #expect(try second.inbox().map(\.key) == ["tea"])
        await second.stop()
    }

    @Test func aBadRuleOrZoneIsRefusedNamingThePart() async throws {
        let ws = workspace("notify-bad")
        let host = try await host(ws)
        let zone = await callError(host, "test.remind", "remind", [
            "key": "k", "rule": "FREQ=DAILY", "start": "2026-01-01T04:00:00Z", "zone": "Mars/Olympus"])
        #expect(zone?.code == .invalidInput)
        #expect(zone?.field == "schedule.timeZone")
        let rule = await callError(host, "test.remind", "remind", [
            "key": "k", "rule": "FREQ=SOMETIMES", "start": "2026-01-01T04:00:00Z", "zone": "UTC"])
        #expect(rule?.code == .invalidInput)
        #expect(rule?.field == "schedule.rule")
        #expect(rule?.message.contains("FREQ") == true)
        await host.stop()
    }
}

/// The webhook sink: a real HTTP POST on loopback per occurrence, with one idempotency key for
/// every attempt, retried with backoff, never holding up the inbox.
@Suite struct WebhookTests {
    let suite = NotificationsTests()

    @Test func eachOccurrenceIsPostedWithAStableIdempotencyKeyAndRetried() async throws {
        let receiver = try LoopbackHTTPServer(.sequence([503]))
        defer { receiver.close() }
        let ws = suite.workspace("webhook-retry", notifications: ["webhooks": [["url": receiver.url()]]])
        let host = try await suite.host(ws)
        try await suite.remind(host, "tea", at: 60, n: 7)
        _ = try await host.advanceClock(by: 60)
        await host.settle()
        #expect(receiver.requests.count == 1)
        // The first answer was 503: the retry waits 2 s on the host's clock.
        _ = try await host.advanceClock(by: 2)
        await host.settle()
        let requests = receiver.requests
        #expect(requests.count == 2)
        #expect(requests.allSatisfy { $0.method == "POST" && $0.path == "/hook" })
        #expect(requests.allSatisfy { $0.headers["content-type"] == "application/json" })
        let keys = Set(requests.compactMap { $0.headers["idempotency-key"] })
        #expect(keys.count == 1, "every attempt carries the same key")
        let body = try JSONValue(parsing: Array(requests[1].body.utf8))
        #expect(body["key"] == "tea")
        #expect(body["payload"]?["n"] == .integer(7))
        #expect(body["id"]?.stringValue == keys.first)
        #expect(try host.outboundNotificationSummary() == ["\(receiver.url()) sent": 1])
        #expect(try host.notificationCounters()["webhookSent"] == 1)
        await host.stop()
    }

    @Test func aPriorityAndACatalogueMessageAreKeptAcrossARestartAndReachTheInboxAndTheWebhook() async throws {
        let receiver = try LoopbackHTTPServer(.sequence([200]))
        defer { receiver.close() }
        let ws = suite.workspace("webhook-priority", notifications: ["webhooks": [["url": receiver.url()]]])
        var host = try await suite.host(ws)
        _ = try await host.call("test.remind", "remind", input: [
            "key": "exam", "at": .string(NotificationsTests.start.addingTimeInterval(60).formatted(.iso8601)),
            "priority": "time-sensitive", "messageKey": "notify.exam",
        ], as: user)
        await host.stop()
        host = try await suite.host(ws)  // the schedule keeps both in notifications.sqlite
        _ = try await host.advanceClock(by: 60)
        await host.settle()
        let entry = try #require(try host.inbox().first)
        #expect(entry.priority == .timeSensitive)
        #expect(entry.message == NotificationMessage("notify.exam", ["day": .day("2026-01-01"), "n": .number(2.5), "left": .seconds(1500)]))
        let body = try JSONValue(parsing: Array(try #require(receiver.requests.first).body.utf8))
        #expect(body["priority"] == "time-sensitive")
        #expect(body["message"] == ["key": "notify.exam", "values": ["day": ["day": "2026-01-01"], "n": ["number": 2.5], "left": ["seconds": 1500.0]]])
        await host.stop()
    }

    @Test func aWebhookThatHangsDoesNotHoldUpTheInbox() async throws {
        let receiver = try LoopbackHTTPServer(.hang)
        defer { receiver.close() }
        let ws = suite.workspace("webhook-hang", notifications: ["webhooks": [["url": receiver.url()]]])
        let host = try await suite.host(ws)
        for i in 0..<5 { try await suite.remind(host, "r\(i)", at: 60 * Double(i + 1)) }
        _ = try await host.advanceClock(by: 600)
        // Every occurrence is in the inbox although not one POST has been answered.
        #expect(try host.inbox().count == 5)
        #expect(try host.outboundNotificationSummary()["\(receiver.url()) pending"] == 5)
        await host.stop()
    }

    @Test func aClientErrorIsNotRetried() async throws {
        let receiver = try LoopbackHTTPServer(.status(400))
        defer { receiver.close() }
        let ws = suite.workspace("webhook-400", notifications: ["webhooks": [["url": receiver.url()]]])
        let host = try await suite.host(ws)
        try await suite.remind(host, "tea", at: 60)
        _ = try await host.advanceClock(by: 60)
        await host.settle()
        _ = try await host.advanceClock(by: 3600)
        await host.settle()
        #expect(receiver.requests.count == 1)
        #expect(try host.outboundNotificationSummary() == ["\(receiver.url()) dropped": 1])
        await host.stop()
    }
}
