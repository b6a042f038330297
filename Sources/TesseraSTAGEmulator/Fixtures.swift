import Foundation

/// The emulator's data: one student, her subjects, timetable, exam terms and grades, shaped as the
/// real IS/STAG JSON (field names from anchors-domain.md §4 and a real stag-demo capture).
enum Fixtures {
    static let osCislo = "A20B0001P"
    static let userName = "NOVAKJ"
    static let ucitIdno = 4711
    static let teacherUserName = "DVORAKP"
    /// The password of both users for the HTTP Basic login.
    static let password = "heslo123"
    static let prague = TimeZone(identifier: "Europe/Prague")!

    static func date(_ text: String) -> Date {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = prague
        f.dateFormat = text.contains(":") ? "d.M.yyyy H:mm" : "d.M.yyyy"
        return f.date(from: text)!
    }

    static func stagDate(_ date: Date, time: Bool = false) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = prague
        f.dateFormat = time ? "d.M.yyyy H:mm" : "d.M.yyyy"
        return f.string(from: date)
    }

    static func clockTime(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = prague
        f.dateFormat = "HH:mm:ss"
        return f.string(from: date)
    }

    static let subjectNames = ["PRG": "Programování", "ALG": "Algoritmy", "DM": "Diskrétní matematika"]

    static let terms: [EmulatorTerm] = [
        EmulatorTerm(id: 1118482, department: "KMI", subject: "PRG", start: date("20.1.2026 9:00"), room: "355", building: "UC",
                     limit: 10, registered: [], otherStudents: 3,
                     registerBy: date("19.1.2026 9:00"), unregisterBy: date("19.1.2026 9:00")),
        EmulatorTerm(id: 1118483, department: "KMI", subject: "ALG", start: date("22.1.2026 13:00"), room: "201", building: "UP",
                     limit: 2, registered: [], otherStudents: 2,
                     registerBy: date("21.1.2026 13:00"), unregisterBy: date("21.1.2026 13:00")),
        EmulatorTerm(id: 1118484, department: "KMI", subject: "DM", start: date("8.1.2026 8:00"), room: "355", building: "UC",
                     limit: 20, registered: [], otherStudents: 5,
                     registerBy: date("5.1.2026 8:00"), unregisterBy: date("5.1.2026 8:00")),
    ]

    static let grades: [EmulatorGrade] = [
        EmulatorGrade(department: "KMI", subject: "DM", grade: "2", date: date("18.12.2025")),
    ]

    static func studentInfo() -> [String: Any] {
        ["osCislo": osCislo, "jmeno": "Jana", "prijmeni": "Nováková", "titulPred": NSNull(), "titulZa": NSNull(),
         "stav": "S", "userName": userName, "stprIdno": "12345", "nazevSp": "Informatika", "fakultaSp": "PRF",
         "kodSp": "B1801", "formaSp": "P", "typSp": "B", "rocnik": "2", "email": "jana.novakova@example.cz"]
    }

    /// `help/getStagUserListForLoginTicketV2` for whoever logged in.
    static func userList(_ user: EmulatorUser = .student) -> [String: Any] {
        if user == .teacher {
            return ["jmeno": "Petr", "prijmeni": "Dvořák", "titulPred": "RNDr.", "titulZa": NSNull(), "email": "petr.dvorak@example.cz",
                    "stagUserInfo": [["userName": teacherUserName, "role": "VY", "roleNazev": "Vyučující", "fakulta": "PRF", "katedra": "KMI",
                                      "ucitIdno": ucitIdno, "email": "petr.dvorak@example.cz"]]]
        }
        return ["jmeno": "Jana", "prijmeni": "Nováková", "titulPred": NSNull(), "titulZa": NSNull(), "email": "jana.novakova@example.cz",
                "stagUserInfo": [["userName": userName, "role": "ST", "roleNazev": "Student", "fakulta": "PRF", "osCislo": osCislo]]]
    }

    /// Other students of the faculty, who fill the seats the emulator's student does not.
    static func otherStudent(_ index: Int) -> [String: Any] {
        let names = [("Adam", "Beneš"), ("Eva", "Černá"), ("Filip", "Dušek"), ("Hana", "Fialová"), ("Ivan", "Grof"), ("Lucie", "Holá")]
        let (first, last) = names[index % names.count]
        let number = String(format: "A20B%04dP", 100 + index)
        return ["osCislo": number, "jmeno": first, "prijmeni": last, "titulPred": NSNull(), "titulZa": NSNull(), "userName": number,
                "email": "\(number.lowercased())@students.example.cz", "rocnik": "2", "fakultaSp": "PRF", "nazevSp": "Informatika", "stav": "S"]
    }

    /// The emulator's own student as a row of a list of students.
    static func ownStudentRow() -> [String: Any] {
        ["osCislo": osCislo, "jmeno": "Jana", "prijmeni": "Nováková", "titulPred": NSNull(), "titulZa": NSNull(), "userName": userName,
         "email": "jana.novakova@example.cz", "rocnik": "2", "fakultaSp": "PRF", "nazevSp": "Informatika", "stav": "S"]
    }

    static func subjects() -> [String: Any] {
        ["predmetStudenta": [
            ["katedra": "KMI", "zkratka": "PRG", "nazev": "Programování", "kredity": 6, "rok": "2025", "statut": "A", "uznano": "N"],
            ["katedra": "KMI", "zkratka": "ALG", "nazev": "Algoritmy", "kredity": 5, "rok": "2025", "statut": "A", "uznano": "N"],
            ["katedra": "KMI", "zkratka": "DM", "nazev": "Diskrétní matematika", "kredity": 4, "rok": "2025", "statut": "B", "uznano": "N"],
        ]]
    }

    /// Timetable events of the winter semester 2025/26 and the summer one; `tydenZkr` K = every, L = odd, S = even week.
    static func timetable() -> [[String: Any]] {
        func action(_ id: Int, _ subject: String, _ kind: String, _ kindShort: String, _ day: String, _ from: String, _ to: String,
                    _ week: String, _ weekShort: String, _ start: String, _ end: String, _ room: String) -> [String: Any] {
            ["roakIdno": id, "nazev": subjectNames[subject] ?? subject, "katedra": "KMI", "predmet": subject, "statut": "A",
             "ucitIdno": 4711, "ucitel": ["ucitIdno": 4711, "jmeno": "Petr", "prijmeni": "Dvořák", "titulPred": "RNDr.", "titulZa": NSNull()],
             "rok": "2025", "budova": "UC", "mistnost": room, "kapacitaMistnosti": 40, "planObsazeni": 30, "obsazeni": 25,
             "typAkce": kind, "typAkceZkr": kindShort, "semestr": "LS", "platnost": "A", "den": day, "denZkr": day,
             "hodinaOd": 3, "hodinaDo": 4, "pocetVyucHodin": 2,
             "hodinaSkutOd": ["value": from], "hodinaSkutDo": ["value": to],
             "tydenOd": 8, "tydenDo": 21, "tyden": week, "tydenZkr": weekShort,
             "datum": NSNull(), "datumOd": ["value": start], "datumDo": ["value": end], "nekonaSe": NSNull()]
        }
        return [
            action(501, "PRG", "Přednáška", "Př", "Po", "09:20", "11:00", "Každý", "K", "16.2.2026", "18.5.2026", "355"),
            action(502, "PRG", "Cvičení", "Cv", "Út", "13:00", "14:40", "Lichý", "L", "16.2.2026", "22.5.2026", "201"),
            action(503, "ALG", "Cvičení", "Cv", "Út", "13:00", "14:40", "Sudý", "S", "16.2.2026", "22.5.2026", "202"),
            action(504, "DM", "Přednáška", "Př", "Čt", "07:30", "09:10", "Každý", "K", "22.9.2025", "19.12.2025", "355"),
        ]
    }
}
