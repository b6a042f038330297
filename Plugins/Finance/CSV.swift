import Foundation
import TesseraSDK

/// CSV export and import, in two layouts (spec §3.2 rule 13 leaves the details open; the choices
/// are in docs/finance.md):
///
/// - `thesis`: `Name;Date;Price` — the thesis's columns, `;`-separated, a header row in the
///   person's language (spec §7.9: `Názov;Dátum;Cena` in Slovak, `Název;Datum;Cena` in Czech; the
///   data cells do not change with it), dates `YYYY-MM-DD`, the price signed (an expense negative,
///   an income positive) with a `.` decimal; import takes the header in any of the three;
/// - `full`: `id;kind;name;amount;currency;category;date;account` — everything, so export then
///   import is lossless.
///
/// Fields holding `;`, `"` or a line break are quoted, `"` doubled (RFC 4180 with `;`). Import is
/// all or nothing: the first bad row is named by line and column and nothing is written. Importing
/// the same `full` file twice changes nothing (rows keep their ids); a `thesis` row identical to a
/// transaction already there (kind, name, date, amount) is skipped, so re-importing an export does
/// not double it.
extension Ledger {
    struct CSVExport: Codable, Sendable { var filename: String; var csv: String; var rows: Int }
    struct CSVImport: Codable, Sendable { var imported: Int; var skipped: Int }

    static let thesisHeader = ["Name", "Date", "Price"]
    /// The thesis layout's header for people, by language.
    static let thesisHeaders = ["en": thesisHeader, "sk": ["Názov", "Dátum", "Cena"], "cs": ["Název", "Datum", "Cena"]]
    static let fullHeader = ["id", "kind", "name", "amount", "currency", "category", "date", "account"]

    func exportCSV(layout: String) async throws -> CSVExport {
        let settings = try await settings(), currency = settings.currency
        let all = try await transactions(ListFilter(limit: Int.max)).reversed()
        var lines: [[String]] = [layout == "full" ? Self.fullHeader : Self.thesisHeaders[settings.language] ?? Self.thesisHeader]
        for t in all {
            lines.append(layout == "full"
                ? [t.id, t.kind, t.name, t.amount, currency, t.category, t.date, t.account]
                : [t.name, t.date, (t.kind == "expense" ? "-" : "") + t.amount])
        }
        let csv = lines.map { $0.map(Self.quoted).joined(separator: ";") }.joined(separator: "\r\n") + "\r\n"
        return CSVExport(filename: "transactions-\(try await dates().day(clock.now())).csv", csv: csv, rows: all.count)
    }

