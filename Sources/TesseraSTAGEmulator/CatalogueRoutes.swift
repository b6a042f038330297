import Foundation
import Hummingbird

/// A subject's details (`predmety/getPredmetInfo`), a teacher's theses
/// (`kvalifikacniprace/getKvalifikacniPrace`) and ZČU's canteen menu (`/rest/canteen/{B|K}`, which
/// the real university serves at www.zcu.cz): shaped as spec §2.6.5, §2.6.8 and the endpoint table
/// say, in Czech or, with `lang=en`, English.
enum CatalogueRoutes {
    static func install(on router: Router<BasicRequestContext>) {
        router.get("/rest/canteen/{id}") { request, context -> Response in
            let id = context.parameters.get("id") ?? ""
            guard id == "B" || id == "K" else { return Routes.plain(.notFound, "Menza \(id) neexistuje.") }
            let english = request.uri.queryParameters.get("lang") == "en"
            let shift = request.uri.queryParameters.get("daysShift").flatMap(Int.init) ?? 0
            return Routes.json(canteen(id, english: english, shift: shift), .none)
        }
    }

    /// `nil` for any service this file does not answer.
    static func service(_ name: String, _ query: Parameters, _ fault: EmulatorFault) -> Response? {
        let english = query.get("lang") == "en"
        switch name {
        case "predmety/getPredmetInfo":
            guard query.get("katedra") == "KMI", let code = query.get("zkratka"), let name = Fixtures.subjectNames[code] else {
                return Routes.plain(.badRequest, "Předmět \(query.get("katedra") ?? "")/\(query.get("zkratka") ?? "") neexistuje.")
            }
            return Routes.json(subjectInfo(code, name: name, year: query.get("rok") ?? "2025", english: english), fault)
        case "kvalifikacniprace/getKvalifikacniPrace":
            guard query.get("ucitIdno") == String(Fixtures.ucitIdno) else { return Routes.json(["kvalifikacniPrace": [] as [Any]], fault) }
            return Routes.json(["kvalifikacniPrace": theses(english: english)], fault)
        default: return nil
        }
    }

    /// Rows whose subject names (`nazev`) IS/STAG gives in English with `lang=en`.
    static func localized(_ rows: [[String: Any]], _ query: Parameters) -> [[String: Any]] {
        guard query.get("lang") == "en" else { return rows }
        return rows.map { row in
            var row = row
            if let code = (row["predmet"] ?? row["zkratka"]) as? String, let name = englishNames[code] { row["nazev"] = name }
            return row
        }
    }

    static let englishNames = ["PRG": "Programming", "ALG": "Algorithms", "DM": "Discrete Mathematics", "ZPR": "Introduction to Programming",
                               "MA1": "Mathematical Analysis 1", "TV": "Physical Education", "SEM": "Doctoral Seminar", "DB": "Databases"]

    static func subjectInfo(_ code: String, name: String, year: String, english: Bool) -> [String: Any] {
        [
            "katedra": "KMI", "zkratka": code, "rok": year, "nazev": english ? englishNames[code] ?? name : name,
            "nazevDlouhy": english ? (englishNames[code] ?? name) + " (full-time)" : name + " (prezenční)",
            "kreditu": 6, "jednotekPrednasek": 2, "jednotkaPrednasky": "HOD/TYD", "jednotekCviceni": 2, "jednotkaCviceni": "HOD/TYD",
            "jednotekSeminare": 0, "typZkousky": english ? "Exam" : "Zkouška", "formaZkousky": english ? "Written and oral" : "Kombinovaná",
            "maZapocetPredZk": "ANO", "garanti": "'doc. Ing. Jan Garant, Ph.D.'",
            "prednasejici": "'doc. Ing. Jan Garant, Ph.D.', 'RNDr. Petr Dvořák'", "cvicici": "'Ing. Eva Svobodová, Ph.D.', 'RNDr. Petr Dvořák'",
            "seminarici": "", "podminujiciPredmety": code == "PRG" ? "KMI/ZPR" : "",
            "anotace": english ? "Students learn to design, write and test programs." : "Studenti se naučí navrhovat, psát a testovat programy.",
            "pozadavky": english ? "Credit: two programs handed in; exam: written test and an interview."
                : "Zápočet: odevzdání dvou programů; zkouška: písemný test a pohovor.",
            "prehledLatky": english ? "1. Data types 2. Control flow 3. Functions 4. Collections 5. Testing"
                : "1. Datové typy 2. Řízení běhu 3. Funkce 4. Kolekce 5. Testování",
            "literatura": "Kernighan, B., Ritchie, D.: The C Programming Language. Prentice Hall, 1988.",
            "predmetUrl": "https://courseware.zcu.cz/portal/studium/courseware/kmi/\(code.lowercased())",
        ]
    }

