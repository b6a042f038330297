import Foundation
import TesseraSDK

/// One movement read from a bank's file, before it is checked against the ledger.
struct StatementMovement: Sendable, Equatable {
    /// The file's line (CSV) or the statement's entry number (CAMT.053), for the person to find it.
    var line: Int
    var date: String
    var kind: String
    var minor: Int64
    var name: String?
    var counterparty: String?
    /// The bank's own id of the movement, when the file has one.
    var reference: String?
}

/// A line of a bank's file that could not be read: in words for a program's log, and as its parts
/// for a page to say in the person's language.
struct StatementProblem: Codable, Sendable, Equatable, Error {
    var line: Int
    var reason: String
    /// `day` (not a day in the format), `amount` (not an amount), `oneAmount` (not exactly one of
    /// money out and money in).
    var kind: String
    var column: Int
    var value: String
}

/// An amount as a bank writes it, with a known decimal separator: a sign before or after,
/// the other separator, spaces, no-break spaces or apostrophes grouping the thousands, a currency
/// before or after (`-1 234,50 Kč`, `1,234.50`, `CZK 12.5`). At most two decimals.
enum BankAmount {
    /// The signed amount in minor units, or `nil` when the text is not one.
    static func parse(_ text: String, decimalSeparator: Character) -> Int64? {
        var digits = "", negative = false, decimals: Int? = nil
        let grouping: Set<Character> = [" ", "\u{A0}", "\u{202F}", "'", decimalSeparator == "," ? "." : ","]
        for c in text.trimmingCharacters(in: .whitespaces) {
            if c.isASCII, c.isNumber {
                digits.append(c)
                if let d = decimals { decimals = d + 1 }
            } else if c == decimalSeparator {
                guard decimals == nil else { return nil }
                decimals = 0
            } else if c == "-" || c == "−" || c == "(" {
                negative = true
            } else if c == "+" || c == ")" || grouping.contains(c) || c.isLetter || c == "€" || c == "$" || c == "£" {
                // A currency or a grouping mark says nothing about the value. A grouping mark
                // after the decimal separator is a mistake, though.
                if grouping.contains(c), decimals != nil, c != " " { return nil }
            } else {
                return nil
            }
        }
        guard !digits.isEmpty, digits.count <= 13, (decimals ?? 0) <= 2, var value = Int64(digits) else { return nil }
        for _ in (decimals ?? 0)..<2 { value *= 10 }
        return negative ? -value : value
    }

    /// The decimal separator most of `samples` use: the last `,` or `.` followed by one or two
    /// digits at the end; `,` when nothing tells (the way Czech and Slovak banks write).
    static func guessDecimalSeparator(_ samples: [String]) -> Character {
        var votes: [Character: Int] = [:]
        for sample in samples {
            let trimmed = sample.trimmingCharacters(in: .whitespaces.union(.letters))
            guard let last = trimmed.lastIndex(where: { $0 == "," || $0 == "." }) else { continue }
            let after = trimmed[trimmed.index(after: last)...]
            if (1...2).contains(after.count), after.allSatisfy(\.isNumber) { votes[trimmed[last], default: 0] += 1 }
        }
        return (votes["."] ?? 0) > (votes[","] ?? 0) ? "." : ","
    }
}

/// The day formats a bank's CSV may use, by the name the page and the API show.
enum BankDateFormat: String, Codable, Sendable, CaseIterable {
    case iso = "YYYY-MM-DD"
    case dotted = "DD.MM.YYYY"
    case dayFirst = "DD/MM/YYYY"
    case monthFirst = "MM/DD/YYYY"
    case compact = "YYYYMMDD"

