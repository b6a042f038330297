import Foundation
import TesseraSDK

/// Importing a bank's statement file — CSV in whatever columns the bank writes, or CAMT.053 —
/// in three steps a person can follow: `statement-preview` reads the file and shows what it
/// would import (the columns it guessed, each movement with its category, those already there);
/// `statement-import` imports it, in slices when the page shows progress, all slices under one
/// import; `import-undo` takes a whole import back. docs/finance.md, "Bank statements".
///
/// Each movement becomes the transaction `imp-<hash>`: of the account and the bank's reference
/// when the file has one, else of the day, direction, amount, name and how many identical
/// movements came before it in the file. So importing the same file twice, an overlapping
/// statement, or the same file on two devices that sync, never doubles a movement. A movement
/// whose reference is a Fio movement already imported through the API (`fio-<id>`) is already
/// there too. A movement is "likely already there" when another transaction has the same
/// direction and amount within two days of it (one typed by hand, or from another export of the
/// same account): it is shown, and left out unless the person asks for it.
extension Ledger {
    struct StatementInput: Decodable, Sendable {
        /// The file's text (the page decodes Windows-1250 as well as UTF-8).
        var file: String
        var format: String?
        var filename: String?
        var account: String?
        var options: BankCSV.Options?
        /// `statement-import` only: the import to continue, the slice of movements to take, and
        /// whether to take the likely duplicates too.
        var importId: String?
        var start: Int?
        var count: Int?
        var includeLikely: Bool?
    }

    /// A movement as the preview shows it and the import takes it.
    struct StatementLine: Codable, Sendable, Equatable {
        var line: Int
        var date: String
        var kind: String
        var amount: String
        var amountMinor: Int64
        var name: String
        var counterparty: String?
        var reference: String?
        var category: String
        /// The transaction it becomes.
        var id: String
        /// `exact` (this movement is already in the ledger), `likely` (a transaction of another
        /// origin matches it), or absent.
        var duplicate: String?
        /// The name and day of what it likely duplicates.
        var duplicateOf: String?
    }

    struct StatementPreview: Codable, Sendable {
        var format: String
        var account: String?
        var currency: String?
        /// The app's currency; a statement in another one cannot be imported.
        var appCurrency: String
        /// For a CSV: what was used, given or guessed, and every column to map.
        var options: BankCSV.Options?
        var columns: [BankCSV.Column]?
        var total: Int
        var new: Int
        var duplicates: Int
        var likely: Int
        var problems: [StatementProblem]
        /// The first 500 movements.
        var lines: [StatementLine]
    }

    struct StatementImportResult: Codable, Sendable {
        var importId: String
        var imported: Int
        var duplicates: Int
        var likelySkipped: Int
        /// Movements in the file, and the next one to import (`done` when none is left).
        var total: Int
        var next: Int
        var done: Bool
        var problems: [StatementProblem]
    }

    struct ImportRecord: Codable, Sendable, Equatable {
        var id: String
        var source: String
        var filename: String
        var at: String
        var imported: Int
        /// Transactions of the import still in the ledger.
        var remaining: Int
        var undoneAt: String?
    }

    /// The file read, every movement checked against the ledger.
    private struct ReadStatement {
        var format: String
        var account: String?
        var currency: String?
        var options: BankCSV.Options?
        var columns: [BankCSV.Column]?
        var lines: [StatementLine]
        var problems: [StatementProblem]
    }

    func previewStatement(_ input: StatementInput) async throws -> StatementPreview {
        let read = try await readStatement(input, importId: nil)
        return StatementPreview(format: read.format, account: read.account, currency: read.currency, appCurrency: try await settings().currency,
                                options: read.options, columns: read.columns, total: read.lines.count,
                                new: read.lines.filter { $0.duplicate == nil }.count, duplicates: read.lines.filter { $0.duplicate == "exact" }.count,
                                likely: read.lines.filter { $0.duplicate == "likely" }.count, problems: read.problems,
                                lines: Array(read.lines.prefix(500)))
    }