    static func theses(english: Bool) -> [[String: Any]] {
        func student(_ number: String, _ first: String, _ last: String, _ login: String) -> [String: Any] {
            ["osCislo": number, "jmeno": first, "prijmeni": last, "titulPred": NSNull(), "titulZa": NSNull(), "stav": "S", "userName": login]
        }
        return [
            ["student": student("A22B0123P", "Jana", "Nováková", "novakovaj"), "adipidno": 90001,
             "temaHlavni": english ? "A mobile client for IS/STAG" : "Mobilní klient pro IS/STAG", "typPrace": english ? "Bachelor's thesis" : "Bakalářská práce",
             "fakulta": "FAV", "fakultaTxt": english ? "Faculty of Applied Sciences" : "Fakulta aplikovaných věd", "katedra": "KMI",
             "vedouciUcitidno": Fixtures.ucitIdno, "vedouciJmeno": "RNDr. Petr Dvořák", "oponentUcitidno": 4712, "oponentJmeno": "Ing. Eva Svobodová, Ph.D.",
             "datumZadani": ["value": "1.10.2025"], "planovaneDatumOdevzdani": ["value": "15.5.2026"], "stavPrace": english ? "Assigned" : "Zadaná",
             "oborKombinaceStudenta": english ? "Computer Science" : "Informatika"],
            ["student": student("A21N0456P", "Karel", "Beneš", "benesk"), "adipidno": 90002,
             "temaHlavni": english ? "Sync engines for offline apps" : "Synchronizace dat v aplikacích bez připojení", "typPrace": english ? "Master's thesis" : "Diplomová práce",
             "fakulta": "FAV", "fakultaTxt": english ? "Faculty of Applied Sciences" : "Fakulta aplikovaných věd", "katedra": "KMI",
             "vedouciUcitidno": 4713, "vedouciJmeno": "doc. Ing. Jan Garant, Ph.D.", "oponentUcitidno": Fixtures.ucitIdno, "oponentJmeno": "RNDr. Petr Dvořák",
             "datumZadani": ["value": "20.10.2025"], "planovaneDatumOdevzdani": ["value": "20.5.2026"], "stavPrace": english ? "Assigned" : "Zadaná",
             "oborKombinaceStudenta": english ? "Software Engineering" : "Softwarové inženýrství"],
        ]
    }

    static func canteen(_ id: String, english: Bool, shift: Int) -> [String: Any] {
        func meal(_ number: Int, _ cs: String, _ en: String, _ allergens: [(Int, String, String)], _ student: Double) -> [String: Any] {
            ["name": english ? en : cs, "number": number,
             "allergens": allergens.map { ["number": $0.0, "name": english ? $0.2 : $0.1, "description": ""] },
             "prices": [["type": "Stu", "price": student], ["type": "Emp", "price": student + 20], ["type": "Ext", "price": student + 45]]]
        }
        // The Bory and Kollárova menus differ; every day has the same (`daysShift` is accepted, as the real one's).
        let soups = [meal(1, "Polévka hovězí s nudlemi", "Beef soup with noodles", [(1, "lepek", "gluten"), (9, "celer", "celery")], 12)]
        let mains = id == "B"
            ? [meal(2, "Svíčková na smetaně, knedlík", "Beef sirloin in cream sauce, dumplings", [(1, "lepek", "gluten"), (3, "vejce", "eggs"), (7, "mléko", "milk")], 62),
               meal(3, "Zeleninové rizoto", "Vegetable risotto", [(7, "mléko", "milk")], 55)]
            : [meal(2, "Kuřecí řízek, bramborová kaše", "Chicken schnitzel, mashed potatoes", [(1, "lepek", "gluten"), (3, "vejce", "eggs"), (7, "mléko", "milk")], 65)]
        return ["soups": soups, "mainCourses": mains]
    }
}
