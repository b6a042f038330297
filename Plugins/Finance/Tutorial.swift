import TesseraSDK

/// The tutorial (F13, UC14): five pages that introduce the main features, in the person's
/// language (or the one asked for). The thesis names the pages' number, not their text; these
/// follow the spec's §7.4 proposal: overview, budget, goals, transactions and statistics, import
/// and settings. A client shows them with "Next page" and a close button.
extension Ledger {
    struct TutorialInput: Decodable, Sendable { var language: String? }
    struct TutorialPage: Codable, Sendable, Equatable { var page: Int; var title: String; var body: String }
    struct Tutorial: Codable, Sendable, Equatable { var language: String; var pages: [TutorialPage] }

    func tutorial(_ input: TutorialInput) async throws -> Tutorial {
        let language: String
        if let asked = input.language { language = asked } else { language = try await settings().language }
        guard let pages = Self.tutorialPages[language] else {
            throw PluginError(.invalidInput, "language '\(language)' is not one of en, sk, cs", field: "$.language")
        }
        return Tutorial(language: language, pages: pages.enumerated().map { TutorialPage(page: $0.offset + 1, title: $0.element.0, body: $0.element.1) })
    }

    static let tutorialPages: [String: [(String, String)]] = [
        "en": [
            ("Overview", "See this month's income and expenses as a line chart, day by day, with the totals below. Add a transaction, import from your bank or show all transactions from here."),
            ("Budget", "Set the most you mean to spend this month, and keep it every month if you like. Expenses count against it, even those entered before; you see what is left, and you are told when you pass it. Categories can have limits of their own."),
            ("Goals", "Save towards something: give a goal a name, an amount and whether it is monthly or annual, then put money towards it. The bar shows how far you are; you are told when you reach it."),
            ("Transactions and statistics", "Every income and expense, newest first: filter by kind, search by name, edit or delete one. Statistics show a day, a week, a month or a year, by category, and export everything to CSV."),
            ("Import and settings", "Enter the token from Fio internet banking to import the last 90 days, then what is new; turn on the daily import if you like. In settings choose the currency, the language and the reminders."),
        ],
        "sk": [
            ("Prehľad", "Pozri si príjmy a výdavky tohto mesiaca ako čiarový graf po dňoch, so súčtami pod ním. Odtiaľto pridáš transakciu, importuješ z banky alebo zobrazíš všetky transakcie."),
            ("Rozpočet", "Nastav si, koľko najviac chceš tento mesiac minúť, a ak chceš, nechaj ho platiť každý mesiac. Počítajú sa výdavky, aj tie zadané skôr; vidíš, koľko ti zostáva, a dáme ti vedieť, keď ho prekročíš. Kategórie môžu mať vlastné limity."),
            ("Ciele", "Sporiť na niečo: daj cieľu názov, sumu a či je mesačný alebo ročný, potom naň vkladaj peniaze. Pruh ukazuje, kde si; dáme ti vedieť, keď ho dosiahneš."),
            ("Transakcie a štatistiky", "Všetky príjmy a výdavky, najnovšie navrchu: filtruj podľa typu, hľadaj podľa názvu, uprav alebo zmaž. Štatistiky ukážu deň, týždeň, mesiac alebo rok podľa kategórií a všetko vyexportujú do CSV."),
            ("Import a nastavenia", "Zadaj token z internetbankingu Fio a importuješ posledných 90 dní, potom už len nové; ak chceš, zapni denný import. V nastaveniach si vyberieš menu, jazyk a pripomienky."),
        ],
        "cs": [
            ("Přehled", "Podívej se na příjmy a výdaje tohoto měsíce jako čárový graf po dnech, se součty pod ním. Odsud přidáš transakci, importuješ z banky nebo zobrazíš všechny transakce."),
            ("Rozpočet", "Nastav si, kolik nejvýše chceš tento měsíc utratit, a pokud chceš, nech ho platit každý měsíc. Počítají se výdaje, i ty zadané dřív; vidíš, kolik ti zbývá, a dáme ti vědět, když ho překročíš. Kategorie mohou mít vlastní limity."),
            ("Cíle", "Spoř na něco: dej cíli název, částku a zda je měsíční nebo roční, pak na něj vkládej peníze. Pruh ukazuje, kde jsi; dáme ti vědět, až ho dosáhneš."),
            ("Transakce a statistiky", "Všechny příjmy a výdaje, nejnovější nahoře: filtruj podle typu, hledej podle názvu, uprav nebo smaž. Statistiky ukážou den, týden, měsíc nebo rok podle kategorií a vše vyexportují do CSV."),
            ("Import a nastavení", "Zadej token z internetbankovnictví Fio a importuješ posledních 90 dní, pak už jen nové; pokud chceš, zapni denní import. V nastavení si vybereš měnu, jazyk a připomínky."),
        ],
    ]
}