    func importStatement(_ input: StatementInput) async throws -> StatementImportResult {
        let read = try await readStatement(input, importId: input.importId)
        let currency = try await settings().currency
        if let theirs = read.currency, theirs != currency {
            throw PluginError(.conflict, "the statement is in \(theirs) but the app's amounts are in \(currency): change the currency in the settings first, or import a statement of an account in \(currency); nothing was imported", reason: "currency_mismatch")
        }
        let start = max(0, input.start ?? 0), count = input.count ?? read.lines.count
        let slice = read.lines.dropFirst(start).prefix(max(0, count))
        let importId = input.importId ?? RecordID.timeOrdered(at: clock.now())
        let existing = try await storage.query("SELECT imported, created_at FROM imports WHERE id = ?", [.text(importId)]).first
        if input.importId != nil, existing == nil { throw PluginError(.notFound, "no import '\(importId)' to continue", field: "$.importId") }
        let taken = slice.filter { $0.duplicate == nil || ($0.duplicate == "likely" && input.includeLikely == true) }
        let now = iso(clock.now()), emits = emitsEvents, account = input.account ?? "bank"
        let total = Int(existing?["imported"].integer ?? 0) + taken.count
        try await storage.write { batch in
            batch.put("imports", id: importId, ["source": .text(read.format), "filename": .text(input.filename ?? ""), "created_at": .text(existing?["created_at"].text ?? now),
                                                "imported": .integer(Int64(total))])
            for line in taken {
                batch.recordTransaction(line.id, ["kind": .text(line.kind), "name": .text(line.name), "amount_minor": .integer(line.amountMinor),
                                                  "category": .text(line.category), "occurred_on": .text(line.date), "account": .text(account),
                                                  "created_at": .text(now), "import_id": .text(importId), "counterparty": .text(line.counterparty ?? "")],
                                        currency: currency, source: read.format, emits: emits)
            }
        }
        if let month = taken.map({ String($0.date.prefix(7)) }).max() { try await afterTransactionsChanged(month: month) }
        let next = min(read.lines.count, start + slice.count)
        return StatementImportResult(importId: importId, imported: taken.count, duplicates: slice.filter { $0.duplicate == "exact" }.count,
                                     likelySkipped: slice.filter { $0.duplicate == "likely" }.count - taken.filter { $0.duplicate == "likely" }.count,
                                     total: read.lines.count, next: next, done: next >= read.lines.count,
                                     problems: start == 0 ? read.problems : [])
    }

    func imports() async throws -> [ImportRecord] {
        let remaining = Dictionary(uniqueKeysWithValues: try await storage.query(
            "SELECT import_id, COUNT(*) AS n FROM transactions WHERE import_id <> '' GROUP BY import_id")
            .map { ($0["import_id"].text ?? "", Int($0["n"].integer ?? 0)) })
        // An import that found nothing new is not one to list or undo.
        return try await storage.query("SELECT * FROM imports WHERE imported > 0 ORDER BY created_at DESC, id DESC").map { row in
            let id = row["id"].text ?? "", undone = row["undone_at"].text ?? ""
            return ImportRecord(id: id, source: row["source"].text ?? "", filename: row["filename"].text ?? "", at: row["created_at"].text ?? "",
                                imported: Int(row["imported"].integer ?? 0), remaining: remaining[id] ?? 0, undoneAt: undone.isEmpty ? nil : undone)
        }
    }

    /// Deletes every transaction the import added that is still there; edits made since go too.
    func undoImport(_ id: String) async throws -> ImportRecord {
        guard let record = try await imports().first(where: { $0.id == id }) else {
            // (an import of nothing new is not listed, so it is not found either)
            throw PluginError(.notFound, "no import '\(id)'", field: "$.id")
        }
        guard record.undoneAt == nil else { throw PluginError(.conflict, "this import was already undone on \(record.undoneAt!)", reason: "already_undone") }
        let rows = try await storage.query("SELECT id, occurred_on FROM transactions WHERE import_id = ?", [.text(id)])
        let now = iso(clock.now())
        try await storage.write { batch in
            for row in rows { if let rowID = row["id"].text { batch.delete("transactions", id: rowID) } }
            batch.patch("imports", id: id, ["undone_at": .text(now)])
        }
        if let month = rows.compactMap({ $0["occurred_on"].text?.prefix(7) }).max() { try await afterTransactionsChanged(month: String(month)) }
        return try await imports().first { $0.id == id }!
    }

