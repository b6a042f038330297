import TesseraTestFixtures
import Foundation
import TesseraSDK
import TesseraSTAG
import TesseraSTAGEmulator
import TesseraTesting
import Testing

@Suite("STAG student part against the emulator", .hangWatchdog)
struct STAGStudentTests {
    @Test func loginKeepsTheTicketOnlyAsASecret() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            let ticket = try await f.ssoTicket()
            #expect(ticket.count == 64)
            let me = try await f.host.call("complete-login", ["university": "demo", "ticket": .string("http://localhost/?stagUserTicket=\(ticket)&stagUserRole=ST")])
            #expect(me["studentNumber"]?.stringValue == STAGEmulator.student)
            #expect(try f.host.secretNames() == ["stag-ticket"])
            _ = try await f.host.call("profile")
            let files = [f.host.databasePath, f.host.databasePath + "-wal"]
            for file in files where FileManager.default.fileExists(atPath: file) {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
                #expect(bytes.range(of: Data(ticket.utf8)) == nil, "ticket found in \(file)")
            }
        }
    }

    @Test func badTicketsAreRefusedAndNothingIsStored() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            let short = await failure { try await f.host.call("complete-login", ["university": "demo", "ticket": "abc"]) }
            #expect(short?.code == .invalidInput)
            let unknown = await failure { try await f.host.call("complete-login", ["university": "demo", "ticket": .string(String(repeating: "ab", count: 32))]) }
            // The university refuses it: a credential refused, 403, as a wrong password is.
            #expect(unknown?.code == .forbidden)
            #expect(unknown?.reason == "ticket_rejected")
            let secretNames = try f.host.secretNames()
            #expect(secretNames.isEmpty)
            let noUniversity = await failure { try await f.host.call("complete-login", ["university": "nowhere", "ticket": .string(String(repeating: "ab", count: 32))]) }
            #expect(noUniversity?.field == "$.university")
        }
    }

    @Test func readsAreMappedAndCached() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            try await f.login()
            let exams = try await f.host.call("exams")
            #expect(exams["stale"]?.boolValue == false)
            let prg = exams["data"]?.arrayValue?.first { $0["termId"]?.integerValue == 1118482 }
            #expect(prg?["subject"]?.stringValue == "KMI/PRG")
            #expect(prg?["subjectName"]?.stringValue == "Programování")
            #expect(prg?["start"]?.stringValue == "2026-01-20T09:00:00+01:00")
            #expect(prg?["room"]?.stringValue == "UC 355")
            #expect(prg?["capacity"]?.integerValue == 10)
            let grades = try await f.host.call("grades")
            #expect(grades["data"]?.arrayValue?.first?["grade"]?.stringValue == "2")
            #expect(grades["data"]?.arrayValue?.first?["date"]?.stringValue == "2025-12-18")
            let subjects = try await f.host.call("subjects")
            #expect(subjects["data"]?.arrayValue?.count == 6)  // this year's three and last year's three
            #expect(subjects["data"]?.arrayValue?.first { $0["subject"] == "KMI/DM" }?["semester"] == "ZS")
            let profile = try await f.host.call("profile")
            #expect(profile["data"]?["lastName"]?.stringValue == "Nováková")
            let cached = try await f.host.query("SELECT id FROM cache ORDER BY id").compactMap { $0["id"].text }
            #expect(cached == ["exams", "grades", "profile", "subjects", "timetable:2025-12-29", "timetable:2026-01-05"])
        }
    }

    @Test func timetableFollowsWeekParity() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            try await f.login()
            // 2026-02-16 is in ISO week 8 (even): the even-week ALG seminar, not the odd-week PRG one.
            let even = try await f.host.call("timetable", ["date": "2026-02-18"])
            #expect(even["data"]?["parity"]?.stringValue == "even")
            let evenSubjects = even["data"]?["events"]?.arrayValue?.compactMap { $0["subject"]?.stringValue } ?? []
            #expect(evenSubjects == ["KMI/PRG", "KMI/ALG"])
            let odd = try await f.host.call("timetable", ["date": "2026-02-24"])
            let oddEvents = odd["data"]?["events"]?.arrayValue ?? []
            #expect(oddEvents.map { $0["subject"]?.stringValue ?? "" } == ["KMI/PRG", "KMI/PRG"])
            #expect(oddEvents.last?["date"]?.stringValue == "2026-02-24")
            #expect(oddEvents.last?["start"]?.stringValue == "13:00")
            let day = try await f.host.call("timetable", ["date": "2026-02-23", "day": true])
            #expect(day["data"]?["events"]?.arrayValue?.count == 1)
        }
    }
}
