import Foundation

/// Compiled-in fixtures shaped like the real IS/STAG JSON (spec §2.6; research anchors-domain §4).
/// Person values are fictional.
enum Fixtures {
    static let osCislo = "A21B0123P"

    static var teacher: [String: Any?] { [
        "ucitIdno": 4321, "jmeno": "Eva", "prijmeni": "Svobodová", "titulPred": "Ing.", "titulZa": "Ph.D.", "platnost": "A",
        "zamestnanec": "A", "katedra": "KIV", "pracovisteDalsi": "PC", "email": "svobodoe@kiv.zcu.cz", "telefon": "377630000",
        "telefon2": nil, "url": nil,
    ] }

    /// The initial exam terms of the enrolment state machine.
    static func terms() -> [Int: TermState] {
        func d(_ s: String) -> Date { STAGDates.parse(s)! }
        let list = [
            TermState(termIdno: 1118482, katedra: "KIV", predmet: "VSS", datum: "24.2.2022", casOd: "10:00:00", casDo: "14:00:00",
                      limit: 10, opensAt: d("1.2.2022 8:00"), registerDeadline: d("24.2.2022 9:00"),
                      unregisterDeadline: d("23.2.2022 10:00"), enrolled: [osCislo], room: "355"),
            TermState(termIdno: 1118483, katedra: "KMI", predmet: "PRG", datum: "25.2.2022", casOd: "9:00:00", casDo: "12:00:00",
                      limit: 1, opensAt: d("1.2.2022 8:00"), registerDeadline: d("24.2.2022 12:00"),
                      unregisterDeadline: d("24.2.2022 12:00"), enrolled: ["A21B0999P"], room: "101"),
            TermState(termIdno: 1118484, katedra: "KIV", predmet: "DB1", datum: "28.2.2022", casOd: "8:00:00", casDo: "10:00:00",
                      limit: 20, opensAt: d("10.2.2022 8:00"), registerDeadline: d("27.2.2022 12:00"),
                      unregisterDeadline: d("27.2.2022 12:00"), enrolled: [], room: "UC-208"),
        ]
        return Dictionary(uniqueKeysWithValues: list.map { ($0.termIdno, $0) })
    }

    /// `getTerminyProStudenta` items recomputed from the state (spec §2.6.2, §2.7).
    static func terminJSON(_ term: TermState, osCislo: String, now: Date) -> [String: Any?] {
        let zapsan = term.enrolled.contains(osCislo)
        let full = term.limit.map { term.enrolled.count >= $0 } ?? false
        let closed = now > term.registerDeadline || (term.opensAt.map { now < $0 } ?? false)
        let can = zapsan ? now <= term.unregisterDeadline : (!full && !closed)
        return [
            "termIdno": term.termIdno, "ucitIdno": 4321, "ucitel": teacher, "predmet": term.predmet, "katedra": term.katedra,
            "rok": "2021", "semestr": "ZS", "datum": ["value": term.datum], "obsazeni": String(term.enrolled.count),
            "limit": term.limit.map(String.init) ?? "null", "casOd": term.casOd, "casDo": term.casDo, "budova": "UC",
            "mistnost": term.room, "kontakt": nil, "poznamka": nil, "opravny": "N",
            "deadlineDatumOdhlaseni": ["value": STAGDates.dayTime(term.unregisterDeadline)],
            "deadlineDatumPrihlaseni": ["value": STAGDates.dayTime(term.registerDeadline)],
            "zacatekPrihlasovani": term.opensAt.map { ["value": STAGDates.dayTime($0)] },
            "platnost": "A", "typTerminu": "Zkouška", "grteIdno": nil, "osCislo": osCislo, "zapsan": zapsan,
            "lzeZapsatOdepsat": can, "kodDuvoduProcNelzeZapsatOdepsat": can ? "OK" : (full ? "PLNY" : "TERMIN"),
            "textDuvoduProcNelzeZapsatOdepsat": can ? nil : (full ? "Termín je plně obsazen." : "Mimo období přihlašování."),
            "popisDuvoduProcNelzeZapsatOdepsat": nil,
        ]
    }