    /// The day as `YYYY-MM-DD`, or `nil` when `text` is not one in this format. Leading zeros
    /// and spaces after the dots are optional (`1. 3. 2026`); a time after the day is ignored.
    func day(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts: [String]
        switch self {
        case .iso: parts = trimmed.prefix(10).split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        case .dotted:
            let pieces = trimmed.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
            guard pieces.count == 3 else { return nil }
            parts = [pieces[0].trimmingCharacters(in: .whitespaces), pieces[1].trimmingCharacters(in: .whitespaces),
                     String(pieces[2].drop { $0 == " " }.prefix { $0.isNumber })]
        case .dayFirst, .monthFirst:
            parts = (trimmed.split(separator: " ").first ?? "").split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        case .compact:
            guard trimmed.count >= 8 else { return nil }
            let s = trimmed.prefix(8)
            parts = [String(s.prefix(4)), String(s.dropFirst(4).prefix(2)), String(s.dropFirst(6))]
        }
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }) else { return nil }
        let numbers = parts.compactMap { Int($0) }
        let (year, month, day): (Int, Int, Int)
        switch self {
        case .iso, .compact: (year, month, day) = (numbers[0], numbers[1], numbers[2])
        case .dotted, .dayFirst: (year, month, day) = (numbers[2], numbers[1], numbers[0])
        case .monthFirst: (year, month, day) = (numbers[2], numbers[0], numbers[1])
        }
        guard (1900...2999).contains(year) else { return nil }
        let result = String(format: "%04d-%02d-%02d", year, month, day)
        return LocalDates.isDay(result) ? result : nil
    }

    /// The format every one of `samples` is a day in, preferring a day-first reading of an
    /// ambiguous `03/04/2026` (how Czech and Slovak banks write).
    static func guess(_ samples: [String]) -> BankDateFormat? {
        let present = samples.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        guard !present.isEmpty else { return nil }
        return [.iso, .dotted, .dayFirst, .monthFirst, .compact].first { format in present.allSatisfy { format.day($0) != nil } }
    }
}

/// Which column holds what, counted from 1 as a person counts them.
struct CSVColumnMapping: Codable, Sendable, Equatable {
    var date: Int
    /// A signed amount; or `debit` and `credit` in two columns (each unsigned, one of them empty).
    var amount: Int?
    var debit: Int?
    var credit: Int?
    var name: Int?
    var counterparty: Int?
    var reference: Int?
}

/// A bank's CSV export: its separator, header, columns and formats, guessed where not given.
struct BankCSV {
    struct Options: Codable, Sendable, Equatable {
        var delimiter: String?
        var decimalSeparator: String?
        var dateFormat: BankDateFormat?
        var hasHeader: Bool?
        var mapping: CSVColumnMapping?
    }

    /// A column as the page shows it to be mapped: its header and a few values.
    struct Column: Codable, Sendable, Equatable {
        var number: Int
        var header: String
        var samples: [String]
    }

    var options: Options
    var columns: [Column]
    var movements: [StatementMovement]
    var problems: [StatementProblem]

    static let delimiters = [";", ",", "\t", "|"]

