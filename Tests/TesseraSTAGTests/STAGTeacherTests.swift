import TesseraTestFixtures
import Foundation
import TesseraSDK
import TesseraSTAG
import TesseraSTAGEmulator
import TesseraTesting
import Testing

/// The teacher part against the emulator's teacher (role VY, ucitIdno 4711), and the notes.
@Suite("STAG teacher part and notes", .hangWatchdog)
struct STAGTeacherTests {
    @Test func aTeacherSeesTheirTimetableTheirTermsWithStudentsAndASubjectsStudents() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            f.emulator.setLoginUser(.teacher)
            let ticket = try await f.ssoTicket()
            let me = try await f.host.call("complete-login", ["university": "demo", "ticket": .string(ticket)])
            #expect(me["roles"] == ["teacher"] && me["teacherId"] == 4711 && me["studentNumber"] == nil)
            // Who is logged in, without asking IS/STAG (issue 42: no operation said so).
            let account = try await f.host.call("account")
            #expect(account["loggedIn"] == true && account["roles"] == ["teacher"] && account["teacherId"] == 4711 && account["name"] == me["name"])
            #expect(account["userName"] == me["userName"])
            // The student part needs the student role.
            #expect(await failure { try await f.host.call("exams") }?.reason == "not_logged_in")

            // Week 8 of 2026 is even: the odd-week PRG exercise is not on, the even-week ALG one is.
            let week = try await f.host.call("teacher-timetable", ["date": "2026-02-17"])
            let events = try #require(week["data"]?["events"]?.arrayValue)
            #expect(events.map { "\($0["date"]?.stringValue ?? "") \($0["subject"]?.stringValue ?? "")" } == ["2026-02-16 KMI/PRG", "2026-02-17 KMI/ALG"])
            let day = try await f.host.call("teacher-timetable", ["date": "2026-02-16", "day": true])
            #expect(day["data"]?["events"]?.arrayValue?.count == 1)

            let terms = try #require(try await f.host.call("teacher-exams")["data"]?.arrayValue)
            #expect(terms.map { $0["termId"] } == [1118482, 1118483, 1118484])
            // Each term lists its registered students: as many as the seats taken.
            for term in terms { #expect(term["students"]?.arrayValue?.count == term["occupied"]?.integerValue.map(Int.init)) }
            #expect(terms[0]["students"]?.arrayValue?.first?["name"] == "Adam Beneš")

            let students = try await f.host.call("subject-students", ["subject": "KMI/PRG", "semester": "LS"])
            #expect(students["data"]?.arrayValue?.count == 5 && students["stale"] == false)
            #expect(await failure { try await f.host.call("subject-students", ["subject": "PRG"]) }?.code == .invalidInput)

            // Offline: the last answer, marked stale with its age.
            f.emulator.setFault(.down)
            try await f.host.advanceClock(by: 120)
            let offline = try await f.host.call("teacher-exams")
            #expect(offline["stale"] == true && offline["ageSeconds"] == 120 && offline["data"]?.arrayValue?.count == 3)
        }
    }

    @Test func notesAreKeptAcrossLogoutWithTheDaysRemaining() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            try await f.login()
            let saved = try await f.host.call("note-save", ["title": "Zápočet", "text": "odevzdat úlohu", "subject": "KMI/PRG", "day": "2026-01-11"])
            let id = try #require(saved["id"]?.stringValue)
            _ = try await f.host.call("note-save", ["title": "Knihovna", "text": "vrátit knihy"])
            #expect(await failure { try await f.host.call("note-save", ["title": "x", "day": "11.1.2026"]) }?.code == .invalidInput)
            var notes = try #require(try await f.host.call("notes").arrayValue)
            #expect(notes.map { $0["title"] } == ["Zápočet", "Knihovna"])  // dated first
            #expect(notes[0]["daysRemaining"] == 10)  // the clock is at 2026-01-01
            #expect(try await f.host.call("notes", ["subject": "KMI/PRG"]).arrayValue?.count == 1)
            _ = try await f.host.call("note-save", ["id": .string(id), "text": "odevzdat úlohu 3"])
            _ = try await f.host.call("exams")
            _ = try await f.host.call("logout")
            #expect(try await f.host.query("SELECT COUNT(*) AS n FROM cache").first?["n"].integer == 0)
            try await f.login()  // the same person again: their notes are back
            notes = try #require(try await f.host.call("notes").arrayValue)
            #expect(notes.count == 2 && notes[0]["text"] == "odevzdat úlohu 3")
            _ = try await f.host.call("note-delete", ["id": .string(id)])
            #expect(await failure { try await f.host.call("note-delete", ["id": .string(id)]) }?.code == .notFound)
            #expect(try await f.host.call("notes").arrayValue?.count == 1)
        }
    }

    @Test func aSlowISSTAGTimesOutToTheCacheOrAClearError() async throws {
        // 10 s: long enough for a normal answer while the whole suite starts at once on two cores
        // (4 s was not), and what the test waits twice.
        let f = try await STAGFixture.start(config: ["timeoutSeconds": 10])
        try await withCleanup({ await f.stop() }) {
            try await f.login()
            _ = try await f.host.call("exams")
            f.emulator.setSlow(seconds: 60)  // the module gives up after 10 s
            let exams = try await f.host.call("exams")
            #expect(exams["stale"] == true && exams["reason"] == "unavailable" && exams["data"]?.arrayValue?.count == 3)
            let week = await failure { try await f.host.call("timetable", ["date": "2026-05-20"]) }  // nothing cached to fall back on
            #expect(week?.code == .unavailable && week?.reason == "unavailable")
        }
    }
}

