import Foundation
import TesseraSDK

/// Budgets per category (as Spendee's; the thesis has one monthly total, spec §3.1): a standing
/// monthly limit for one category's expenses, which holds every month until it is cleared. The
/// month's total budget (Budget.swift) is apart and unchanged; a category's limit may be set
/// without one. Passing a limit alerts once per month and category, like the total.
extension Ledger {
    struct CategoryBudgetInput: Decodable, Sendable { var category: String; var amount: String }
    struct CategoryInput: Decodable, Sendable { var category: String }

    struct CategoryBudgetStatus: Codable, Sendable, Equatable {
        var category: String
        var amount: String
        var amountMinor: Int64
        var spent: String
        var spentMinor: Int64
        var remaining: String
        var percentUsed: Int64
        var overspent: Bool
    }

    func setCategoryBudget(_ input: CategoryBudgetInput) async throws -> BudgetStatus {
        let minor = try Money.parse(input.amount, field: "$.amount")
        guard try await categories().contains(input.category) else {
            throw PluginError(.notFound, "no category '\(input.category)': add it with category-add first", field: "$.category")
        }
        try await storage.write { $0.put("category_budgets", id: input.category, ["amount_minor": .integer(minor)]) }
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

    /// Each category limit with what its category's expenses came to from `first` to `last`.
    func categoryBudgetStatus(first: String, last: String) async throws -> [CategoryBudgetStatus] {
        try await storage.query("""
            SELECT b.id AS category, b.amount_minor AS amount,
                   (SELECT COALESCE(SUM(t.amount_minor), 0) FROM transactions t
                    WHERE t.kind = 'expense' AND t.category = b.id AND t.occurred_on BETWEEN ? AND ?) AS spent
            FROM category_budgets b ORDER BY b.id
            """, [.text(first), .text(last)]).map { row in
            let amount = row["amount"].integer ?? 0, spent = row["spent"].integer ?? 0
            return CategoryBudgetStatus(category: row["category"].text ?? "", amount: Money.plain(amount), amountMinor: amount,
                                        spent: Money.plain(spent), spentMinor: spent, remaining: Money.plain(amount - spent),
                                        percentUsed: Money.percentFloor(spent, of: amount) ?? 0, overspent: spent > amount)
        }
    }
}
