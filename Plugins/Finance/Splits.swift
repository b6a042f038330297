import Foundation
import TesseraSDK

/// Split transactions (as Actual Budget's and Firefly III's): one payment — a supermarket receipt
/// with food and household things — in parts, each with its category and amount, adding up to the
/// transaction's amount. Whatever counts by category (the overview's shares, the category limits)
/// counts the parts of a split transaction instead of the transaction; the totals do not change.
///
/// Parts are rows of `splits` (synced), `<transaction>-part-<n>`; splitting again replaces them,
/// and no parts takes the split away. A split transaction's amount cannot be changed alone: its
/// parts would no longer add up (`split_amount`); change both with `transaction-split`.
extension Ledger {
    struct SplitPart: Codable, Sendable, Equatable {
        var category: String
        var amount: String
        var amountMinor: Int64?
        var note: String?
    }

    struct SplitInput: Decodable, Sendable {
        var id: String
        var parts: [SplitPart]
        /// A new amount for the transaction, for parts that add up to it.
        var amount: String?
    }

    func splitTransaction(_ input: SplitInput) async throws -> Transaction {
        guard let current = try await transaction(input.id) else { throw PluginError(.notFound, "no transaction '\(input.id)'", field: "$.id") }
        let total = try input.amount.map { try Money.parse($0, field: "$.amount") } ?? current.amountMinor
        let categories = Set(try await categories())
        var rows: [[String: SQLValue]] = []
        for (index, part) in input.parts.enumerated() {
            let minor = try Money.parse(part.amount, field: "$.parts[\(index)].amount")
            guard categories.contains(part.category) else {
                throw PluginError(.notFound, "no category '\(part.category)'", field: "$.parts[\(index)].category")
            }
            rows.append(["transaction_id": .text(input.id), "category": .text(part.category), "amount_minor": .integer(minor),
                         "note": .text(String((part.note ?? "").prefix(120))), "position": .integer(Int64(index))])
        }
        guard rows.isEmpty || rows.count >= 2 else {
            throw PluginError(.invalidInput, "a split has at least two parts; send no parts to take the split away", field: "$.parts", reason: "split_parts")
        }
        let sum = rows.reduce(Int64(0)) { $0 + ($1["amount_minor"]?.integer ?? 0) }
        guard rows.isEmpty || sum == total else {
            throw PluginError(.invalidInput, "the parts add up to \(Money.plain(sum)) but the transaction is \(Money.plain(total))", field: "$.parts", reason: "split_sum")
        }
        let old = try await storage.query("SELECT id FROM splits WHERE transaction_id = ?", [.text(input.id)]).compactMap { $0["id"].text }
        try await storage.write { batch in
            for id in old { batch.delete("splits", id: id) }
            for (index, row) in rows.enumerated() { batch.put("splits", id: "\(input.id)-part-\(index + 1)", row) }
            if input.amount != nil { batch.patch("transactions", id: input.id, ["amount_minor": .integer(total)]) }
        }
        try await afterTransactionsChanged(month: String(current.date.prefix(7)))
        return try await transaction(input.id)!
    }

    /// The parts of each of `ids`' split transactions, in order.
    func splits(of ids: [String]) async throws -> [String: [SplitPart]] {
        guard !ids.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
        let rows = try await storage.query("SELECT transaction_id, category, amount_minor, note FROM splits WHERE transaction_id IN (\(marks)) ORDER BY transaction_id, position",
                                           ids.map { .text($0) })
        var parts: [String: [SplitPart]] = [:]
        for row in rows {
            let minor = row["amount_minor"].integer ?? 0, note = row["note"].text ?? ""
            parts[row["transaction_id"].text ?? "", default: []]
                .append(SplitPart(category: row["category"].text ?? "other", amount: Money.plain(minor), amountMinor: minor, note: note.isEmpty ? nil : note))
        }
        return parts
    }

    /// Expenses by category (a split transaction by its parts) from `first` to `last`, per month
    /// (`YYYY-MM`) when `byMonth`, else under `""`.
    func expensesByCategory(first: String, last: String, byMonth: Bool) async throws -> [String: [String: Int64]] {
        let rows = try await storage.query("""
            SELECT substr(t.occurred_on, 1, 7) AS spent_month, COALESCE(s.category, t.category) AS spent_category,
                   SUM(COALESCE(s.amount_minor, t.amount_minor)) AS spent
            FROM transactions t LEFT JOIN splits s ON s.transaction_id = t.id
            WHERE t.kind = 'expense' AND t.occurred_on BETWEEN ? AND ?
            GROUP BY spent_month, spent_category
            """, [.text(first), .text(last)])
        var out: [String: [String: Int64]] = [:]
        for row in rows {
            out[byMonth ? row["spent_month"].text ?? "" : "", default: [:]][row["spent_category"].text ?? "other", default: 0] += row["spent"].integer ?? 0
        }
        return out
    }
}
