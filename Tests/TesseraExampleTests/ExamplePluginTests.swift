import Foundation
import Testing
@testable import TesseraExample
import TesseraTesting

/// The example plugin's own tests: its code, linked into this binary, on the host's real storage,
/// clock and dispatch (TesseraTesting), with no host process and no library loading.
@Suite struct ExamplePluginTests {
    /// The shipped manifest, found from this file: Tests/TesseraExampleTests/ → manifests/.
    static let manifest = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("manifests/example.json").path

    func makeHost() async throws -> PluginTestHost {
        try await PluginTestHost(manifest: Self.manifest, plugin: { ExamplePlugin() })
    }

    @Test func notesAreAddedAndListedNewestFirst() async throws {
        let host = try await makeHost()
        let saved = try await host.call("add-note", ["text": "buy milk"])
        #expect(saved["at"] == "2026-01-01T00:00:00Z")
        try await host.advanceClock(by: 60)
        _ = try await host.call("add-note", ["text": "call mum"])
        let list = try await host.call("list-notes")
        #expect(list["notes"]?.arrayValue?.compactMap { $0["text"]?.stringValue } == ["call mum", "buy milk"])
        let stored = try await host.query("SELECT text FROM notes WHERE id = ?", [.text(saved["id"]?.stringValue ?? "")])
        #expect(stored.map { $0["text"].text } == ["buy milk"])
        await host.stop()
    }

    @Test func aReminderFiresAtItsDueTime() async throws {
        let host = try await makeHost()
        _ = try await host.call("remind", ["text": "stretch", "in": "2h"])
        let early = try await host.advanceClock(by: 3600)
        #expect(early.filter { $0.timer.name == "reminder" }.isEmpty)
        let firings = try await host.advanceClock(by: 2 * 3600)
        let reminder = try #require(firings.first { $0.timer.name == "reminder" })
        #expect(reminder.outcome == .delivered)
        #expect(reminder.firedAt == (try Date("2026-01-01T02:00:00Z", strategy: .iso8601)))
        #expect(host.now == (try Date("2026-01-01T03:00:00Z", strategy: .iso8601)))
        let list = try await host.call("list-reminders")
        #expect(list["reminders"]?.arrayValue?.first?["firedAt"] == "2026-01-01T02:00:00Z")
        await host.stop()
    }

    @Test func aReminderIsDeliveredAsANotificationOnceItIsDue() async throws {
        let host = try await makeHost()  // grants every capability the manifest asks for, notifications too
        _ = try await host.call("remind", ["text": "stretch", "in": "30m"])
        #expect(try host.pendingNotifications().map(\.request.title) == ["stretch"])
        try await host.advanceClock(by: 1800)
        let delivered = try host.deliveredNotifications()
        #expect(delivered.map(\.title) == ["stretch"])
        #expect(delivered.first?.dueAt == (try Date("2026-01-01T00:30:00Z", strategy: .iso8601)))
        #expect(delivered.first?.late == false)
        #expect(try host.pendingNotifications().isEmpty)
        await host.stop()
    }

    @Test func withoutTheNotificationsGrantRemindersStillFire() async throws {
        let host = try await PluginTestHost(manifest: Self.manifest, plugin: { ExamplePlugin() },
                                            grants: ["storage": [:], "clock": [:]])
        _ = try await host.call("remind", ["text": "stretch", "in": "30m"])
        let firings = try await host.advanceClock(by: 1800)
        #expect(firings.contains { $0.timer.name == "reminder" && $0.outcome == .delivered })
        #expect(try host.deliveredNotifications().isEmpty)
        await host.stop()
    }

    @Test func theDailyJobSummarizesEachDay() async throws {
        let host = try await makeHost()
        _ = try await host.call("add-note", ["text": "one"])
        _ = try await host.call("add-note", ["text": "two"])
        let firings = try await host.advanceClock(by: 2 * 86_400)
        #expect(firings.filter { $0.timer.name == "daily-summary" && $0.outcome == .delivered }.count == 2)
        let summaries = try await host.call("summaries")
        #expect(summaries.arrayValue?.compactMap { $0["day"]?.stringValue } == ["2026-01-02", "2026-01-03"])
        #expect(summaries.arrayValue?.compactMap { $0["note_count"]?.integerValue } == [2, 2])
        await host.stop()
    }

    @Test func inputOutsideTheSchemaIsRefusedNamingTheField() async throws {
        let host = try await makeHost()
        // An empty text is one the plugin itself would store: only the manifest's schema refuses it.
        let error = await #expect(throws: PluginError.self) {
            _ = try await host.call("remind", ["text": "", "in": "2h"])
        }
        #expect(error?.code == .invalidInput)
        #expect(error?.field == "$.text")
        let stored = try await host.query("SELECT count(*) AS n FROM reminders")
        #expect(stored.first?["n"].integer == 0)
        await host.stop()
    }

    @Test func withoutItsClockGrantThePluginIsNotStarted() async throws {
        let error = await #expect(throws: PluginTestHostError.self) {
            _ = try await PluginTestHost(manifest: Self.manifest, plugin: { ExamplePlugin() }, grants: ["storage": [:]])
        }
        #expect(error?.state == .rejected)
        #expect(error?.reason?.contains("requires capability 'clock'") == true)
    }
}