    init(_ text: String, options given: Options) throws {
        let delimiter = given.delimiter ?? Self.guessDelimiter(text)
        let parsed: [[String]]
        do { parsed = try Ledger.parse(text, delimiter: Character(delimiter)) } catch let error as PluginError {
            throw PluginError(.invalidInput, "the file is not a readable CSV: \(error.message); nothing was imported", field: "$.file", reason: "statement_unreadable")
        }
        let rows = parsed
            .enumerated().map { (line: $0.offset + 1, fields: $0.element) }
            .filter { !($0.fields.allSatisfy { $0.trimmingCharacters(in: .whitespaces).isEmpty }) }
        guard rows.count > 0 else { throw PluginError(.invalidInput, "the file is empty", field: "$.file") }
        let width = rows.map(\.fields.count).max() ?? 0
        let hasHeader = given.hasHeader ?? Self.looksLikeHeader(rows[0].fields)
        let headers = hasHeader ? rows[0].fields : []
        let body = Array(hasHeader ? rows.dropFirst() : rows[...])
        let value = { (row: [String], column: Int) -> String in column >= 1 && column <= row.count ? row[column - 1].trimmingCharacters(in: .whitespaces) : "" }
        columns = (1...max(width, 1)).map { n in
            Column(number: n, header: n <= headers.count ? headers[n - 1].trimmingCharacters(in: .whitespaces) : "",
                   samples: body.prefix(3).map { value($0.fields, n) })
        }
        let mapping = try given.mapping ?? Self.guessMapping(headers: headers, body: body.map(\.fields), width: width)
        for column in [mapping.date, mapping.amount, mapping.debit, mapping.credit, mapping.name, mapping.counterparty, mapping.reference].compactMap({ $0 })
            where !(1...max(width, 1)).contains(column) {
            throw PluginError(.invalidInput, "the file has \(width) columns, so there is no column \(column)", field: "$.options.mapping")
        }
        guard mapping.amount != nil || (mapping.debit != nil && mapping.credit != nil) else {
            throw PluginError(.invalidInput, "say which column holds the amount, or which hold the money out and the money in", field: "$.options.mapping")
        }
        let amountSamples = body.prefix(50).flatMap { row in [mapping.amount, mapping.debit, mapping.credit].compactMap { $0 }.map { value(row.fields, $0) } }
        let separator = given.decimalSeparator.flatMap(\.first) ?? BankAmount.guessDecimalSeparator(amountSamples)
        let dateFormat = given.dateFormat ?? BankDateFormat.guess(body.prefix(50).map { value($0.fields, mapping.date) }) ?? .dotted
        options = Options(delimiter: delimiter, decimalSeparator: String(separator), dateFormat: dateFormat, hasHeader: hasHeader, mapping: mapping)
        movements = []
        problems = []
        for row in body {
            let read = Self.movement(row.fields, line: row.line, mapping: mapping, separator: separator, dateFormat: dateFormat, value: value)
            switch read {
            case .success(let movement): movements.append(movement)
            case .failure(let problem): problems.append(problem)
            }
        }
    }

    private static func movement(_ fields: [String], line: Int, mapping: CSVColumnMapping, separator: Character, dateFormat: BankDateFormat,
                                 value: ([String], Int) -> String) -> Result<StatementMovement, StatementProblem> {
        let dateText = value(fields, mapping.date)
        guard let date = dateFormat.day(dateText) else {
            return .failure(StatementProblem(line: line, reason: "'\(dateText)' in column \(mapping.date) is not a day written \(dateFormat.rawValue)",
                                             kind: "day", column: mapping.date, value: dateText))
        }
        let signed: Int64
        if let column = mapping.amount {
            let text = value(fields, column)
            guard let amount = BankAmount.parse(text, decimalSeparator: separator), amount != 0 else {
                return .failure(StatementProblem(line: line, reason: "'\(text)' in column \(column) is not an amount other than zero with at most two decimals",
                                                 kind: "amount", column: column, value: text))
            }
            signed = amount
        } else {
            let out = value(fields, mapping.debit!), into = value(fields, mapping.credit!)
            let outMinor = out.isEmpty ? 0 : BankAmount.parse(out, decimalSeparator: separator)
            let inMinor = into.isEmpty ? 0 : BankAmount.parse(into, decimalSeparator: separator)
            guard let o = outMinor, let i = inMinor, (o == 0) != (i == 0) else {
                return .failure(StatementProblem(line: line, reason: "columns \(mapping.debit!) and \(mapping.credit!) must hold one amount, money out or money in",
                                                 kind: "oneAmount", column: mapping.debit!, value: out.isEmpty ? into : out))
            }
            signed = i != 0 ? abs(i) : -abs(o)
        }
        func optional(_ column: Int?) -> String? {
            guard let column else { return nil }
            let text = value(fields, column)
            return text.isEmpty ? nil : text
        }
        return .success(StatementMovement(line: line, date: date, kind: signed < 0 ? "expense" : "income", minor: abs(signed),
                                          name: optional(mapping.name), counterparty: optional(mapping.counterparty),
                                          reference: optional(mapping.reference)))
    }

