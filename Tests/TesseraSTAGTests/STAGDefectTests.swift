import TesseraTestFixtures
import Foundation
import TesseraClock
import TesseraSDK
import TesseraSTAG
import TesseraSTAGEmulator
import TesseraTesting
import Testing

/// Issue 23's defects, each as the person met it: reminders lost to a refresh at the same moment,
/// the hourly job dying after a logout, registering not re-planning reminders, another person's
/// notes, a ticket left on disk after logout, and a silent 401.
@Suite("STAG: reminders never lost, one person's data per login", .hangWatchdog)
struct STAGDefectTests {
    func pending(_ f: STAGFixture) throws -> [String: Date] {
        Dictionary(uniqueKeysWithValues: try f.host.pendingNotifications().compactMap { n in n.nextDue.map { (n.request.key, $0) } })
    }

    func delivered(_ f: STAGFixture, prefix: String) throws -> [String] {
        try f.host.deliveredNotifications().map(\.key).filter { $0.hasPrefix(prefix) }
    }

    @Test func aReminderDueAtTheMomentOfTheHourlyRefreshIsDelivered() async throws {
        // PRG's term starts 20.1. 9:00 Prague; registration closes 19.1. 9:00, so its reminder (a day
        // before) is due 18.1. 08:00Z: on the hour, the moment the hourly refresh runs too.
        let start = ISO8601DateFormatter().date(from: "2026-01-15T08:00:00Z")!
        let f = try await STAGFixture.start(clock: start)
        try await withCleanup({ await f.stop() }) {
            f.emulator.setTime(start)
            try await f.login()
            _ = try await f.host.call("refresh")
            #expect(try pending(f)["stag:registrationCloses:1118482"] == ISO8601DateFormatter().date(from: "2026-01-18T08:00:00Z"))
            try await f.host.advanceClock(by: 4 * 86_400 + 3600)
            #expect(try delivered(f, prefix: "stag:registrationCloses:") == ["stag:registrationCloses:1118482"])
        }
    }

