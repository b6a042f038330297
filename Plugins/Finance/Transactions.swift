import Foundation
import TesseraSDK

/// Transactions: income or expense, a name, an amount, a category, a day, an account.
extension Ledger {
    struct NewTransaction: Decodable, Sendable {
        var kind: String
        var name: String
        var amount: String
        var category: String
        var date: String?
        var account: String?
    }

    struct TransactionChange: Decodable, Sendable {
        var id: String
        var kind: String?
        var name: String?
        var amount: String?
        var category: String?
        var date: String?
        var account: String?

        /// The columns of `transactions` this change gives a value for.
        var changedColumns: Set<String> {
            let given: [(String, Bool)] = [("kind", kind != nil), ("name", name != nil), ("amount_minor", amount != nil),
                                           ("category", category != nil), ("occurred_on", date != nil), ("account", account != nil)]
            return Set(given.filter(\.1).map(\.0))
        }
    }

    struct Transaction: Codable, Sendable, Equatable {
        var id: String
        var kind: String
        var name: String
        var amount: String
        var amountMinor: Int64
        var category: String
        var date: String
        var account: String
        /// Who was paid or paid, when a bank's statement said it.
        var counterparty: String?
        /// The parts of a split transaction (Splits.swift), absent when it is not split.
        var splits: [SplitPart]?
    }

    func addTransaction(_ input: NewTransaction) async throws -> Transaction {
        let id = RecordID.timeOrdered(at: clock.now())
        let date: String
        if let given = input.date { date = given } else { date = try await today().day }
        let row = try await validated(kind: input.kind, name: input.name, amount: input.amount, category: input.category,
                                      date: date, account: input.account ?? "cash")
        let currency = try await settings().currency, emits = emitsEvents
        let stored = row.merging(["created_at": .text(iso(clock.now()))]) { $1 }
        try await storage.write { $0.recordTransaction(id, stored, currency: currency, source: "manual", emits: emits) }
        try await afterTransactionsChanged(month: String(date.prefix(7)))
        return try await transaction(id)!
    }

    func updateTransaction(_ input: TransactionChange) async throws -> Transaction {
        guard let current = try await transaction(input.id) else {
            throw PluginError(.notFound, "no transaction '\(input.id)'", field: "$.id")
        }
        let row = try await validated(kind: input.kind ?? current.kind, name: input.name ?? current.name,
                                      amount: input.amount ?? current.amount, category: input.category ?? current.category,
                                      date: input.date ?? current.date, account: input.account ?? current.account)
        if let amount = input.amount, try Money.parse(amount, field: "$.amount") != current.amountMinor, current.splits != nil {
            throw PluginError(.conflict, "this transaction is split, and its parts would no longer add up: change the amount and the parts together with transaction-split", reason: "split_amount")
        }
        // Only the columns the person changed: the rest keep their sync timestamps, so another
        // device's edit of them is not undone (issue 38; the host holds to it as well, docs/sync.md).
        let given = input.changedColumns
        try await storage.write { $0.patch("transactions", id: input.id, row.filter { given.contains($0.key) }) }
        try await afterTransactionsChanged(month: String((input.date ?? current.date).prefix(7)))
        return try await transaction(input.id)!
    }

    func deleteTransaction(_ id: String) async throws {
        guard let current = try await transaction(id) else { throw PluginError(.notFound, "no transaction '\(id)'", field: "$.id") }
        let parts = try await storage.query("SELECT id FROM splits WHERE transaction_id = ?", [.text(id)]).compactMap { $0["id"].text }
        try await storage.write { batch in
            batch.delete("transactions", id: id)
            for part in parts { batch.delete("splits", id: part) }
        }
        try await afterTransactionsChanged(month: String(current.date.prefix(7)))
    }

    /// Checks a transaction's fields: every error names its field and nothing is written.
    private func validated(kind: String, name: String, amount: String, category: String, date: String, account: String)
        async throws -> [String: SQLValue]
    {
        guard kind == "income" || kind == "expense" else { throw PluginError(.invalidInput, "kind is income or expense", field: "$.kind") }
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...120).contains(trimmed.count) else { throw PluginError(.invalidInput, "a name is 1–120 characters", field: "$.name") }
        let minor = try Money.parse(amount, field: "$.amount")
        guard try await categories().contains(category) else {
            throw PluginError(.notFound, "no category '\(category)': add it with category-add first", field: "$.category")
        }
        guard LocalDates.isDay(date) else { throw PluginError(.invalidInput, "'\(date)' is not a date YYYY-MM-DD", field: "$.date") }
        guard try await accounts().contains(where: { $0.id == account }) else {
            throw PluginError(.notFound, "no account '\(account)'", field: "$.account")
        }
        return ["kind": .text(kind), "name": .text(trimmed), "amount_minor": .integer(minor), "category": .text(category),
                "occurred_on": .text(date), "account": .text(account)]
    }

    func transaction(_ id: String) async throws -> Transaction? {
        guard var found = try await storage.query("SELECT * FROM transactions WHERE id = ?", [.text(id)]).first.map(Self.transaction) else { return nil }
        found.splits = try await splits(of: [id])[id]
        return found
    }

    struct ListFilter: Decodable, Sendable {
        var kind: String?
        var category: String?
        var from: String?
        var to: String?
        var search: String?
        var limit: Int?
    }

    /// Newest first; `search` matches the name without regard to case or diacritics.
    func transactions(_ filter: ListFilter) async throws -> [Transaction] {
        var sql = "SELECT * FROM transactions WHERE 1 = 1"
        var parameters: [SQLValue] = []
        if let kind = filter.kind { sql += " AND kind = ?"; parameters.append(.text(kind)) }
        if let category = filter.category {
            // A split transaction is in each of its parts' categories.
            sql += " AND (category = ? OR id IN (SELECT transaction_id FROM splits WHERE category = ?))"
            parameters += [.text(category), .text(category)]
        }
        if let from = filter.from { sql += " AND occurred_on >= ?"; parameters.append(.text(from)) }
        if let to = filter.to { sql += " AND occurred_on <= ?"; parameters.append(.text(to)) }
        sql += " ORDER BY occurred_on DESC, created_at DESC, id"
        var rows = try await storage.query(sql, parameters).map(Self.transaction)
        if let search = filter.search?.trimmingCharacters(in: .whitespaces), !search.isEmpty {
            let needle = Self.folded(search)
            rows = rows.filter { Self.folded($0.name).contains(needle) }
        }
        rows = Array(rows.prefix(filter.limit ?? 500))
        let parts = try await splits(of: rows.map(\.id))
        for index in rows.indices { rows[index].splits = parts[rows[index].id] }
        return rows
    }

    static func folded(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    static func transaction(_ row: Row) -> Transaction {
        let minor = row["amount_minor"].integer ?? 0
        return Transaction(id: row["id"].text ?? "", kind: row["kind"].text ?? "", name: row["name"].text ?? "",
                           amount: Money.plain(minor), amountMinor: minor, category: row["category"].text ?? "",
                           date: row["occurred_on"].text ?? "", account: row["account"].text ?? "",
                           counterparty: row["counterparty"].text.flatMap { $0.isEmpty ? nil : $0 })
    }
}