    /// The separator that splits the first lines into the same number (more than one) of fields.
    static func guessDelimiter(_ text: String) -> String {
        let lines = text.split(whereSeparator: \.isNewline).prefix(20).map(String.init)
        func score(_ d: String) -> Int {
            let counts = lines.map { $0.components(separatedBy: d).count }
            guard let first = counts.first, first > 1 else { return 0 }
            return counts.filter { $0 == first }.count * 100 + first
        }
        return delimiters.max { score($0) < score($1) } ?? ";"
    }

    /// A first row with no day and no amount in it is a header.
    static func looksLikeHeader(_ fields: [String]) -> Bool {
        !fields.contains { field in
            BankDateFormat.allCases.contains { $0.day(field) != nil } || BankAmount.parse(field, decimalSeparator: ",") != nil
                && field.contains(where: \.isNumber) && !field.contains(where: \.isLetter)
        }
    }

    /// Header words by role, without accents and in lower case (Czech, Slovak, English, German).
    static let headerWords: [(role: String, words: [String])] = [
        ("reference", ["id pohybu", "id transakce", "id operace", "transaction id", "reference", "referencia", "identifikace"]),
        ("date", ["datum zauctovani", "datum pohybu", "datum transakce", "datum provedeni", "booking date", "datum", "date", "buchungstag"]),
        ("amount", ["objem", "castka", "suma", "amount", "betrag", "obrat"]),
        // Before debit and credit: "Zpráva pro příjemce" holds "prijem" (money in).
        ("counterparty", ["nazev protiuctu", "nazov protiuctu", "protistrana", "counterparty", "payee", "prijemce", "obchodnik", "merchant"]),
        ("name", ["zprava pro prijemce", "sprava pre prijemcu", "poznamka", "popis", "description", "message", "note", "details", "memo", "ucel", "verwendungszweck", "text"]),
        ("debit", ["debet", "debit", "vydaj", "withdrawal", "money out", "paid out"]),
        ("credit", ["kredit", "credit", "prijem", "deposit", "money in", "paid in"]),
    ]

    static func guessMapping(headers: [String], body: [[String]], width: Int) throws -> CSVColumnMapping {
        var found: [String: Int] = [:]
        let folded = headers.map { Ledger.folded($0).trimmingCharacters(in: .whitespaces) }
        for (role, words) in headerWords {
            for word in words {
                if let index = folded.indices.first(where: { folded[$0] == word && !found.values.contains($0 + 1) })
                    ?? folded.indices.first(where: { folded[$0].contains(word) && !found.values.contains($0 + 1) }) {
                    found[role] = index + 1
                    break
                }
            }
        }
        // Without a header (or without known words): the first column of days, the first column
        // of amounts after it, the longest text.
        let sample = Array(body.prefix(20))
        func column(_ n: Int) -> [String] { sample.map { n <= $0.count ? $0[n - 1].trimmingCharacters(in: .whitespaces) : "" } }
        let columns = width >= 1 ? Array(1...width) : []
        if found["date"] == nil { found["date"] = columns.first { BankDateFormat.guess(column($0)) != nil } }
        if found["amount"] == nil && (found["debit"] == nil || found["credit"] == nil) {
            found["amount"] = columns.first { n in
                n != found["date"] && column(n).allSatisfy { BankAmount.parse($0, decimalSeparator: ",") != nil && !$0.contains(where: \.isLetter) }
            }
        }
        if found["name"] == nil {
            let used = Set(found.values)
            found["name"] = columns.filter { !used.contains($0) && column($0).contains { $0.contains(where: \.isLetter) } }
                .max { column($0).map(\.count).reduce(0, +) < column($1).map(\.count).reduce(0, +) }
        }
        guard let date = found["date"] else {
            throw PluginError(.invalidInput, "no column of days was found: say which column holds the day", field: "$.options.mapping")
        }
        return CSVColumnMapping(date: date, amount: found["debit"] != nil && found["credit"] != nil && found["amount"] == nil ? nil : found["amount"],
                                debit: found["amount"] == nil ? found["debit"] : nil, credit: found["amount"] == nil ? found["credit"] : nil,
                                name: found["name"], counterparty: found["counterparty"], reference: found["reference"])
    }
}