    @Test func theHourlyRefreshWaitsForTheNextLoginInsteadOfDying() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            try await f.login()
            _ = try await f.host.call("logout")
            // Logged out for three hours: the job has nothing to read, and does not fail for it.
            let whileOut = try await f.host.advanceClock(by: 3 * 3600)
            #expect(whileOut.contains { $0.timer.name == "refresh" })
            #expect(whileOut.allSatisfy { $0.outcome == .delivered }, "\(whileOut.map(\.outcome))")
            try await f.login()
            f.emulator.addTerm(EmulatorTerm(id: 2000010, department: "KMI", subject: "PRG", start: STAGEmulator.pragueDate("3.2.2026 10:00"),
                                            room: "402", limit: 15))
            // Within the hour after the login, the job finds the new term.
            try await f.host.advanceClock(by: 3600)
            #expect(try delivered(f, prefix: "stag:term:") == ["stag:term:2000010"])
        }
    }

    @Test func registeringAndUnregisteringRePlanTheRemindersAtOnce() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            try await f.login()  // plans from the initial sync
            #expect(try pending(f)["stag:registrationCloses:1118482"] != nil)
            _ = try await f.host.call("exam-register", ["termId": 1118482])
            var now = try pending(f)
            #expect(now["stag:registrationCloses:1118482"] == nil)
            #expect(now["stag:examBefore:1118482"] == STAGEmulator.pragueDate("19.1.2026 9:00"))
            #expect(now["stag:unregisterDeadline:1118482"] == STAGEmulator.pragueDate("18.1.2026 9:00"))
            _ = try await f.host.call("exam-unregister", ["termId": 1118482])
            now = try pending(f)
            #expect(now["stag:examBefore:1118482"] == nil && now["stag:examSoon:1118482"] == nil && now["stag:unregisterDeadline:1118482"] == nil)
            #expect(now["stag:registrationCloses:1118482"] == STAGEmulator.pragueDate("18.1.2026 9:00"))
        }
    }

    @Test func registeringWhileIsSTAGCannotBeReReadStillRePlans() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            try await f.login()
            // The registration goes through; the list read after it answers 500 (the cached copy is marked instead).
            f.emulator.failAfter(requests: 1, with: .serverError)
            _ = try await f.host.call("exam-register", ["termId": 1118482])
            #expect(try pending(f)["stag:examBefore:1118482"] != nil)
            #expect(try pending(f)["stag:registrationCloses:1118482"] == nil)
        }
    }

    @Test func notesAreShownOnlyToThePersonWhoWroteThem() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            try await f.login()
            let jana = try await f.host.call("note-save", ["title": "Zápočet", "text": "odevzdat úlohu"])["id"]?.stringValue ?? ""
            _ = try await f.host.call("logout")
            #expect(await failure { try await f.host.call("notes") }?.reason == "not_logged_in")
            #expect(try await f.host.call("account") == ["loggedIn": false])  // the settings stay, the login does not

            f.emulator.setLoginUser(.teacher)
            try await f.login()
            #expect(try await f.host.call("notes") == [])
            #expect(await failure { try await f.host.call("note-delete", ["id": .string(jana)]) }?.code == .notFound)
            #expect(await failure { try await f.host.call("note-save", ["id": .string(jana), "text": "mine now"]) }?.code == .notFound)
            _ = try await f.host.call("note-save", ["title": "Zkoušky opravit"])
            _ = try await f.host.call("logout")

            f.emulator.setLoginUser(.student)
            try await f.login()
            let notes = try await f.host.call("notes").arrayValue ?? []
            #expect(notes.map { $0["title"] } == ["Zápočet"])
            #expect(notes.first?["text"] == "odevzdat úlohu")
        }
    }

    @Test func aLoggedOutTicketLeavesNoCopyAnywhereInTheDataDirectory() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            let ticket = try await f.login()
            _ = try await f.host.call("profile")
            let holding = try Self.filesHolding(Data(ticket.utf8), under: f.host.directory)
            // Only the secrets store holds it while logged in.
            #expect(!holding.isEmpty && holding.allSatisfy { ($0 as NSString).lastPathComponent.hasPrefix("secrets.sqlite") }, "\(holding)")
            _ = try await f.host.call("logout")
            #expect(try Self.filesHolding(Data(ticket.utf8), under: f.host.directory) == [])
        }
    }

    /// The files under `directory` (relative paths) whose bytes contain `needle`.
    static func filesHolding(_ needle: Data, under directory: String) throws -> [String] {
        let files = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
        return try files.sorted().filter { path in
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue else { return false }
            return try Data(contentsOf: URL(fileURLWithPath: directory + "/" + path)).range(of: needle) != nil
        }
    }

    @Test func a401TellsThePersonOnceAndCancelsTheExpiringReminder() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            try await f.login()
            #expect(try pending(f)["stag:ticketExpiring:ticket"] != nil)
            f.emulator.setFault(.unauthorized)
            let grades = try await f.host.call("grades")
            #expect(grades["stale"] == true && grades["reason"] == "ticket_expired")
            _ = try await f.host.call("exams")
            _ = try await f.host.call("refresh")
            let before = f.emulator.requestCount
            try await f.host.advanceClock(by: 3 * 3600)  // the hourly job does not knock on IS/STAG with a dead ticket
            #expect(f.emulator.requestCount == before)
            #expect(try delivered(f, prefix: "stag:loginExpired:").count == 1)
            #expect(try pending(f)["stag:ticketExpiring:ticket"] == nil)
            #expect(try f.host.deliveredNotifications().first { $0.key.hasPrefix("stag:loginExpired:") }?.title == "IS/STAG login expired")

            // Logging in again brings the "expires soon" reminder back.
            f.emulator.setFault(.none)
            try await f.login()
            #expect(try pending(f)["stag:ticketExpiring:ticket"] != nil)
        }
    }
}
