import Foundation

/// Every word, sentence, date and number the export's PDF and e-mail show a person, in the language
/// the export is asked for (`export`'s `language`: Czech, Slovak or English, English when absent).
///
/// The diary's readers are Czech and Slovak parents, and the PDF is often handed to a Czech or
/// Slovak paediatrician, so its labels are the ones a paediatric record uses ("Hmotnost", "Obvod
/// hlavy", "Očkování") and its dates and numbers are written as those readers write them: "2. 3.
/// 2026" and "3,45 kg". Everything is formatted by hand from the stored texts (`YYYY-MM-DD`,
/// `YYYY-MM-DDTHH:MM`, `YYYY-MM`) rather than through `DateFormatter`/`NumberFormatter`, so the
/// result is the same on every machine whatever ICU data or locale it has (and tests can assert it).
/// The CSV and JSON exports do not use this: they are machine formats with English keys and ISO dates.
struct ExportWords: Sendable {
    /// The export's languages, as the manifest's `enum` names them.
    enum Language: String, CaseIterable, Sendable {
        case cs, sk, en
    }

    /// The language every member answers in.
    let language: Language

    /// Words in `language`.
    init(_ language: Language = .en) {
        self.language = language
    }

    /// The words for `export`'s `language` input: English when it is absent, a refusal naming
    /// `field` when it is not one of cs, sk, en (the manifest's schema refuses it first; this
    /// guards a call that skipped it).
    init(code: String?, field: String = "language") throws {
        let checked = try Validate.oneOf(code ?? Language.en.rawValue, Language.allCases.map(\.rawValue), field: field)
        self.init(Language(rawValue: checked) ?? .en)
    }

    /// One of three translations: the one for `language`.
    private func pick(_ cs: String, _ sk: String, _ en: String) -> String {
        switch language {
        case .cs: cs
        case .sk: sk
        case .en: en
        }
    }

    // MARK: the document

    /// The PDF's title (its Info dictionary) and the e-mail's subject: "Ema: deník miminka".
    func documentTitle(childName: String) -> String {
        "\(childName): " + pick("deník miminka", "denník bábätka", "baby diary")
    }

    /// The PDF's author (its Info dictionary): the app that wrote it.
    var author: String { pick("Tessera – deník miminka", "Tessera – denník bábätka", "Tessera baby diary") }

    // MARK: the profile page

    /// The label before the child's birth date.
    var born: String { pick("Datum narození", "Dátum narodenia", "Born") }

    /// The label before the child's sex.
    var sex: String { pick("Pohlaví", "Pohlavie", "Sex") }

    /// The child's sex as stored (`girl`, `boy`) in words; anything else as it is.
    func sexValue(_ value: String) -> String {
        switch value {
        case "girl": pick("dívka", "dievča", "girl")
        case "boy": pick("chlapec", "chlapec", "boy")
        default: value
        }
    }

    /// The label of a measured height (a baby's length lying down, a child's height standing).
    var height: String { pick("Výška", "Výška", "Height") }

    /// The label of a weight.
    var weight: String { pick("Hmotnost", "Hmotnosť", "Weight") }

    /// The label of a head circumference.
    var headCircumference: String { pick("Obvod hlavy", "Obvod hlavy", "Head circumference") }

    /// A measurement kind's label, capitalised as it starts a line ("Hmotnost").
    func measurement(_ kind: MeasurementKind) -> String {
        switch kind {
        case .height: height
        case .weight: weight
        case .headCircumference: headCircumference
        }
    }

    /// A measurement kind's name inside a sentence or a table cell ("hmotnost").
    func measurementInText(_ kind: MeasurementKind) -> String {
        Self.lowercasingFirst(measurement(kind))
    }

    /// The label of the blood group.
    var bloodGroup: String { pick("Krevní skupina", "Krvná skupina", "Blood group") }

    /// The label of the health insurer.
    var insurer: String { pick("Pojišťovna", "Poisťovňa", "Insurer") }

    /// The label of one allergy on the health card.
    var allergy: String { pick("Alergie", "Alergia", "Allergy") }

    /// The label of one disease the child has had (the health card's "diseases").
    var pastDisease: String { pick("Prodělaná nemoc", "Prekonaná choroba", "Past disease") }

