import Foundation
import Testing
@testable import TesseraSTAG

/// The module's parsing of real-shaped STAG JSON (spec §2.6) and plain-text enrol answers (spec §2.1).
@Suite("STAG parsing")
struct STAGParsingTests {
    static let termJSON = """
    {"termin":[{"termIdno":1118482,"ucitIdno":4321,"ucitel":{"ucitIdno":4321,"jmeno":"Eva","prijmeni":"Svobodová","titulPred":"Ing."},
     "predmet":"VSS","katedra":"KIV","rok":"2021","semestr":"ZS","datum":{"value":"24.2.2022"},"obsazeni":"1","limit":"10",
     "casOd":"10:00:00","casDo":"14:00:00","budova":"UC","mistnost":"355","kontakt":null,"poznamka":"Sraz",
     "opravny":"N","deadlineDatumOdhlaseni":{"value":"23.2.2022 10:00"},"deadlineDatumPrihlaseni":{"value":"24.2.2022 9:00"},
     "zacatekPrihlasovani":null,"platnost":"A","typTerminu":"Zkouška","grteIdno":null,"osCislo":"A21B0123P","zapsan":true,
     "lzeZapsatOdepsat":true,"kodDuvoduProcNelzeZapsatOdepsat":"OK","textDuvoduProcNelzeZapsatOdepsat":null},
     {"termIdno":7,"predmet":"PRG","katedra":"KMI","datum":{"value":"25.2.2022"},"casOd":"9:00:00","limit":"null","zapsan":false}]}
    """

    @Test("A termin item: subject KIV/VSS, start in Prague time, capacity, deadlines; \"null\" limit means none")
    func terms() throws {
        let list = try JSONDecoder().decode(TermList.self, from: Data(Self.termJSON.utf8)).termin ?? []
        #expect(list.count == 2)
        #expect(list[0].subject == "KIV/VSS")
        #expect(list[0].capacity == 10)
        #expect(list[1].capacity == nil)
        let iso = ISO8601DateFormatter()
        #expect(list[0].start.map(iso.string(from:)) == "2022-02-24T09:00:00Z")  // 10:00 CET
        #expect(list[0].deadlineDatumOdhlaseni?.date.map(iso.string(from:)) == "2022-02-23T09:00:00Z")
        #expect(list[1].start.map(iso.string(from:)) == "2022-02-25T08:00:00Z")
    }

    @Test("Grades: snake_case root, zero-padded dates, credit used when the exam is ungraded")
    func grades() throws {
        let json = """
        {"student_na_predmetu":[{"katedra":"KIV","zkratka":"DB1","rok":"2021","semestr":"ZS","zk_datum":"20.01.2022","zk_hodnoceni":"1",
         "zppzk_hodnoceni":"S","zppzk_datum":"17.12.2021"},
         {"katedra":"KIV","zkratka":"OS","zk_datum":"","zk_hodnoceni":"","zk_pokus":"0","zppzk_hodnoceni":null,"zppzk_datum":null},
         {"katedra":"KMA","zkratka":"M1","zk_hodnoceni":"","zppzk_hodnoceni":"S","zppzk_datum":"10.12.2021"}]}
        """
        let list = try JSONDecoder().decode(GradeList.self, from: Data(json.utf8)).student_na_predmetu ?? []
        #expect(list.map(\.grade) == ["1", nil, "S"])
        #expect(list.map(\.date) == ["20.01.2022", nil, "10.12.2021"])
        #expect(STAGValue.parse("20.01.2022") != nil)
    }

    @Test("Subjects with credits")
    func subjects() throws {
        let json = #"{"predmetStudenta":[{"zkratka":"DB1","nazev":"Databázové systémy 1","katedra":"KIV","rok":"2021","kredity":6,"uznano":"N","statut":"A"}]}"#
        let list = try JSONDecoder().decode(SubjectList.self, from: Data(json.utf8)).predmetStudenta ?? []
        #expect(list.first?.subject == "KIV/DB1")
        #expect(list.first?.kredity == 6)
    }

    @Test("Plain-text enrol answers map to results and reason codes")
    func enrolAnswers() {
        #expect(EnrolAnswer(body: "OK\n") == .ok)
        #expect(EnrolAnswer(body: "Termín je již plně obsazen.").reasonCode == "term-full")
        #expect(EnrolAnswer(body: "Termín pro odhlášení již vypršel.").reasonCode == "deadline-passed")
        #expect(EnrolAnswer(body: "Přihlašování na termín ještě nezačalo.").reasonCode == "registration-not-open")
        #expect(EnrolAnswer(body: "Něco jiného").reasonCode == "refused")
    }

    @Test("The SSO login URL percent-encodes originalURL and asks for a long ticket")
    func loginURL() {
        let url = Universities.loginURL(wsBase: "https://stag-ws.zcu.cz/ws", originalURL: "http://127.0.0.1:8080/ui/cz.tessera.stag/callback.html")
        #expect(url == "https://stag-ws.zcu.cz/ws/login?originalURL=http%3A%2F%2F127.0.0.1%3A8080%2Fui%2Fcz.tessera.stag%2Fcallback.html&longTicket=true")
        #expect(Universities.all.count == 13)
    }
}
