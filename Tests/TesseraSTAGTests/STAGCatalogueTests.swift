import TesseraTestFixtures
import Foundation
import TesseraSDK
import TesseraSTAG
import TesseraSTAGEmulator
import TesseraTesting
import Testing

/// Issue 42: what the thesis's app had beside the timetable — a subject's details, a teacher's
/// theses, the ZČU canteen's menu — in Czech or English, against the emulator.
@Suite("STAG subject details, theses and canteen", .hangWatchdog)
struct STAGCatalogueTests {
    @Test func aSubjectsDetailsInCzechAndInEnglish() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            try await f.login()
            let czech = try #require(try await f.host.call("subject-info", ["subject": "KMI/PRG"])["data"])
            #expect(czech["name"] == "Programování" && czech["credits"] == 6 && czech["completion"] == "Zkouška" && czech["creditBeforeExam"] == true)
            #expect(czech["hours"]?["lectures"] == 2 && czech["hours"]?["practicals"] == 2)
            #expect(czech["lecturers"]?.arrayValue?.map { $0.stringValue } == ["doc. Ing. Jan Garant, Ph.D.", "RNDr. Petr Dvořák"])
            #expect(czech["prerequisites"] == "KMI/ZPR" && czech["url"] == "https://courseware.zcu.cz/portal/studium/courseware/kmi/prg")
            let english = try #require(try await f.host.call("subject-info", ["subject": "KMI/PRG", "language": "en"])["data"])
            #expect(english["name"] == "Programming" && english["completion"] == "Exam")
            // Cached: IS/STAG down, the details are still there, marked stale.
            f.emulator.setFault(.down)
            let offline = try await f.host.call("subject-info", ["subject": "KMI/PRG"])
            #expect(offline["stale"] == true && offline["data"]?["name"] == "Programování")
        }
    }

    @Test func aTeachersThesesWithTheirPartInEach() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            f.emulator.setLoginUser(.teacher)
            try await f.login()
            let theses = try #require(try await f.host.call("theses", ["year": "2025"])["data"]?.arrayValue)
            #expect(theses.map { $0["role"]?.stringValue } == ["supervisor", "opponent"])
            #expect(theses.first?["title"] == "Mobilní klient pro IS/STAG" && theses.first?["student"]?["name"] == "Jana Nováková")
            #expect(theses.first?["assignedOn"] == "2025-10-01" && theses.first?["dueOn"] == "2026-05-15")
            let english = try #require(try await f.host.call("theses", ["year": "2025", "language": "en"])["data"]?.arrayValue)
            #expect(english.first?["type"] == "Bachelor's thesis")
        }
    }

    @Test func theCanteensMenuWithAllergensAndPricesByDiner() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            let menu = try #require(try await f.host.call("canteen", ["canteen": "B"])["data"])
            #expect(menu["soups"]?.arrayValue?.first?["name"] == "Polévka hovězí s nudlemi")
            let main = try #require(menu["mainCourses"]?.arrayValue?.first)
            #expect(main["name"] == "Svíčková na smetaně, knedlík")
            #expect(main["prices"] == ["student": "62.00", "employee": "82.00", "external": "107.00"])
            #expect(main["allergens"]?.arrayValue?.map { $0["number"]?.integerValue } == [1, 3, 7])
            let english = try #require(try await f.host.call("canteen", ["canteen": "K", "daysShift": 1, "language": "en"])["data"])
            #expect(english["mainCourses"]?.arrayValue?.first?["name"] == "Chicken schnitzel, mashed potatoes" && english["day"] == "2026-01-02")
            let wrong = await #expect(throws: PluginError.self) { _ = try await f.host.call("canteen", ["canteen": "X"]) }
            #expect(wrong?.field == "$.canteen")
        }
    }
}

/// Issue 42: English as well as Czech — every read in the person's IS/STAG language.
@Suite("STAG in English", .hangWatchdog)
struct STAGLanguageTests {
    @Test func subjectNamesComeInTheLanguageSetAndAChangeReadsThemAgain() async throws {
        let f = try await STAGFixture.start(clock: STAGEmulator.pragueDate("16.2.2026 8:00"))
        try await withCleanup({ await f.stop() }) {
            try await f.login()
            let names = { (read: JSONValue) in Set((read["data"]?["events"]?.arrayValue ?? []).compactMap { $0["subjectName"]?.stringValue }) }
            #expect(names(try await f.host.call("timetable", ["date": "2026-02-16"])).contains("Programování"))
            #expect(try await f.host.call("language-set", ["language": "en"]) == ["language": "en"])
            let english = try await f.host.call("timetable", ["date": "2026-02-16"])
            #expect(names(english).contains("Programming") && !names(english).contains("Programování"))
            let grades = try await f.host.call("subjects")["data"]?.arrayValue ?? []
            #expect(grades.contains { $0["name"] == "Programming" }, "\(grades)")
            _ = try await f.host.call("language-set", ["language": "cs"])
            #expect(names(try await f.host.call("timetable", ["date": "2026-02-16"])).contains("Programování"))
        }
    }
}
