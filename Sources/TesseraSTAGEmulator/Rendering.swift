import Foundation

/// STAG's JSON shapes for the emulator's terms and grades.
enum Rendering {
    static func term(_ t: EmulatorTerm, for student: String) -> [String: Any] {
        let isIn = t.registered.contains(student)
        return ["termIdno": t.id, "ucitIdno": 4711,
                "ucitel": ["ucitIdno": 4711, "jmeno": "Petr", "prijmeni": "Dvořák", "titulPred": "RNDr.", "titulZa": NSNull()],
                "predmet": t.subject, "katedra": t.department, "rok": "2025", "semestr": "ZS",
                "datum": ["value": Fixtures.stagDate(t.start)], "obsazeni": String(t.occupied), "limit": String(t.limit),
                "casOd": Fixtures.clockTime(t.start), "casDo": Fixtures.clockTime(t.start.addingTimeInterval(4 * 3600)),
                "budova": t.building, "mistnost": t.room, "kontakt": NSNull(), "poznamka": NSNull(), "opravny": "N",
                "deadlineDatumOdhlaseni": ["value": Fixtures.stagDate(t.unregisterBy, time: true)],
                "deadlineDatumPrihlaseni": ["value": Fixtures.stagDate(t.registerBy, time: true)],
                "zacatekPrihlasovani": t.registerFrom.map { ["value": Fixtures.stagDate($0, time: true)] as Any } ?? NSNull(), "platnost": "A", "typTerminu": "Zkouška", "grteIdno": NSNull(),
                "osCislo": student, "zapsan": isIn, "lzeZapsatOdepsat": true,
                "kodDuvoduProcNelzeZapsatOdepsat": "OK", "textDuvoduProcNelzeZapsatOdepsat": NSNull(),
                "popisDuvoduProcNelzeZapsatOdepsat": NSNull()]
    }

    /// A term as the teacher's list shows it: no student's own fields.
    static func teacherTerm(_ t: EmulatorTerm) -> [String: Any] {
        var item = term(t, for: "")
        for key in ["osCislo", "zapsan", "lzeZapsatOdepsat", "kodDuvoduProcNelzeZapsatOdepsat", "textDuvoduProcNelzeZapsatOdepsat",
                    "popisDuvoduProcNelzeZapsatOdepsat"] { item.removeValue(forKey: key) }
        return item
    }

    /// The students registered for a term: the emulator's student if registered, and the others.
    static func termStudents(_ t: EmulatorTerm) -> [[String: Any]] {
        (t.registered.contains(Fixtures.osCislo) ? [Fixtures.ownStudentRow()] : []) + (0..<t.otherStudents).map(Fixtures.otherStudent)
    }

    static func grade(_ g: EmulatorGrade) -> [String: Any] {
        ["katedra": g.department, "zkratka": g.subject, "nazev": Fixtures.subjectNames[g.subject] ?? g.subject,
         "rok": "2025", "semestr": "ZS", "zk_typ_hodnoceni": "Známkou", "zk_hodnoceni": g.grade,
         "zk_datum": ["value": Fixtures.stagDate(g.date)], "zk_pokus": "1", "zk_body": NSNull(),
         "zk_ucit_jmeno": "RNDr. Petr Dvořák", "zk_ucit_idno": "4711",
         "zppzk_hodnoceni": "S", "zppzk_datum": ["value": Fixtures.stagDate(g.date)], "zppzk_pokus": "1",
         "stavAbsolvovani": "A"]
    }

    static func json(_ object: Any) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