    /// The label of one vaccination given.
    var vaccination: String { pick("Očkování", "Očkovanie", "Vaccination") }

    /// An allergy's severity as stored (`mild`, `moderate`, `severe`) in words; anything else as it is.
    func severity(_ value: String) -> String {
        switch value {
        case "mild": pick("lehká", "ľahká", "mild")
        case "moderate": pick("středně těžká", "stredne ťažká", "moderate")
        case "severe": pick("těžká", "ťažká", "severe")
        default: value
        }
    }

    /// A doctor's office hours, as a doctor's contact names them.
    var officeHours: String { pick("Ordinační hodiny", "Ordinačné hodiny", "Office hours") }

    // MARK: the tables

    /// The heading of the tables' date column.
    var dateColumn: String { pick("Datum", "Dátum", "Date") }

    /// The heading of the tables' kind column.
    var kindColumn: String { pick("Druh", "Druh", "Kind") }

    /// The heading of the tables' value-or-name column.
    var valueColumn: String { pick("Hodnota / název", "Hodnota / názov", "Value / name") }

    /// The heading of the tables' note column.
    var noteColumn: String { pick("Poznámka", "Poznámka", "Note") }

    /// An export section's name (`exportSections`), as a table's heading and the e-mail's list of
    /// what was exported say it; an unknown one as it is.
    func section(_ name: String) -> String {
        switch name {
        case "profile": pick("profil", "profil", "profile")
        case "healthCard": pick("zdravotní karta", "zdravotná karta", "health card")
        case "measurements": pick("měření", "merania", "measurements")
        case "milestones": pick("milníky", "míľniky", "milestones")
        case "posts": pick("příspěvky", "príspevky", "posts")
        case "healthProblems": pick("nemoci a úrazy", "choroby a úrazy", "health problems")
        case "contacts": pick("kontakty", "kontakty", "contacts")
        default: name
        }
    }

    /// A table's heading: the child's name, the section and how many rows it has ("Ema: měření (4)").
    func sectionHeading(childName: String, section: String, count: Int) -> String {
        "\(childName): \(self.section(section)) (\(count))"
    }

    /// A record's kind in a table's kind column: a measurement's, a preset milestone's, an illness
    /// or an injury in words; a record without a kind by its type (a post); anything else as stored.
    func recordKind(type: String, kind: String?) -> String {
        if let kind, !kind.isEmpty {
            if let measured = MeasurementKind(rawValue: kind) { return measurementInText(measured) }
            switch kind {
            case "firstSmile": return pick("první úsměv", "prvý úsmev", "first smile")
            case "firstTooth": return pick("první zoubek", "prvý zúbok", "first tooth")
            case "firstStep": return pick("první krůček", "prvý krôčik", "first step")
            case "firstWord": return pick("první slovo", "prvé slovo", "first word")
            case "custom": return pick("milník", "míľnik", "milestone")
            case "illness": return pick("nemoc", "choroba", "illness")
            case "injury": return pick("úraz", "úraz", "injury")
            default: return kind
            }
        }
        switch type {
        case RecordType.post.rawValue: return pick("příspěvek", "príspevok", "post")
        case RecordType.milestone.rawValue: return pick("milník", "míľnik", "milestone")
        case RecordType.healthProblem.rawValue: return pick("nemoc nebo úraz", "choroba alebo úraz", "illness or injury")
        case RecordType.measurement.rawValue: return pick("měření", "meranie", "measurement")
        default: return type
        }
    }

    // MARK: the charts

    /// A growth chart's title: "Ema: hmotnost ve srovnání s percentily WHO (3, 15, 50, 85, 97)".
    func growthChartTitle(childName: String, indicator: GrowthIndicator) -> String {
        let what = indicatorInText(indicator)
        return "\(childName): " + pick("\(what) ve srovnání s percentily WHO", "\(what) v porovnaní s percentilmi WHO",
                                       "\(what) against the WHO percentiles") + " (3, 15, 50, 85, 97)"
    }

