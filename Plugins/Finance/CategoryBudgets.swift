import Foundation
import TesseraSDK

/// Budgets per category (as Spendee's and Actual Budget's; the thesis has one monthly total, spec
/// §3.1): a standing monthly limit for one category's expenses, which holds every month until it
/// is cleared. The month's total budget (Budget.swift) is apart and unchanged; a category's limit
/// may be set without one. Passing a limit alerts once per month and category, like the total.
///
/// **Rollover** (`rollover: true`): what a month leaves of a limit is added to the next month's,
/// from the month rollover was switched on (`since`), as envelope budgeting does. **Choice:** only
/// what is left carries over; an overspent month starts the next at the plain limit, as Actual
/// Budget does by default (a debt carried on would hide the next month's own spending). A split
/// transaction counts by its parts (Splits.swift).
extension Ledger {
    struct CategoryBudgetInput: Decodable, Sendable { var category: String; var amount: String; var rollover: Bool? }
    struct CategoryInput: Decodable, Sendable { var category: String }
    struct CategoryHistoryInput: Decodable, Sendable { var category: String; var months: Int?; var month: String? }

    struct CategoryBudgetStatus: Codable, Sendable, Equatable {
        var category: String
        var amount: String
        var amountMinor: Int64
        var spent: String
        var spentMinor: Int64
        var remaining: String
        var percentUsed: Int64
        var overspent: Bool
        var rollover: Bool
        /// What the months before left, carried into this one (0 without rollover).
        var carried: String
        var carriedMinor: Int64
        /// The month's limit and what was carried into it: what `remaining` and `overspent` are of.
        var available: String
        var availableMinor: Int64
    }

    /// One month of a category's limit, for the month-by-month view.
    struct CategoryMonth: Codable, Sendable, Equatable {
        var month: String
        var limit: String
        var carried: String
        var available: String
        var spent: String
        var left: String
        var overspent: Bool
    }

    private struct Limit { var category: String; var amount: Int64; var rollover: Bool; var since: String }

    func setCategoryBudget(_ input: CategoryBudgetInput) async throws -> BudgetStatus {
        let minor = try Money.parse(input.amount, field: "$.amount")
        guard try await categories().contains(input.category) else {
            throw PluginError(.notFound, "no category '\(input.category)': add it with category-add first", field: "$.category")
        }
        let existing = try await limits().first { $0.category == input.category }
        let rollover = input.rollover ?? existing?.rollover ?? false
        // Rollover counts from the month it was switched on; a changed amount keeps that month.
        let since = rollover && existing?.rollover == true ? existing!.since : try await today().month
        try await storage.write {
            $0.put("category_budgets", id: input.category, ["amount_minor": .integer(minor), "rollover": .integer(rollover ? 1 : 0), "since": .text(since)])
        }
        try await afterTransactionsChanged(month: try await today().month)
        return try await budgetStatus(month: nil)
    }

    func clearCategoryBudget(_ input: CategoryInput) async throws -> BudgetStatus {
        guard try await !storage.query("SELECT 1 FROM category_budgets WHERE id = ?", [.text(input.category)]).isEmpty else {
            throw PluginError(.notFound, "no budget for the category '\(input.category)'", field: "$.category")
        }
        try await storage.write { $0.delete("category_budgets", id: input.category) }
        return try await budgetStatus(month: nil)
    }

    private func limits() async throws -> [Limit] {
        try await storage.query("SELECT id, amount_minor, rollover, since FROM category_budgets ORDER BY id").map {
            Limit(category: $0["id"].text ?? "", amount: $0["amount_minor"].integer ?? 0, rollover: $0["rollover"].integer == 1, since: $0["since"].text ?? "")
        }
    }

    /// Each category limit with what its category's expenses came to from `first` to `last` (a
    /// month), and what earlier months carried into it.
    func categoryBudgetStatus(first: String, last: String) async throws -> [CategoryBudgetStatus] {
        let month = String(first.prefix(7))
        var out: [CategoryBudgetStatus] = []
        for limit in try await limits() {
            let history = try await months(of: limit, through: month, count: nil)
            let this = history.last ?? (month: month, carried: 0, spent: 0)
            let available = limit.amount + this.carried
            out.append(CategoryBudgetStatus(category: limit.category, amount: Money.plain(limit.amount), amountMinor: limit.amount,
                                            spent: Money.plain(this.spent), spentMinor: this.spent, remaining: Money.plain(available - this.spent),
                                            percentUsed: Money.percentFloor(this.spent, of: available) ?? 0, overspent: this.spent > available,
                                            rollover: limit.rollover, carried: Money.plain(this.carried), carriedMinor: this.carried,
                                            available: Money.plain(available), availableMinor: available))
        }
        return out
    }

    /// A category's limit month by month, the last `months` (6 unless said) up to `month` (this one).
    func categoryHistory(_ input: CategoryHistoryInput) async throws -> [CategoryMonth] {
        guard let limit = try await limits().first(where: { $0.category == input.category }) else {
            throw PluginError(.notFound, "no budget for the category '\(input.category)'", field: "$.category")
        }
        let thisMonth = try await today().month
        let month = input.month ?? thisMonth
        return try await months(of: limit, through: month, count: input.months ?? 6).map { entry in
            let available = limit.amount + entry.carried
            return CategoryMonth(month: entry.month, limit: Money.plain(limit.amount), carried: Money.plain(entry.carried),
                                 available: Money.plain(available), spent: Money.plain(entry.spent), left: Money.plain(available - entry.spent),
                                 overspent: entry.spent > available)
        }
    }

    /// The months of `limit` up to `month` with what was carried into each and spent in it: from
    /// the month rollover began (carrying needs every month since), the last `count` of them, none
    /// before the limit was set (`since`; a limit set before `since` was kept shows them all).
    private func months(of limit: Limit, through month: String, count: Int?) async throws -> [(month: String, carried: Int64, spent: Int64)] {
        let wanted = count ?? 1
        var first = Self.month(month, adding: -(wanted - 1))
        // Carrying needs every month from rollover's first; before the limit was set there was none.
        if !limit.since.isEmpty { first = limit.rollover ? limit.since : max(first, limit.since) }
        if !limit.since.isEmpty, limit.since > month { first = month }
        guard let start = LocalDates.parseMonth(first).map({ LocalDates.text($0.0, $0.1, 1) }),
              let end = LocalDates.parseMonth(month).map({ LocalDates.text($0.0, $0.1, LocalDates.daysIn(year: $0.0, month: $0.1)) }) else {
            throw PluginError(.invalidInput, "'\(month)' is not a month YYYY-MM", field: "$.month")
        }
        let spent = try await expensesByCategory(first: start, last: end, byMonth: true)
        var out: [(month: String, carried: Int64, spent: Int64)] = [], carried: Int64 = 0, current = first
        while current <= month {
            let used = spent[current]?[limit.category] ?? 0
            out.append((current, carried, used))
            let carries = limit.rollover && !limit.since.isEmpty && current >= limit.since
            carried = carries ? max(0, limit.amount + carried - used) : 0
            current = Self.month(current, adding: 1)
        }
        return Array(out.suffix(wanted))
    }

    static func month(_ month: String, adding count: Int) -> String {
        guard let (year, number) = LocalDates.parseMonth(month) else { return month }
        let index = year * 12 + (number - 1) + count
        return String(format: "%04d-%02d", index / 12, index % 12 + 1)
    }
}
