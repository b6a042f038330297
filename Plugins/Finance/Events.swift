import TesseraSDK

/// The events the module publishes for other modules to compose with, declared in the manifest's
/// `events.emits` and emitted in the write batch that records what they describe, so an event is
/// published exactly when its record commits (docs/events.md). Only with the `events` grant.
///
/// - `transaction-recorded`: a new transaction, however it came (`source`: `manual`, `fio`,
///   `recurring`, `csv`); an edit or a deletion is not one.
/// - `budget-exceeded`: the month's expenses (or one category's, `category` set) first passed its
///   budget; once per month and budget.
/// - `goal-reached`: a goal's contributions first reached its target.
enum FinanceEvents {
    static let transactionRecorded = "transaction-recorded"
    static let budgetExceeded = "budget-exceeded"
    static let goalReached = "goal-reached"

    /// `{id, kind, amountMinor, amount, currency, category, date, account, source}`.
    static func transactionPayload(id: String, row: [String: SQLValue], currency: String, source: String) -> JSONValue {
        let minor = row["amount_minor"]?.integer ?? 0
        return ["id": .string(id), "kind": .string(row["kind"]?.text ?? ""), "amountMinor": .integer(minor),
                "amount": .string(Money.plain(minor)), "currency": .string(currency), "category": .string(row["category"]?.text ?? ""),
                "date": .string(row["occurred_on"]?.text ?? ""), "account": .string(row["account"]?.text ?? ""), "source": .string(source)]
    }

    /// `{month, category (null for the month's total), amountMinor, spentMinor, currency}`.
    static func budgetExceededPayload(month: String, category: String?, budget: Int64, spent: Int64, currency: String) -> JSONValue {
        ["month": .string(month), "category": category.map { .string($0) } ?? .null, "amountMinor": .integer(budget),
         "spentMinor": .integer(spent), "currency": .string(currency)]
    }
}

extension WriteBatch {
    /// Puts a new transaction and, when `emits`, publishes `transaction-recorded` with it.
    mutating func recordTransaction(_ id: String, _ row: [String: SQLValue], currency: String, source: String, emits: Bool) {
        put("transactions", id: id, row)
        if emits { emit(FinanceEvents.transactionRecorded, FinanceEvents.transactionPayload(id: id, row: row, currency: currency, source: source)) }
    }
}
