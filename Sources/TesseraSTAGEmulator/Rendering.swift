import Foundation

/// STAG's JSON shapes for the emulator's terms and grades.
enum Rendering {
    /// The term as `getTerminyProStudenta` shows it to `student` at `now`: registered or not, and
    /// whether they may register (unregister), with the reason if not.
    static func term(_ t: EmulatorTerm, for student: String, at now: Date = .distantPast) -> [String: Any] {
        let isIn = t.registered.contains(student)
        let verdict = t.verdict(for: student, at: now)
        return ["termIdno": t.id, "ucitIdno": 4711,
                "ucitel": ["ucitIdno": 4711, "jmeno": "Petr", "prijmeni": "Dvořák", "titulPred": "RNDr.", "titulZa": NSNull()],
                "predmet": t.subject, "katedra": t.department, "rok": "2025", "semestr": "ZS",
                "datum": ["value": Fixtures.stagDate(t.start)], "obsazeni": String(t.occupied), "limit": String(t.limit),
                "casOd": Fixtures.clockTime(t.start), "casDo": Fixtures.clockTime(t.start.addingTimeInterval(4 * 3600)),
                "budova": t.building, "mistnost": t.room, "kontakt": NSNull(), "poznamka": NSNull(), "opravny": "N",
                "deadlineDatumOdhlaseni": ["value": Fixtures.stagDate(t.unregisterBy, time: true)],
                "deadlineDatumPrihlaseni": ["value": Fixtures.stagDate(t.registerBy, time: true)],
                "zacatekPrihlasovani": t.registerFrom.map { ["value": Fixtures.stagDate($0, time: true)] as Any } ?? NSNull(), "platnost": "A", "typTerminu": "Zkouška", "grteIdno": NSNull(),
                "osCislo": student, "zapsan": isIn, "lzeZapsatOdepsat": verdict.allowed,
                "kodDuvoduProcNelzeZapsatOdepsat": verdict.code, "textDuvoduProcNelzeZapsatOdepsat": verdict.text as Any? ?? NSNull(),
                "popisDuvoduProcNelzeZapsatOdepsat": verdict.text as Any? ?? NSNull()]
    }

    /// A term as the teacher's list shows it: no student's own fields.
    static func teacherTerm(_ t: EmulatorTerm) -> [String: Any] {
        var item = term(t, for: "")
        for key in ["osCislo", "zapsan", "lzeZapsatOdepsat", "kodDuvoduProcNelzeZapsatOdepsat", "textDuvoduProcNelzeZapsatOdepsat",
                    "popisDuvoduProcNelzeZapsatOdepsat"] { item.removeValue(forKey: key) }
        return item
    }

    /// The students registered for a term: the emulator's student if registered, and the others.
    static func termStudents(_ t: EmulatorTerm, accounts: [String: EmulatorAccount]) -> [[String: Any]] {
        let registered = accounts.values.filter { $0.studentNumber.map(t.registered.contains) ?? false }.sorted { $0.userName < $1.userName }
        return registered.map(studentRow) + (0..<t.otherStudents).map(Fixtures.otherStudent)
    }

    /// A person as a row of a list of students.
    static func studentRow(_ a: EmulatorAccount) -> [String: Any] {
        ["osCislo": a.studentNumber ?? "", "jmeno": a.firstName, "prijmeni": a.lastName, "titulPred": a.titleBefore as Any? ?? NSNull(),
         "titulZa": NSNull(), "userName": a.userName, "email": a.email, "rocnik": a.studentInfo["rocnik"] ?? "1", "fakultaSp": "PRF",
         "nazevSp": a.studentInfo["nazevSp"] ?? "Informatika", "stav": "S"]
    }

    static func grade(_ g: EmulatorGrade) -> [String: Any] {
        ["katedra": g.department, "zkratka": g.subject, "nazev": Fixtures.subjectNames[g.subject] ?? g.subject, "os_cislo": g.student,
         "rok": g.year, "semestr": g.semester, "zk_typ_hodnoceni": g.grade == "S" || g.grade == "N" ? "S|N" : "1|2|3|4", "zk_hodnoceni": g.grade,
         "zk_datum": ["value": Fixtures.stagDate(g.date)], "zk_pokus": String(g.attempt), "zk_body": NSNull(),
         "zk_ucit_jmeno": "RNDr. Petr Dvořák", "zk_ucit_idno": "4711",
         "zppzk_hodnoceni": "S", "zppzk_datum": ["value": Fixtures.stagDate(g.date)], "zppzk_pokus": "1",
         "stavAbsolvovani": "A"]
    }

    /// `predmetStudenta` items.
    static func subject(_ s: EmulatorSubject) -> [String: Any] {
        ["katedra": s.department, "zkratka": s.code, "nazev": s.name, "kredity": s.credits, "rok": s.year, "statut": "A", "uznano": "N"]
    }

    static func json(_ object: Any) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