/// HTTP Basic login where a university allows it (the thesis's DEMO path).
@Suite("STAG HTTP Basic login", .hangWatchdog)
struct STAGBasicLoginTests {
    @Test func aLoginNameAndPasswordGiveATicketAndThePasswordIsKeptNowhere() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            let wrong = await failure { try await f.host.call("login-basic", ["university": "demo", "userName": "NOVAKJ", "password": "nope"]) }
            #expect(wrong?.code == .forbidden && wrong?.reason == "invalid_credentials")
            #expect(try f.host.secretNames().isEmpty)
            let me = try await f.host.call("login-basic", ["university": "demo", "userName": "NOVAKJ", "password": "heslo123"])
            #expect(me["studentNumber"] == .string(STAGEmulator.student) && me["roles"] == ["student"])
            #expect(me["ticketExpires"] == "2026-01-01T04:00:00Z")  // a few hours for a Basic login's cookie
            #expect(try await f.host.call("profile")["data"]?["studentNumber"] == .string(STAGEmulator.student))
            #expect(try f.host.secretNames() == ["stag-ticket"])
            for file in [f.host.databasePath, f.host.databasePath + "-wal"] {
                let bytes = FileManager.default.contents(atPath: file) ?? Data()
                #expect(bytes.range(of: Data("heslo123".utf8)) == nil, "the password reached \(file)")
            }
        }
    }

    /// Issue 42: a class's students for its teacher (`student/getStudentiByRoakce`), cached.
    @Test func aTeacherSeesTheStudentsOfOneOfTheirClasses() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            f.emulator.setLoginUser(.teacher)
            try await f.login()
            let week = try await f.host.call("teacher-timetable", ["date": "2026-02-17"])
            let lecture = try #require(week["data"]?["events"]?.arrayValue?.first { $0["subject"] == "KMI/PRG" && $0["kindShort"] == "Př" })
            let students = try #require(try await f.host.call("class-students", ["action": lecture["id"]!])["data"]?.arrayValue)
            #expect(students.count == 4 && students.first?["studentNumber"] == .string(STAGEmulator.student))
            #expect(try await f.host.call("class-students", ["action": 999])["data"]?.arrayValue?.isEmpty == true)
            f.emulator.setFault(.down)
            let offline = try await f.host.call("class-students", ["action": lecture["id"]!])
            #expect(offline["stale"] == true && offline["data"]?.arrayValue?.count == 4)
        }
    }
}
