import TesseraTestFixtures
import Foundation
import TesseraSDK
import TesseraSTAG
import TesseraSTAGEmulator
import TesseraTesting
import Testing

@Suite("STAG refresh: new terms and grades", .hangWatchdog)
struct STAGRefreshTests {
    @Test func newTermsAndGradesAreAnnouncedOnce() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            try await f.login()  // its initial sync records what exists, announcing nothing
            #expect(try await f.host.query("SELECT id FROM seen WHERE id LIKE '%|baseline'").count == 1)
            let first = try await f.host.call("refresh")
            #expect(first["baseline"]?.boolValue == false && first["newTerms"] == 0 && first["newGrades"] == 0)
            #expect(try f.host.publishedEvents().isEmpty)
            f.emulator.addTerm(EmulatorTerm(id: 2000001, department: "KMI", subject: "PRG", start: STAGEmulator.pragueDate("3.2.2026 10:00"),
                                            room: "402", building: "UC", limit: 15))
            f.emulator.addGrade(EmulatorGrade(department: "KMI", subject: "PRG", grade: "1", date: STAGEmulator.pragueDate("2.1.2026")))
            let second = try await f.host.call("refresh")
            #expect(second["newTerms"]?.integerValue == 1)
            #expect(second["newGrades"]?.integerValue == 1)
            let third = try await f.host.call("refresh")
            #expect(third["newTerms"]?.integerValue == 0)
            #expect(third["newGrades"]?.integerValue == 0)
            let events = try f.host.publishedEvents()
            #expect(events.map(\.name) == ["exam-upcoming", "grade-published"])
            #expect(events.first?.payload == ["termId": 2000001, "subject": "KMI/PRG", "subjectName": "Programování",
                                              "start": "2026-02-03T10:00:00+01:00", "room": "UC 402", "registered": false])
            #expect(events.last?.payload == ["subject": "KMI/PRG", "subjectName": "Programování", "grade": "1", "date": "2026-01-02"])
            try await f.host.advanceClock(by: 1)
            // One notification each for the new term and grade (the other scheduled ones are reminders).
            let keys = try (f.host.deliveredNotifications().map(\.key) + f.host.pendingNotifications().map(\.request.key))
                .filter { $0.hasPrefix("stag:term:") || $0.hasPrefix("stag:grade:") }
            #expect(keys.sorted() == ["stag:grade:KMI/PRG/2025/exam/1/1", "stag:term:2000001"])
        }
    }

    @Test func theJobRunsOnTheClock() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            try await f.login()
            let before = f.emulator.requestCount
            try await f.host.advanceClock(by: 3600)
            #expect(f.emulator.requestCount > before)
            #expect(try await f.host.query("SELECT id FROM seen WHERE id LIKE '%|baseline'").count == 1)
        }
    }
}
