import Foundation
import TesseraSDK

/// The monthly budget: the most the person means to spend in a month. Only expenses count
/// (spec §3.2 rule 1), expenses entered before the budget count (rule 2), edits count at once
/// (rule 3). At a month boundary, in the person's time zone, the budget resets; with "same budget
/// every month" the same amount applies to the new month (rule 4). The thesis did this lazily when
/// the screen opened; here every budget query and every write does it, and the month keeps its
/// row, so past months' budgets stay known.
extension Ledger {
    struct BudgetInput: Decodable, Sendable {
        var amount: String
        var repeatMonthly: Bool?
        var month: String?
    }

    struct BudgetStatus: Codable, Sendable, Equatable {
        var month: String
        var isSet: Bool
        var amount: String?
        var amountMinor: Int64?
        var spent: String
        var spentMinor: Int64
        var remaining: String?
        var percentUsed: Int64?
        var overspent: Bool
        var repeatMonthly: Bool
        /// The limits per category (CategoryBudgets.swift), each with the month's figures.
        var categories: [CategoryBudgetStatus]

        /// Every member, the unset ones as `null` (spec §7.4: `percentUsed` is null when no budget
        /// is set), rather than left out as the synthesized encoding would.
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(month, forKey: .month)
            try c.encode(isSet, forKey: .isSet)
            try c.encode(amount, forKey: .amount)
            try c.encode(amountMinor, forKey: .amountMinor)
            try c.encode(spent, forKey: .spent)
            try c.encode(spentMinor, forKey: .spentMinor)
            try c.encode(remaining, forKey: .remaining)
            try c.encode(percentUsed, forKey: .percentUsed)
            try c.encode(overspent, forKey: .overspent)
            try c.encode(repeatMonthly, forKey: .repeatMonthly)
            try c.encode(categories, forKey: .categories)
        }
    }

    func setBudget(_ input: BudgetInput) async throws -> BudgetStatus {
        let minor = try Money.parse(input.amount, field: "$.amount")
        let month: String
        if let requested = input.month { month = requested } else { month = try await today().month }
        guard LocalDates.parseMonth(month) != nil else { throw PluginError(.invalidInput, "'\(month)' is not a month YYYY-MM", field: "$.month") }
        try await storage.write { batch in
            batch.put("budgets", id: month, ["amount_minor": .integer(minor), "origin": .text("user")])
            if let repeatMonthly = input.repeatMonthly {
                batch.put("settings", id: "repeatBudget", ["value": .text(repeatMonthly ? "1" : "0")])
                batch.put("settings", id: "repeatAmount", ["value": .text(String(minor))])
            }
        }
        try await afterTransactionsChanged(month: month)
        return try await budgetStatus(month: month)
    }

    /// Today's date and month in the person's time zone.
    func today() async throws -> (day: String, month: String) {
        let dates = try await dates()
        let now = clock.now()
        return (dates.day(now), dates.month(now))
    }

    func clearBudget(month: String?) async throws -> BudgetStatus {
        let current = try await dates().month(clock.now())
        let month = month ?? current
        guard LocalDates.parseMonth(month) != nil else { throw PluginError(.invalidInput, "'\(month)' is not a month YYYY-MM", field: "$.month") }
        try await storage.write { batch in
            batch.delete("budgets", id: month)
            if month == current { batch.put("settings", id: "repeatBudget", ["value": .text("0")]) }
        }
        try await rescheduleReminders()
        return try await budgetStatus(month: month)
    }

    /// The month's budget, what was spent, and what is left; rolls the budget over first.
    func budgetStatus(month requested: String?) async throws -> BudgetStatus {
        let dates = try await dates()
        let current = dates.month(clock.now())
        let month = requested ?? current
        guard let (first, last) = dates.bounds(ofMonth: month) else {
            throw PluginError(.invalidInput, "'\(month)' is not a month YYYY-MM", field: "$.month")
        }
        try await rollOver(to: month, current: current)
        let settings = try await settings()
        let (budget, spent) = try await figures(first: first, last: last, month: month)
        return BudgetStatus(month: month, isSet: budget != nil, amount: budget.map(Money.plain), amountMinor: budget, spent: Money.plain(spent),
                            spentMinor: spent, remaining: budget.map { Money.plain($0 - spent) },
                            percentUsed: budget.flatMap { Money.percentFloor(spent, of: $0) },
                            overspent: budget.map { spent > $0 } ?? false, repeatMonthly: settings.repeatBudget,
                            categories: try await categoryBudgetStatus(first: first, last: last))
    }

    /// The month's budget, if set, and the sum of its expenses, in minor units.
    func figures(first: String, last: String, month: String) async throws -> (budget: Int64?, spent: Int64) {
        let budget = try await storage.query("SELECT amount_minor FROM budgets WHERE id = ?", [.text(month)]).first?["amount_minor"].integer
        let spent = try await storage.query(
            "SELECT COALESCE(SUM(amount_minor), 0) AS spent FROM transactions WHERE kind = 'expense' AND occurred_on BETWEEN ? AND ?",
            [.text(first), .text(last)]).first?["spent"].integer ?? 0
        return (budget, spent)
    }

    /// With "same budget every month" on, the current month (and only it: a past month without a
    /// budget had none) gets the repeated amount the first time it is looked at.
    func rollOver(to month: String, current: String) async throws {
        guard month == current else { return }
        let rows = try await storage.query("SELECT id, value FROM settings WHERE id IN ('repeatBudget', 'repeatAmount')")
        let values = Dictionary(uniqueKeysWithValues: rows.map { ($0["id"].text ?? "", $0["value"].text ?? "") })
        guard values["repeatBudget"] == "1", let amount = values["repeatAmount"].flatMap({ Int64($0) }), amount > 0 else { return }
        guard try await storage.query("SELECT 1 FROM budgets WHERE id = ?", [.text(month)]).isEmpty else { return }
        try await storage.write { $0.put("budgets", id: month, ["amount_minor": .integer(amount), "origin": .text("repeat")]) }
    }

    /// After a change to `month`'s transactions or budget, local or synced from another device:
    /// the over-budget alerts, once per month (only for the current month: an alert about a past
    /// month is noise), and the reminders' schedules.
    func afterTransactionsChanged(month: String) async throws {
        let dates = try await dates()
        let current = dates.month(clock.now())
        if month == current, let (first, last) = dates.bounds(ofMonth: month) {
            try await rollOver(to: month, current: current)
            let (budget, spent) = try await figures(first: first, last: last, month: month)
            if let budget, spent > budget {
                try await alertOverBudget(month: month, category: nil, budget: budget, spent: spent)
            }
            for limit in try await categoryBudgetStatus(first: first, last: last) where limit.overspent {
                try await alertOverBudget(month: month, category: limit.category, budget: limit.amountMinor, spent: limit.spentMinor)
            }
        }
        try await rescheduleReminders()
    }

    /// The first time in `month` that its expenses (or one category's) pass the budget: a
    /// notification now, and the `budget-exceeded` event, with the mark that makes it once — the
    /// mark is synced, so a person's second device does not say it again (unless both passed it
    /// before either synced).
    private func alertOverBudget(month: String, category: String?, budget: Int64, spent: Int64) async throws {
        let mark = "alerted:" + month + (category.map { ":" + $0 } ?? "")
        guard try await storage.query("SELECT 1 FROM settings WHERE id = ?", [.text(mark)]).isEmpty else { return }
        let settings = try await settings()
        let parameters = ["spent": Money.format(spent, currency: settings.currency, language: settings.language),
                          "budget": Money.format(budget, currency: settings.currency, language: settings.language),
                          "month": month, "category": category ?? ""]
        var values: [String: NotificationValue] = ["month": .text(month), "spent": Money.value(spent), "budget": Money.value(budget),
                                                   "currency": .text(settings.currency)]
        if let category { values["category"] = .text(category) }
        // Keyed, so a crash before the mark is written makes the next check schedule it again, not twice.
        try await notifications?.schedule(NotificationRequest(
            key: "over-budget-\(month)" + (category.map { "-" + $0 } ?? ""),
            title: Strings.text(category == nil ? "over.title" : "overCategory.title", settings.language),
            body: Strings.text(category == nil ? "over.body" : "overCategory.body", settings.language, parameters),
            message: NotificationMessage(category == nil ? "notify.overBudget" : "notify.overCategory", values), priority: .normal,
            payload: ["month": .string(month), "category": category.map { .string($0) } ?? .null], schedule: .at(clock.now())))
        let emits = emitsEvents
        try await storage.write { batch in
            batch.put("settings", id: mark, ["value": .text("1")])
            if emits { batch.emit(FinanceEvents.budgetExceeded, FinanceEvents.budgetExceededPayload(month: month, category: category, budget: budget, spent: spent, currency: settings.currency)) }
        }
    }
}