    /// What an indicator's chart shows, inside a sentence: the measured kind for the three by age
    /// ("hmotnost"), the two that combine a weight and a length by their own names.
    func indicatorInText(_ indicator: GrowthIndicator) -> String {
        switch indicator {
        case .weightForAge: measurementInText(.weight)
        case .lengthHeightForAge: pick("délka/výška", "dĺžka/výška", "length/height")
        case .headCircumferenceForAge: measurementInText(.headCircumference)
        case .weightForLength, .weightForHeight:
            pick("hmotnost k délce/výšce", "hmotnosť k dĺžke/výške", "weight for length/height")
        case .bmiForAge: pick("BMI podle věku", "BMI podľa veku", "BMI for age")
        }
    }

    /// A growth chart's x axis: the child's age in months.
    var ageInMonths: String { pick("Věk (měsíce)", "Vek (mesiace)", "Age (months)") }

    /// The x axis of weight-for-length/height: the length as the standard takes it.
    var lengthAxis: String { pick("Délka/výška (cm)", "Dĺžka/výška (cm)", "Length/height (cm)") }

    /// A growth chart's y axis: what it shows and its unit ("Hmotnost (kg)"; a height is a baby's
    /// length lying down and a child's height standing, as the WHO table is).
    func growthAxis(_ indicator: GrowthIndicator) -> String {
        switch indicator {
        case .weightForAge, .weightForLength, .weightForHeight: "\(measurement(.weight)) (kg)"
        case .lengthHeightForAge: pick("Délka/výška", "Dĺžka/výška", "Length/height") + " (cm)"
        case .headCircumferenceForAge: "\(measurement(.headCircumference)) (cm)"
        case .bmiForAge: "BMI (kg/m²)"
        }
    }

    /// A temperature chart's title: the illness's name and its days ("Angína: teploty (1. 3. 2026 –
    /// 5. 3. 2026)"); `start` and `end` as stored.
    func temperaturesTitle(problem: String, start: String, end: String?) -> String {
        let span = date(start) + (end.map { pick(" – ", " – ", " to ") + date($0) } ?? "")
        return "\(problem): " + pick("teploty", "teploty", "temperatures") + " (\(span))"
    }

    /// A fever class's name, as the temperature chart writes it beside its threshold line (the
    /// Czech paediatric classes `Fever` holds: "zvýšená teplota", "horečka", …).
    func fever(_ fever: Fever) -> String {
        switch fever {
        case .hypothermia: pick("podchlazení", "podchladenie", "hypothermia")
        case .normal: pick("normální teplota", "normálna teplota", "normal")
        case .raised: pick("zvýšená teplota", "zvýšená teplota", "raised")
        case .fever: pick("horečka", "horúčka", "fever")
        case .high: pick("vysoká horečka", "vysoká horúčka", "high fever")
        case .veryHigh: pick("velmi vysoká horečka", "veľmi vysoká horúčka", "very high")
        }
    }

    /// A threshold line's label: its temperature and the class it starts ("38 °C horečka").
    func feverThreshold(celsius: Double) -> String {
        "\(number(celsius)) °C \(fever(Fever.classify(celsius)))"
    }

    // MARK: the e-mail

    /// The e-mail's subject: the document's title.
    func mailSubject(childName: String) -> String {
        documentTitle(childName: childName)
    }

    /// The e-mail's text: whose diary, born when, exported when, which sections, and the attachment.
    /// `birthDate` and `exportedAt` as stored (`YYYY-MM-DD`, a local `YYYY-MM-DDTHH:MM`).
    func mailText(childName: String, birthDate: String, exportedAt: String, sections: [String], fileType: String, fileName: String) -> String {
        let born = date(birthDate), when = date(exportedAt), what = sections.map { section($0) }.joined(separator: ", ")
        switch language {
        case .cs:
            return """
                Deník miminka – \(childName) (datum narození \(born)), export ze dne \(when): \(what).

                V příloze je soubor \(fileType) (\(fileName)).
                """
        case .sk:
            return """
                Denník bábätka – \(childName) (dátum narodenia \(born)), export zo dňa \(when): \(what).

                V prílohe je súbor \(fileType) (\(fileName)).
                """
        case .en:
            return """
                The baby diary of \(childName) (born \(born)), exported \(when): \(what).

                The \(fileType) is attached (\(fileName)).
                """
        }
    }

    // MARK: dates and numbers