    static var studentInfo: [String: Any?] { [
        "osCislo": osCislo, "jmeno": "Jan", "prijmeni": "NOVÁK", "titulPred": nil, "titulZa": nil, "stav": "S", "userName": "novakj",
        "stprIdno": 12345, "nazevSp": "Informatika", "fakultaSp": "FAV", "kodSp": "B0613A140015", "formaSp": "P", "typSp": "B",
        "typSpKey": "B", "mistoVyuky": "Plzeň", "rocnik": "2", "financovani": "1", "oborKomb": "INF", "oborIdnos": "1234",
        "email": "novakj@students.zcu.cz", "cisloKarty": nil, "pohlavi": "M", "evidovanBankovniUcet": false,
    ] }

    static var userInfo: [String: Any?] { [
        "userName": osCislo, "role": "ST", "roleNazev": "Student", "fakulta": "FAV", "osCislo": osCislo, "email": "novakj@students.zcu.cz",
    ] }

    static var subjects: [[String: Any?]] { [
        ["zkratka": "DB1", "nazev": "Databázové systémy 1", "katedra": "KIV", "rok": "2021", "kredity": 6, "uznano": "N", "statut": "A"],
        ["zkratka": "VSS", "nazev": "Vývoj softwarových systémů", "katedra": "KIV", "rok": "2021", "kredity": 5, "uznano": "N", "statut": "A"],
        ["zkratka": "PRG", "nazev": "Programování", "katedra": "KMI", "rok": "2021", "kredity": 6, "uznano": "N", "statut": "A"],
    ] }

    static var grades: [[String: Any?]] { [
        ["katedra": "KIV", "zkratka": "DB1", "rok": "2021", "semestr": "ZS", "os_cislo": osCislo, "jmeno": "Jan", "prijmeni": "NOVÁK",
         "titul": "", "nesplnene_prerekvizity": "", "predmetUznany": "N", "zk_tyhoidno": 1, "zk_hodnidno": 1,
         "zk_typ_hodnoceni": "1|2|3|4", "zk_datum": "20.01.2022", "zk_hodnoceni": "1", "zk_body": "", "zk_pokus": "1",
         "zk_ucit_idno": "4321", "zk_jazyk": "CZ", "zk_ucit_jmeno": "Svobodová Eva", "zppzk_tyhoidno": 2, "zppzk_hodnidno": 5,
         "zppzk_typ_hodnoceni": "", "zppzk_datum": "17.12.2021", "zppzk_hodnoceni": "S", "zppzk_pokus": "1",
         "zppzk_ucit_idno": "4321", "zppzk_ucit_jmeno": "Svobodová Eva", "zppzk_uznan": "N", "stavAbsolvovani": "A"],
    ] }

    /// One weekly lecture (spec §2.6.1), Monday 10:05–11:40, every week.
    static var actions: [[String: Any?]] { [
        ["roakIdno": 300001, "nazev": "Databázové systémy 1", "katedra": "KIV", "predmet": "DB1", "statut": "A", "ucitIdno": 4321,
         "ucitel": teacher, "rok": "2021", "budova": "UC", "mistnost": "208", "kapacitaMistnosti": 60, "planObsazeni": 50,
         "obsazeni": 42, "typAkce": "Přednáška", "typAkceZkr": "Př", "semestr": "ZS", "platnost": "A", "den": "Pondělí",
         "denZkr": "PO", "vyucJazyk": "Čeština", "hodinaOd": 3, "hodinaDo": 4, "pocetVyucHodin": 2,
         "hodinaSkutOd": ["value": "10:05"], "hodinaSkutDo": ["value": "11:40"], "tydenOd": 38, "tydenDo": 51,
         "tyden": "Každý", "tydenZkr": "K", "grupIdno": nil, "jeNadrazena": "N", "maNadrazenou": "N", "kontakt": nil,
         "krouzky": nil, "casovaRada": "A", "datum": nil, "datumOd": ["value": "20.9.2021"], "datumDo": ["value": "20.12.2021"],
         "druhAkce": "R", "vsichniUciteleUcitIdno": "4321", "nekonaSe": nil],
    ] }
}
