import Foundation

/// The texts the module shows, in English, Slovak and Czech (the thesis's app was English and
/// Slovak; Czech is added for the host's Czech users). Keys with `{name}` parameters.
enum Strings {
    static let languages: Set<String> = ["en", "sk", "cs"]

    static let table: [String: [String: String]] = [
        "weekly.title": ["en": "Budget this week", "sk": "Rozpočet tento týždeň", "cs": "Rozpočet tento týden"],
        "weekly.body": ["en": "You have {remaining} left of {budget} for {month}.",
                        "sk": "Na {month} ti zostáva {remaining} z {budget}.",
                        "cs": "Na {month} ti zbývá {remaining} z {budget}."],
        "weekly.noBudget": ["en": "You haven't set a budget for {month}.", "sk": "Na {month} nemáš nastavený rozpočet.",
                            "cs": "Na {month} nemáš nastavený rozpočet."],
        "reminder.title": ["en": "Record your transactions", "sk": "Zapíš si transakcie", "cs": "Zapiš si transakce"],
        "reminder.body": ["en": "Don't forget to record your transactions.", "sk": "Nezabudni si zapísať transakcie.",
                          "cs": "Nezapomeň si zapsat transakce."],
        "over.title": ["en": "Budget exceeded", "sk": "Rozpočet prekročený", "cs": "Rozpočet překročen"],
        "over.body": ["en": "You have spent {spent} of {budget} for {month}.", "sk": "Na {month} si minul(a) {spent} z {budget}.",
                      "cs": "Na {month} jsi utratil(a) {spent} z {budget}."],
        "overCategory.title": ["en": "Category budget exceeded", "sk": "Rozpočet kategórie prekročený", "cs": "Rozpočet kategorie překročen"],
        "overCategory.body": ["en": "You have spent {spent} of {budget} on {category} in {month}.",
                              "sk": "Na {category} si v {month} minul(a) {spent} z {budget}.",
                              "cs": "Na {category} jsi v {month} utratil(a) {spent} z {budget}."],
        "goal.title": ["en": "Goal reached", "sk": "Cieľ splnený", "cs": "Cíl splněn"],
        "goal.body": ["en": "You have saved {target} for {name}.", "sk": "Na {name} si nasporil(a) {target}.",
                      "cs": "Na {name} jsi naspořil(a) {target}."],
        // The name of a bank movement whose statement says nothing of it.
        "movement.expense": ["en": "Bank payment", "sk": "Platba z účtu", "cs": "Platba z účtu"],
        "movement.income": ["en": "Bank income", "sk": "Príjem na účet", "cs": "Příjem na účet"],
        "import.failed.title": ["en": "Bank import failed", "sk": "Import z banky zlyhal", "cs": "Import z banky selhal"],
        "token.title": ["en": "Your Fio token expires soon", "sk": "Tvoj token Fio čoskoro vyprší", "cs": "Tvůj token Fio brzy vyprší"],
        "token.body": ["en": "Fio tokens last at most 180 days: create a new one in internet banking (Settings → API) and enter it here.",
                       "sk": "Tokeny Fio platia najviac 180 dní: vytvor si nový v internetbankingu (Nastavenia → API) a zadaj ho sem.",
                       "cs": "Tokeny Fio platí nejvýše 180 dní: vytvoř si nový v internetbankovnictví (Nastavení → API) a zadej ho sem."],
    ]

    /// The text for `key` in `language` (English if missing), with `{name}` parameters filled in.
    static func text(_ key: String, _ language: String, _ parameters: [String: String] = [:]) -> String {
        var text = table[key]?[language] ?? table[key]?["en"] ?? key
        for (name, value) in parameters { text = text.replacingOccurrences(of: "{\(name)}", with: value) }
        return text
    }
}