    func importCSV(_ text: String, layout: String) async throws -> CSVImport {
        let rows = try Self.parse(text)
        guard let header = rows.first else { throw PluginError(.invalidInput, "the CSV is empty", field: "$.csv") }
        let expected = layout == "full" ? Self.fullHeader : Self.thesisHeader
        let accepted = layout == "full" ? [Self.fullHeader] : Self.thesisHeaders.keys.sorted().compactMap { Self.thesisHeaders[$0] }
        let found = header.map { $0.trimmingCharacters(in: .whitespaces) }
        guard accepted.contains(found) else {
            throw PluginError(.invalidInput, "line 1: the header must be \(accepted.map { $0.joined(separator: ";") }.joined(separator: " or ")), found \(header.joined(separator: ";"))", field: "$.csv")
        }
        let categories = Set(try await categories()), accounts = Set(try await accounts().map(\.id))
        let existing = Set(try await transactions(ListFilter(limit: Int.max)).map { "\($0.kind)|\($0.name)|\($0.date)|\($0.amount)" })
        var puts: [(String, [String: SQLValue])] = [], skipped = 0
        let now = iso(clock.now())
        for (index, fields) in rows.dropFirst().enumerated() where !(fields.count == 1 && fields[0].isEmpty) {
            let line = index + 2
            func fail(_ column: String, _ why: String, reason: PluginError.Code? = nil) -> PluginError {
                PluginError(.invalidInput, "line \(line), column \(column): \(why); nothing was imported", field: "$.csv", reason: reason)
            }
            guard fields.count == expected.count else { throw fail("-", "expected \(expected.count) fields, found \(fields.count)") }
            let row = Dictionary(uniqueKeysWithValues: zip(expected, fields))
            let (kind, amountText): (String, String)
            if layout == "full" {
                kind = row["kind"]!
                amountText = row["amount"]!
                guard kind == "income" || kind == "expense" else { throw fail("kind", "'\(kind)' is not income or expense") }
            } else {
                let price = row["Price"]!.trimmingCharacters(in: .whitespaces)
                kind = price.hasPrefix("-") ? "expense" : "income"
                amountText = price.hasPrefix("-") || price.hasPrefix("+") ? String(price.dropFirst()) : price
            }
            let amount: Int64
            // The parser's own words (no schema looks inside a file): "amount '12.345': at most two decimals …".
            do { amount = try Money.parse(amountText, field: "$.csv") } catch let error as PluginError { throw fail(layout == "full" ? "amount" : "Price", error.message, reason: error.reason) }
            let name = (row["name"] ?? row["Name"]!).trimmingCharacters(in: .whitespacesAndNewlines)
            guard (1...120).contains(name.count) else { throw fail(layout == "full" ? "name" : "Name", "a name is 1–120 characters") }
            let date = row["date"] ?? row["Date"]!
            guard LocalDates.isDay(date) else { throw fail(layout == "full" ? "date" : "Date", "'\(date)' is not a date YYYY-MM-DD") }
            let category = row["category"] ?? "other", account = row["account"] ?? "cash"
            guard categories.contains(category) else { throw fail("category", "no category '\(category)'") }
            guard accounts.contains(account) else { throw fail("account", "no account '\(account)'") }
            if layout != "full", existing.contains("\(kind)|\(name)|\(date)|\(Money.plain(amount))") { skipped += 1; continue }
            let id = row["id"].flatMap { $0.isEmpty ? nil : $0 } ?? RecordID.timeOrdered(at: clock.now())
            puts.append((id, ["kind": .text(kind), "name": .text(name), "amount_minor": .integer(amount), "category": .text(category),
                              "occurred_on": .text(date), "account": .text(account), "created_at": .text(now)]))
        }
        let currency = try await settings().currency, emits = emitsEvents
        let known = Set(try await storage.query("SELECT id FROM transactions").compactMap { $0["id"].text })
        try await storage.write { batch in
            for (id, values) in puts {
                // Re-importing a `full` file rewrites rows it already made: only new ones are "recorded".
                if known.contains(id) { batch.put("transactions", id: id, values) }
                else { batch.recordTransaction(id, values, currency: currency, source: "csv", emits: emits) }
            }
        }
        try await afterTransactionsChanged(month: try await dates().month(clock.now()))
        return CSVImport(imported: puts.count, skipped: skipped)
    }

    static func quoted(_ field: String) -> String {
        guard field.contains(where: { $0 == ";" || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Rows of fields separated by `delimiter`, quotes honoured; lines end in LF or CRLF.
    static func parse(_ text: String, delimiter: Character = ";") throws -> [[String]] {
        var rows: [[String]] = [], row: [String] = [], field = "", quoted = false, justClosed = false
        var iterator = Array(text).makeIterator()
        var line = 1
        while let c = iterator.next() {
            if quoted {
                if c == "\"" { quoted = false; justClosed = true } else { field.append(c); if c == "\n" || c == "\r\n" { line += 1 } }
                continue
            }
            switch c {
            case "\"":
                if justClosed { field.append("\""); quoted = true; justClosed = false }
                else if field.isEmpty { quoted = true }
                else { throw PluginError(.invalidInput, "line \(line): a quote inside an unquoted field", field: "$.csv") }
            case delimiter: row.append(field); field = ""; justClosed = false
            case "\r": continue
            case "\n", "\r\n": row.append(field); rows.append(row); row = []; field = ""; justClosed = false; line += 1
            default: field.append(c); justClosed = false
            }
        }
        if quoted { throw PluginError(.invalidInput, "line \(line): a quoted field is not closed", field: "$.csv") }
        if !field.isEmpty || !row.isEmpty { row.append(field); rows.append(row) }
        return rows
    }
}
