import Foundation
import TesseraSDK

/// Rules that put imported transactions in a category (as Firefly III's and Actual Budget's rules
/// do): by words of the description (`match`), of the counterparty (`payee`), the direction
/// (`kind`), the account, and an amount range (`minAmount`, `maxAmount`, inclusive). A rule
/// holds when every condition it has holds; the first rule that holds, in the order they were
/// made, wins; `other` if none does. Words match ignoring case and accents; `match` looks in the
/// counterparty too, as the description of a card payment is often the shop's name.
///
/// Rules apply to what comes from the bank (Fio, statements). `category-rule-test` shows which
/// recorded transactions a rule would take before it is saved, and `applyToExisting` moves them.
extension Ledger {
    struct NewRule: Decodable, Sendable {
        var match: String?
        var payee: String?
        var kind: String?
        var account: String?
        var minAmount: String?
        var maxAmount: String?
        var category: String
        /// `category-rule-add` only: also move the recorded transactions the rule holds for.
        var applyToExisting: Bool?
    }

    struct Rule: Codable, Sendable, Equatable {
        var id: String
        var match: String
        var payee: String?
        var kind: String?
        var account: String?
        var minAmount: String?
        var maxAmount: String?
        var category: String
        var minMinor: Int64?
        var maxMinor: Int64?

        /// Whether the rule holds for a movement.
        func holds(for subject: RuleSubject) -> Bool {
            let words = Ledger.folded(subject.name + " " + (subject.counterparty ?? ""))
            if !match.isEmpty, !words.contains(Ledger.folded(match)) { return false }
            if let payee, !Ledger.folded(subject.counterparty ?? "").contains(Ledger.folded(payee)) { return false }
            if let kind, kind != subject.kind { return false }
            if let account, account != subject.account { return false }
            if let minMinor, subject.minor < minMinor { return false }
            if let maxMinor, subject.minor > maxMinor { return false }
            return true
        }
    }

    /// What a rule looks at.
    struct RuleSubject: Sendable {
        var name: String
        var counterparty: String?
        var kind: String
        var minor: Int64
        var account: String
    }

    struct RuleTest: Codable, Sendable {
        /// How many recorded transactions the rule holds for, and the newest 50 of them.
        var count: Int
        var transactions: [Transaction]
        /// `category-rule-add` with `applyToExisting`: how many were moved to the rule's category.
        var applied: Int?
        var rules: [Rule]?
    }

    func addCategoryRule(_ input: NewRule) async throws -> RuleTest {
        let rule = try await validated(input, id: RecordID.timeOrdered(at: clock.now()))
        let count = try await storage.query("SELECT COUNT(*) AS n FROM category_rules").first?["n"].integer ?? 0
        let matching = input.applyToExisting == true ? try await recorded(matching: rule).filter { $0.splits == nil && $0.category != rule.category } : []
        try await storage.write { batch in
            batch.put("category_rules", id: rule.id, ["match": .text(rule.match), "payee": .text(rule.payee ?? ""), "kind": .text(rule.kind ?? ""),
                                                      "account": .text(rule.account ?? ""), "min_minor": rule.minMinor.map { .integer($0) } ?? .null,
                                                      "max_minor": rule.maxMinor.map { .integer($0) } ?? .null, "category": .text(rule.category),
                                                      "position": .integer(count)])
            for transaction in matching { batch.patch("transactions", id: transaction.id, ["category": .text(rule.category)]) }
        }
        if let month = matching.map({ String($0.date.prefix(7)) }).max() { try await afterTransactionsChanged(month: month) }
        let all = try await recorded(matching: rule)
        return RuleTest(count: all.count, transactions: Array(all.prefix(50)), applied: input.applyToExisting == true ? matching.count : nil,
                        rules: try await categoryRules())
    }

    /// Which recorded transactions `input` would hold for; nothing is saved.
    func testCategoryRule(_ input: NewRule) async throws -> RuleTest {
        let all = try await recorded(matching: try await validated(input, id: ""))
        return RuleTest(count: all.count, transactions: Array(all.prefix(50)))
    }

    private func recorded(matching rule: Rule) async throws -> [Transaction] {
        try await transactions(ListFilter(limit: Int.max)).filter {
            rule.holds(for: RuleSubject(name: $0.name, counterparty: $0.counterparty, kind: $0.kind, minor: $0.amountMinor, account: $0.account))
        }
    }

    private func validated(_ input: NewRule, id: String) async throws -> Rule {
        func words(_ text: String?, _ field: String) throws -> String? {
            guard let trimmed = text?.trimmingCharacters(in: .whitespaces), !trimmed.isEmpty else { return nil }
            guard trimmed.count <= 80 else { throw PluginError(.invalidInput, "at most 80 characters", field: field) }
            return trimmed
        }
        let match = try words(input.match, "$.match"), payee = try words(input.payee, "$.payee")
        let minMinor = try input.minAmount.map { try Money.parse($0, field: "$.minAmount") }
        let maxMinor = try input.maxAmount.map { try Money.parse($0, field: "$.maxAmount") }
        if let minMinor, let maxMinor, minMinor > maxMinor {
            throw PluginError(.invalidInput, "the smallest amount is above the largest", field: "$.maxAmount")
        }
        guard match != nil || payee != nil || input.kind != nil || input.account != nil || minMinor != nil || maxMinor != nil else {
            throw PluginError(.invalidInput, "a rule needs at least one condition: words, a counterparty, a direction, an account or an amount", field: "$.match")
        }
        guard try await categories().contains(input.category) else {
            throw PluginError(.notFound, "no category '\(input.category)'", field: "$.category")
        }
        if let account = input.account, try await !accounts().contains(where: { $0.id == account }) {
            throw PluginError(.notFound, "no account '\(account)'", field: "$.account")
        }
        return Rule(id: id, match: match ?? "", payee: payee, kind: input.kind, account: input.account,
                    minAmount: minMinor.map(Money.plain), maxAmount: maxMinor.map(Money.plain), category: input.category,
                    minMinor: minMinor, maxMinor: maxMinor)
    }

    func deleteCategoryRule(_ id: String) async throws -> [Rule] {
        guard try await categoryRules().contains(where: { $0.id == id }) else { throw PluginError(.notFound, "no rule '\(id)'", field: "$.id") }
        try await storage.write { $0.delete("category_rules", id: id) }
        return try await categoryRules()
    }

    func categoryRules() async throws -> [Rule] {
        try await storage.query("SELECT * FROM category_rules ORDER BY position, id").map { row in
            let text = { (column: String) -> String? in row[column].text.flatMap { $0.isEmpty ? nil : $0 } }
            let minMinor = row["min_minor"].integer, maxMinor = row["max_minor"].integer
            return Rule(id: row["id"].text ?? "", match: row["match"].text ?? "", payee: text("payee"), kind: text("kind"), account: text("account"),
                        minAmount: minMinor.map(Money.plain), maxAmount: maxMinor.map(Money.plain), category: row["category"].text ?? "other",
                        minMinor: minMinor, maxMinor: maxMinor)
        }
    }

    static func category(for subject: RuleSubject, rules: [Rule]) -> String {
        rules.first { $0.holds(for: subject) }?.category ?? "other"
    }
}
