import TesseraTestFixtures
import Foundation
import TesseraSDK
import TesseraSTAG
import TesseraSTAGEmulator
import TesseraTesting
import Testing

/// The parts of the spec issue 23 found missing: the initial sync at login, the day's overview,
/// results with statistics, exam terms with their status grouped by subject, timetable duration
/// and order, and the dual student+teacher role.
@Suite("STAG overview, results, exam status, dual role", .hangWatchdog)
struct STAGOverviewAndResultsTests {
    static func prague(_ text: String) -> Date { STAGEmulator.pragueDate(text) }

    @Test func theLoginReadsEverythingAtOnce() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            let ticket = try await f.ssoTicket()
            let me = try await f.host.call("complete-login", ["university": "demo", "ticket": .string(ticket)])
            #expect(me["initialSync"] == ["synced": true])
            let cached = try await f.host.query("SELECT id FROM cache ORDER BY id").compactMap { $0["id"].text }
            #expect(cached == ["exams", "grades", "profile", "subjects", "timetable:2025-12-29", "timetable:2026-01-05"])
            #expect(try await f.host.query("SELECT id FROM seen WHERE id LIKE '%|baseline'").count == 1)
            // The reminders are planned without waiting for the first hourly refresh.
            #expect(try f.host.pendingNotifications().contains { $0.request.key == "stag:registrationCloses:1118482" })
            // Offline right after the login, the reads still answer.
            f.emulator.setFault(.down)
            #expect(try await f.host.call("profile")["stale"] == true)
        }
    }

    @Test func theOverviewShowsTheDay() async throws {
        // Wednesday 4 March 2026, 9:00 in Prague: ISO week 10, even.
        let f = try await STAGFixture.start(clock: Self.prague("4.3.2026 9:00"))
        try await withCleanup({ await f.stop() }) {
            f.emulator.addTerm(EmulatorTerm(id: 3000001, department: "KMI", subject: "ALG", start: Self.prague("10.3.2026 9:00"), room: "201", limit: 10))
            try await f.login()
            _ = try await f.host.call("note-save", ["title": "Úkol 3", "day": "2026-03-06"])
            _ = try await f.host.call("note-save", ["title": "Semestrálka", "day": "2026-04-01"])
            _ = try await f.host.call("note-save", ["title": "Bez data"])
            var day = try #require(try await f.host.call("overview")["data"])
            #expect(day["date"] == "2026-03-04" && day["week"] == 10 && day["parity"] == "even")
            // Two classes at 10:00, by name: Algoritmy before Databáze (IS/STAG sends them the other way round).
            #expect(day["classes"]?.arrayValue?.map { $0["subject"] } == ["KMI/ALG", "KMI/DB"])
            #expect(day["classes"]?.arrayValue?.first?["role"] == "student")
            #expect(day["todayCount"] == 2 && day["doneForToday"] == false)
            #expect(day["notes"]?.arrayValue?.map { $0["title"] } == ["Úkol 3"])
            #expect(day["notes"]?.arrayValue?.first?["daysRemaining"] == 2)
            #expect(day["exams"] == [])
            #expect(day["deadlines"]?.arrayValue?.map { $0["kind"] } == ["registrationCloses"])
            #expect(day["deadlines"]?.arrayValue?.first?["at"] == "2026-03-09T09:00:00+01:00")

            _ = try await f.host.call("exam-register", ["termId": 3000001])
            try await f.host.advanceClock(by: 3 * 3600)  // 12:00, both classes over
            day = try #require(try await f.host.call("overview")["data"])
            #expect(day["exams"]?.arrayValue?.map { $0["termId"] } == [3000001])
            #expect(day["deadlines"]?.arrayValue?.map { $0["kind"] } == ["unregisterDeadline"])
            #expect(day["classes"] == [] && day["todayCount"] == 2 && day["doneForToday"] == true)
        }
    }

    @Test func timetableEntriesHaveADurationAndAStableOrder() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            try await f.login()
            let day = try await f.host.call("timetable", ["date": "2026-03-04", "day": true])
            let events = try #require(day["data"]?["events"]?.arrayValue)
            #expect(events.map { $0["subjectName"] } == ["Algoritmy", "Databáze"])
            #expect(events.map { $0["id"] } == [506, 505])
            #expect(events.map { $0["durationMinutes"] } == [100, 100])
            #expect(events.first?["kindShort"] == "Př")
        }
    }

    @Test func resultsCountCreditsAgainstTheTargetAndTheWeightedAverage() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            try await f.login()
            let results = try #require(try await f.host.call("results")["data"])
            // Earned: DM 4 (2), ZPR 6 (1), MA1 5 (3), TV 1 (S); PRG 6 and ALG 5 not graded yet.
            #expect(results["creditsEarned"] == 16 && results["creditsEnrolled"] == 27 && results["creditsTarget"] == 180)
            #expect(results["enrolled"] == 6 && results["passed"] == 4)
            // (4×2 + 6×1 + 5×3) / 15 = 1.93; S carries no number.
            #expect(results["weightedAverage"] == .number(1.93))
            #expect(results["countsByGrade"] == ["1": 1, "2": 1, "3": 1, "S": 1])
            let years = try #require(results["years"]?.arrayValue)
            #expect(years.map { $0["label"] } == ["2025/26", "2024/25"])
            #expect(years[0]["creditsEnrolled"] == 15 && years[0]["creditsEarned"] == 4 && years[0]["weightedAverage"] == .number(2))
            #expect(years[1]["weightedAverage"] == .number(1.91))
            #expect(years[0]["semesters"]?["LS"]?.arrayValue?.map { $0["subject"] } == ["KMI/ALG", "KMI/PRG"])
            #expect(years[0]["semesters"]?["ZS"]?.arrayValue?.first?["grade"] == "2")
            #expect(years[1]["semesters"]?["ZS"]?.arrayValue?.first { $0["subject"] == "KMA/MA1" }?["attempt"] == "2")

            // A new grade: announced with the new average.
            f.emulator.addGrade(EmulatorGrade(department: "KMI", subject: "PRG", grade: "1", date: Self.prague("2.1.2026"), semester: "LS"))
            _ = try await f.host.call("refresh")
            try await f.host.advanceClock(by: 1)
            let note = try f.host.deliveredNotifications().first { $0.key.hasPrefix("stag:grade:KMI/PRG") }
            #expect(note?.title == "New grade: Programování")
            #expect(note?.body == "KMI/PRG: 1; weighted average now 1.67")  // (29 + 6×1) / 21
        }
    }

    @Test func examTermsCarryTheirStatusAndWhyAClosedOneIsClosedGroupedBySubject() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            f.emulator.setTicketLifetime(100 * 86_400)
            f.emulator.addTerm(EmulatorTerm(id: 2000020, department: "KMI", subject: "PRG", start: Self.prague("3.2.2026 10:00"), room: "402",
                                            limit: 15, registerFrom: Self.prague("20.1.2026 9:00")))
            try await f.login()
            let groups = try #require(try await f.host.call("exams-by-subject")["data"]?.arrayValue)
            #expect(groups.map { $0["subjectName"] } == ["Algoritmy", "Diskrétní matematika", "Programování"])
            #expect(groups.map { $0["count"] } == [1, 1, 2])
            let alg = groups[0]["terms"]?.arrayValue?.first
            #expect(alg?["status"] == "closed" && alg?["reasonCode"] == "full" && alg?["reason"] == "the term is full (2/2)")
            // IS/STAG's own sentence, for a page to show as it is (the module's `reason` is English, for programs).
            #expect(alg?["stagReason"] == "Termín je již plně obsazen.")
            #expect(groups[1]["terms"]?.arrayValue?.first?["stagReason"] == nil)
            #expect(groups[1]["terms"]?.arrayValue?.first?["status"] == "open")
            let prg = groups[2]["terms"]?.arrayValue ?? []
            #expect(prg.map { $0["termId"] } == [1118482, 2000020])
            #expect(prg[0]["status"] == "open" && prg[0]["examiner"] == "RNDr. Petr Dvořák" && prg[0]["end"] == "2026-01-20T13:00:00+01:00")
            #expect(prg[1]["status"] == "closed" && prg[1]["reasonCode"] == "not_open_yet")
            #expect(prg[1]["reason"] == "registration opens 2026-01-20T09:00:00+01:00")

            // Registered; once IS/STAG's unregistering deadline has passed, it says so in its own words.
            _ = try await f.host.call("exam-register", ["termId": 1118482])
            f.emulator.setTime(Self.prague("19.1.2026 10:00"))
            let registered = try await f.host.call("exams")["data"]?.arrayValue?.first { $0["termId"] == 1118482 }
            #expect(registered?["status"] == "registered" && registered?["canUnregister"] == false)
            #expect(registered?["reason"] == "Termín pro odhlašování již vypršel.")
        }
    }

    @Test func aTermPastItsRegistrationDeadlineIsClosedEvenFromTheCache() async throws {
        let f = try await STAGFixture.start(clock: Self.prague("6.1.2026 10:00"))
        try await withCleanup({ await f.stop() }) {
            f.emulator.setTime(Self.prague("6.1.2026 10:00"))
            try await f.login()
            f.emulator.setFault(.down)
            let exams = try await f.host.call("exams")
            #expect(exams["stale"] == true)
            let dm = exams["data"]?.arrayValue?.first { $0["termId"] == 1118484 }
            #expect(dm?["status"] == "closed" && dm?["reasonCode"] == "registration_closed")
        }
    }

    @Test func aPersonWithBothRolesGetsTheStudentAndTheTeacherPart() async throws {
        // Thursday 19 February 2026, 8:00 in Prague.
        let f = try await STAGFixture.start(clock: Self.prague("19.2.2026 8:00"))
        try await withCleanup({ await f.stop() }) {
            f.emulator.setLoginUser(.dual)
            let ticket = try await f.ssoTicket()
            let me = try await f.host.call("complete-login", ["university": "demo", "ticket": .string(ticket)])
            #expect(me["roles"] == ["student", "teacher"] && me["studentNumber"] == "A22P0003P" && me["teacherId"] == 4712)
            #expect(me["initialSync"] == ["synced": true])
            let studies = try await f.host.call("timetable", ["date": "2026-02-18"])["data"]?["events"]?.arrayValue ?? []
            #expect(studies.map { $0["subject"] } == ["KMI/SEM"])
            let teaches = try await f.host.call("teacher-timetable", ["date": "2026-02-18"])["data"]?["events"]?.arrayValue ?? []
            #expect(teaches.map { $0["subject"] } == ["KMI/PRG"] && teaches.first?["teacher"] == "Ing. Martin Král")
            let day = try #require(try await f.host.call("overview")["data"])
            #expect(day["classes"]?.arrayValue?.map { $0["role"] } == ["teacher"])
            let results = try #require(try await f.host.call("results")["data"])
            #expect(results["creditsTarget"] == 240 && results["creditsEnrolled"] == 10)
            #expect(try await f.host.call("teacher-exams")["data"]?.arrayValue?.isEmpty == true)

            // The Basic login finds both roles too.
            _ = try await f.host.call("logout")
            let basic = try await f.host.call("login-basic", ["university": "demo", "userName": "KRALM", "password": "heslo123"])
            #expect(basic["roles"] == ["student", "teacher"])
        }
    }
}