    /// The month names, in the nominative case (as a month stands alone: "květen 2024").
    private var monthNames: [String] {
        switch language {
        case .cs: ["leden", "únor", "březen", "duben", "květen", "červen", "červenec", "srpen", "září", "říjen", "listopad", "prosinec"]
        case .sk: ["január", "február", "marec", "apríl", "máj", "jún", "júl", "august", "september", "október", "november", "december"]
        case .en: ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
        }
    }

    /// English month names shortened, for the temperature chart's crowded axis.
    private static let shortEnglishMonths = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// A stored date's parts: a day `YYYY-MM-DD`, optionally with a time `THH:MM` (seconds, a
    /// fraction and a zone after it are ignored: the time is shown as stored), or a month `YYYY-MM`.
    private static func parts(_ text: String) -> (year: Int, month: Int, day: Int?, time: String?)? {
        if let m = text.wholeMatch(of: /(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?/),
           let year = Int(m.1), let month = Int(m.2), let day = Int(m.3), (1...12).contains(month), (1...31).contains(day) {
            let time = m.4.flatMap { hour in m.5.map { "\(hour):\($0)" } }
            return (year, month, day, time)
        }
        if let m = text.wholeMatch(of: /(\d{4})-(\d{2})/), let year = Int(m.1), let month = Int(m.2), (1...12).contains(month) {
            return (year, month, nil, nil)
        }
        return nil
    }

    /// A stored date as the person reads it: cs and sk "2. 3. 2026" (day. month. year, spaced), en
    /// "2 March 2026"; a moment adds its time as HH:mm ("2. 3. 2026 08:00"); a month is its name and
    /// year ("březen 2026", "March 2026"). Anything else (an empty or free text) is left as it is.
    func date(_ text: String) -> String {
        guard let p = Self.parts(text) else { return text }
        guard let day = p.day else { return "\(monthNames[p.month - 1]) \(p.year)" }
        let dayText = switch language {
        case .cs, .sk: "\(day). \(p.month). \(p.year)"
        case .en: "\(day) \(monthNames[p.month - 1]) \(p.year)"
        }
        return p.time.map { "\(dayText) \($0)" } ?? dayText
    }

    /// A stored date without its year, for the temperature chart's axis where the title gives the
    /// year: "1. 3. 19:30" (cs, sk), "1 Mar 19:30" (en).
    func shortDate(_ text: String) -> String {
        guard let p = Self.parts(text), let day = p.day else { return date(text) }
        let dayText = switch language {
        case .cs, .sk: "\(day). \(p.month)."
        case .en: "\(day) \(Self.shortEnglishMonths[p.month - 1])"
        }
        return p.time.map { "\(dayText) \($0)" } ?? dayText
    }

    /// The decimal separator: a comma in Czech and Slovak, a point in English.
    var decimalSeparator: String { language == .en ? "." : "," }

    /// A number with at most `decimals` decimals, trailing zeros dropped, the language's decimal
    /// separator and no grouping (a measurement or a temperature): "3,45" (cs, sk), "3.45" (en).
    func number(_ value: Double, decimals: Int = 3) -> String {
        guard value.isFinite else { return "–" }
        let places = min(max(decimals, 0), 6)
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        let magnitude = (abs(value) * Double(scale)).rounded()
        guard magnitude < 9e15 else { return String(format: "%.0f", value) }
        let scaled = Int64(magnitude)
        var fraction = places == 0 ? "" : String(scaled % scale)
        if places > 0 { fraction = String(repeating: "0", count: max(0, places - fraction.count)) + fraction }
        while fraction.hasSuffix("0") { fraction.removeLast() }
        let sign = value < 0 && scaled != 0 ? "-" : ""
        return sign + String(scaled / scale) + (fraction.isEmpty ? "" : decimalSeparator + fraction)
    }

    /// A number and its unit: "3,45 kg" (cs, sk), "3.45 kg" (en); no unit, the number alone.
    func quantity(_ value: Double, unit: String) -> String {
        unit.isEmpty ? number(value) : "\(number(value)) \(unit)"
    }

    /// `text` with its first letter in lowercase ("Obvod hlavy" → "obvod hlavy").
    private static func lowercasingFirst(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.lowercased() + text.dropFirst()
    }
}