    // MARK: Reading and matching

    private func readStatement(_ input: StatementInput, importId: String?) async throws -> ReadStatement {
        let text = input.file.hasPrefix("\u{FEFF}") ? String(input.file.dropFirst()) : input.file
        let format = input.format ?? (CAMT053.looksLike(text) ? "camt053" : "csv")
        var read: ReadStatement
        var movements: [StatementMovement]
        switch format {
        case "camt053":
            let statement = try CAMT053.read(text)
            movements = statement.movements
            read = ReadStatement(format: format, account: statement.account, currency: statement.currency, lines: [], problems: [])
        default:
            let csv = try BankCSV(text, options: input.options ?? .init())
            movements = csv.movements
            read = ReadStatement(format: "csv", options: csv.options, columns: csv.columns, lines: [], problems: csv.problems)
        }
        let account = input.account ?? "bank"
        guard try await accounts().contains(where: { $0.id == account }) else { throw PluginError(.notFound, "no account '\(account)'", field: "$.account") }
        // The key is of the app's account, not the file's IBAN: a CSV and a CAMT.053 of the same account match.
        read.lines = try await matched(movements, account: account, importId: importId)
        return read
    }

    /// Each movement with its transaction id, category and whether the ledger has it already.
    private func matched(_ movements: [StatementMovement], account: String, importId: String?) async throws -> [StatementLine] {
        let rules = try await categoryRules(), language = try await settings().language
        let ledger = try await storage.query("SELECT id, kind, name, amount_minor, occurred_on, import_id FROM transactions")
        let ids = Set(ledger.compactMap { $0["id"].text })
        // The ledger's transactions (but this import's own), by direction and amount, for
        // "likely" matches; each can stand for one movement only.
        var others: [String: [(id: String, name: String, day: String)]] = [:]
        for row in ledger where importId == nil || row["import_id"].text != importId {
            others["\(row["kind"].text ?? "")|\(row["amount_minor"].integer ?? 0)", default: []]
                .append((row["id"].text ?? "", row["name"].text ?? "", row["occurred_on"].text ?? ""))
        }
        var seen: [String: Int] = [:]
        var claimed = Set<String>()
        return movements.map { m in
            let name = String((m.name ?? m.counterparty ?? Strings.text("movement.\(m.kind)", language)).prefix(120))
            let id: String
            if let reference = m.reference {
                id = "imp-" + Self.fingerprint("ref|\(account)|\(reference)")
            } else {
                let identity = "\(m.date)|\(m.kind)|\(m.minor)|\(Self.folded(name))"
                let occurrence = seen[identity, default: 0]
                seen[identity] = occurrence + 1
                id = "imp-" + Self.fingerprint("\(account)|\(identity)|\(occurrence)")
            }
            var line = StatementLine(line: m.line, date: m.date, kind: m.kind, amount: Money.plain(m.minor), amountMinor: m.minor, name: name,
                                     counterparty: m.counterparty, reference: m.reference,
                                     category: Self.category(for: RuleSubject(name: name, counterparty: m.counterparty, kind: m.kind, minor: m.minor,
                                                                              account: account), rules: rules), id: id)
            if ids.contains(id) || m.reference.map({ ids.contains("fio-\($0)") }) == true {
                line.duplicate = "exact"
            } else if let match = others["\(m.kind)|\(m.minor)"]?.first(where: { !claimed.contains($0.id) && LocalDates.isDay($0.day) && abs(LocalDates.daysBetween($0.day, m.date)) <= 2 }) {
                claimed.insert(match.id)
                line.duplicate = "likely"
                line.duplicateOf = "\(match.name) (\(match.day))"
            }
            return line
        }
    }

    /// 64-bit FNV-1a of `text`, in hex: stable across runs and machines, unlike `hashValue`.
    static func fingerprint(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16).leftPadded(to: 16)
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
