import Foundation

/// The emulator's data: one student, her subjects, timetable, exam terms and grades, shaped as the
/// real IS/STAG JSON (field names from anchors-domain.md §4 and a real stag-demo capture).
enum Fixtures {
    static let osCislo = EmulatorAccount.student.studentNumber ?? ""
    static let userName = EmulatorAccount.student.userName
    static let ucitIdno = EmulatorAccount.teacher.teacherId ?? 0
    static let teacherUserName = EmulatorAccount.teacher.userName
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

    static let subjectNames = ["PRG": "Programování", "ALG": "Algoritmy", "DM": "Diskrétní matematika", "ZPR": "Základy programování",
                               "MA1": "Matematická analýza 1", "TV": "Tělesná výchova", "SEM": "Doktorandský seminář", "DB": "Databáze"]

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
        EmulatorGrade(department: "KMI", subject: "ZPR", grade: "1", date: date("20.1.2025"), year: "2024"),
        EmulatorGrade(department: "KMA", subject: "MA1", grade: "3", date: date("5.2.2025"), year: "2024", attempt: 2),
        EmulatorGrade(department: "KMI", subject: "TV", grade: "S", date: date("20.5.2025"), year: "2024", semester: "LS"),
    ]

    /// Other students of the faculty, who fill the seats the emulator's student does not.
    static func otherStudent(_ index: Int) -> [String: Any] {
        let names = [("Adam", "Beneš"), ("Eva", "Černá"), ("Filip", "Dušek"), ("Hana", "Fialová"), ("Ivan", "Grof"), ("Lucie", "Holá")]
        let (first, last) = names[index % names.count]
        let number = String(format: "A20B%04dP", 100 + index)
        return ["osCislo": number, "jmeno": first, "prijmeni": last, "titulPred": NSNull(), "titulZa": NSNull(), "userName": number,
                "email": "\(number.lowercased())@students.example.cz", "rocnik": "2", "fakultaSp": "PRF", "nazevSp": "Informatika", "stav": "S"]
    }

    /// The student's subjects: this year's three (ALG and PRG in the summer, DM in the winter
    /// semester) and last year's, all graded, so the results have a history.
    static let subjects: [EmulatorSubject] = [
        EmulatorSubject(department: "KMI", code: "PRG", name: "Programování", credits: 6),
        EmulatorSubject(department: "KMI", code: "ALG", name: "Algoritmy", credits: 5),
        EmulatorSubject(department: "KMI", code: "DM", name: "Diskrétní matematika", credits: 4, semester: "ZS"),
        EmulatorSubject(department: "KMI", code: "ZPR", name: "Základy programování", credits: 6, year: "2024", semester: "ZS"),
        EmulatorSubject(department: "KMA", code: "MA1", name: "Matematická analýza 1", credits: 5, year: "2024", semester: "ZS"),
        EmulatorSubject(department: "KMI", code: "TV", name: "Tělesná výchova", credits: 1, year: "2024", semester: "LS"),
        EmulatorSubject(department: "KMI", code: "SEM", name: "Doktorandský seminář", credits: 10, student: EmulatorAccount.dual.studentNumber ?? ""),
    ]

    /// Timetable events of the winter semester 2025/26 and the summer one; `tydenZkr` K = every, L = odd, S = even week.
    /// From March, two classes on Wednesday at 10:00, sent in the reverse of their names' order.
    static func timetable(student: String) -> [[String: Any]] {
        switch student {
        case osCislo:
            return [
                action(501, "PRG", "Přednáška", "Př", "Po", "09:20", "11:00", "Každý", "K", "16.2.2026", "18.5.2026", "355"),
                action(502, "PRG", "Cvičení", "Cv", "Út", "13:00", "14:40", "Lichý", "L", "16.2.2026", "22.5.2026", "201"),
                action(503, "ALG", "Cvičení", "Cv", "Út", "13:00", "14:40", "Sudý", "S", "16.2.2026", "22.5.2026", "202"),
                action(504, "DM", "Přednáška", "Př", "Čt", "07:30", "09:10", "Každý", "K", "22.9.2025", "19.12.2025", "355"),
                action(505, "DB", "Seminář", "Se", "St", "10:00", "11:40", "Každý", "K", "2.3.2026", "29.5.2026", "101"),
                action(506, "ALG", "Přednáška", "Př", "St", "10:00", "11:40", "Každý", "K", "2.3.2026", "29.5.2026", "102"),
            ]
        case EmulatorAccount.dual.studentNumber ?? "":
            return [action(601, "SEM", "Seminář", "Se", "St", "14:00", "15:40", "Každý", "K", "16.2.2026", "29.5.2026", "420")]
        default:
            return []
        }
    }

    /// The classes a teacher teaches: DVORAKP the student's, KRALM one PRG exercise.
    static func timetable(teacher: Int) -> [[String: Any]] {
        switch teacher {
        case ucitIdno: return timetable(student: osCislo)
        case EmulatorAccount.dual.teacherId ?? 0:
            return [action(602, "PRG", "Cvičení", "Cv", "Čt", "10:00", "11:40", "Každý", "K", "16.2.2026", "22.5.2026", "203", teacher: .dual)]
        default: return []
        }
    }

    static func action(_ id: Int, _ subject: String, _ kind: String, _ kindShort: String, _ day: String, _ from: String, _ to: String,
                       _ week: String, _ weekShort: String, _ start: String, _ end: String, _ room: String,
                       teacher: EmulatorAccount = .teacher) -> [String: Any] {
        ["roakIdno": id, "nazev": subjectNames[subject] ?? subject, "katedra": "KMI", "predmet": subject, "statut": "A",
         "ucitIdno": teacher.teacherId ?? 0,
         "ucitel": ["ucitIdno": teacher.teacherId ?? 0, "jmeno": teacher.firstName, "prijmeni": teacher.lastName,
                    "titulPred": teacher.titleBefore as Any? ?? NSNull(), "titulZa": NSNull()],
         "rok": "2025", "budova": "UC", "mistnost": room, "kapacitaMistnosti": 40, "planObsazeni": 30, "obsazeni": 25,
         "typAkce": kind, "typAkceZkr": kindShort, "semestr": "LS", "platnost": "A", "den": day, "denZkr": day,
         "hodinaOd": 3, "hodinaDo": 4, "pocetVyucHodin": 2,
         "hodinaSkutOd": ["value": from], "hodinaSkutDo": ["value": to],
         "tydenOd": 8, "tydenDo": 21, "tyden": week, "tydenZkr": weekShort,
         "datum": NSNull(), "datumOd": ["value": start], "datumDo": ["value": end], "nekonaSe": NSNull()]
    }
}
