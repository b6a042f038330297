import TesseraTestFixtures
import Foundation
import TesseraSDK
import TesseraSTAG
import TesseraSTAGEmulator
import TesseraTesting
import Testing

@Suite("STAG exam registration, offline reads and faults", .hangWatchdog)
struct STAGEnrolmentAndFaultTests {
    @Test func registerAndUnregister() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            try await f.login()
            let done = try await f.host.call("exam-register", ["termId": 1118482])
            #expect(done["registered"]?.boolValue == true)
            #expect(f.emulator.isRegistered(term: 1118482))
            let exams = try await f.host.call("exams")
            #expect(exams["data"]?.arrayValue?.first { $0["termId"]?.integerValue == 1118482 }?["registered"]?.boolValue == true)
            _ = try await f.host.call("exam-unregister", ["termId": 1118482])
            #expect(!f.emulator.isRegistered(term: 1118482))
        }
    }

    @Test func refusalsAreClearAndLeaveTheCache() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            try await f.login()
            _ = try await f.host.call("exams")
            let before = try await f.host.query("SELECT body FROM cache WHERE id = 'exams'").first?["body"].text
            let full = await failure { try await f.host.call("exam-register", ["termId": 1118483]) }
            #expect(full?.code == .conflict)
            #expect(full?.reason == "term_full")
            var after = try await f.host.query("SELECT body FROM cache WHERE id = 'exams'").first?["body"].text
            #expect(after != nil && after == before)
            f.emulator.setTime(STAGEmulator.pragueDate("19.1.2026 10:00"))
            try await f.login()  // tickets live an hour of the emulator's time: a fresh one for the late attempt
            let relogged = try await f.host.query("SELECT body FROM cache WHERE id = 'exams'").first?["body"].text
            let late = await failure { try await f.host.call("exam-register", ["termId": 1118482]) }
            #expect(late?.reason == "deadline_passed")
            #expect(!f.emulator.isRegistered(term: 1118482))
            after = try await f.host.query("SELECT body FROM cache WHERE id = 'exams'").first?["body"].text
            #expect(after != nil && after == relogged)
        }
    }

    @Test func offlineReadsAnswerTheCacheMarkedStale() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            try await f.login()
            let fresh = try await f.host.call("grades")
            try await f.host.advanceClock(by: 1800)  // less than the refresh job's hour, which would re-read
            await f.emulator.stop()
            let stale = try await f.host.call("grades")
            #expect(stale["stale"]?.boolValue == true)
            #expect(stale["reason"]?.stringValue == "unavailable")
            #expect(stale["ageSeconds"]?.integerValue == 1800)
            #expect(stale["data"] == fresh["data"])
            // A week never read (the login read this one and the next) has no copy to fall back on.
            let nothing = await failure { try await f.host.call("timetable", ["date": "2026-05-20"]) }
            #expect(nothing?.code == .unavailable)
        }
    }

    @Test(arguments: [(EmulatorFault.unauthorized, "ticket_expired"), (.serverError, "unavailable"), (.down, "unavailable"), (.malformed, "malformed_response")])
    func faultsFallBackToTheCache(fault: EmulatorFault, reason: String) async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            try await f.login()
            _ = try await f.host.call("exams")
            f.emulator.setFault(fault)
            let read = try await f.host.call("exams")
            #expect(read["stale"]?.boolValue == true)
            #expect(read["reason"]?.stringValue == reason)
            let uncached = await failure { try await f.host.call("timetable", ["date": "2026-05-20"]) }
            #expect(uncached?.reason?.rawValue == reason)
        }
    }

    @Test func expiredTicketSaysSo() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            try await f.login()
            f.emulator.setTime(Date(timeIntervalSince1970: 1_767_225_600 + 7200))
            let error = await failure { try await f.host.call("exam-register", ["termId": 1118482]) }
            #expect(error?.code == .conflict)
            #expect(error?.reason == "ticket_expired")
        }
    }

    @Test func logoutClearsCacheAndTicket() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            try await f.login()
            _ = try await f.host.call("grades")
            _ = try await f.host.call("logout")
            #expect(try f.host.secretNames().isEmpty)
            #expect(try await f.host.query("SELECT id FROM cache").isEmpty)
            #expect(try await f.host.query("SELECT id FROM settings WHERE id = 'baseURL'").count == 1)
            let error = await failure { try await f.host.call("grades") }
            #expect(error?.reason == "not_logged_in")
        }
    }
}
