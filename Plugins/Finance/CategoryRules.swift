import Foundation
import TesseraSDK

/// Rules that put imported transactions in a category by their counterparty or description
/// (as Firefly III's rules do): the first rule whose text the name contains, ignoring case and
/// accents, wins; `other` if none does.
extension Ledger {
    struct NewRule: Decodable, Sendable { var match: String; var category: String }
    struct Rule: Codable, Sendable, Equatable { var id: String; var match: String; var category: String }

    func addCategoryRule(_ input: NewRule) async throws -> [Rule] {
        let match = input.match.trimmingCharacters(in: .whitespaces)
        guard (1...80).contains(match.count) else { throw PluginError(.invalidInput, "a rule matches 1–80 characters", field: "$.match") }
        guard try await categories().contains(input.category) else {
            throw PluginError(.notFound, "no category '\(input.category)'", field: "$.category")
        }
        let count = try await storage.query("SELECT COUNT(*) AS n FROM category_rules").first?["n"].integer ?? 0
        try await storage.write {
            $0.put("category_rules", id: RecordID.timeOrdered(at: clock.now()), ["match": .text(match), "category": .text(input.category),
                                                                         "position": .integer(count)])
        }
        return try await categoryRules()
    }

    func deleteCategoryRule(_ id: String) async throws -> [Rule] {
        guard try await categoryRules().contains(where: { $0.id == id }) else { throw PluginError(.notFound, "no rule '\(id)'", field: "$.id") }
        try await storage.write { $0.delete("category_rules", id: id) }
        return try await categoryRules()
    }

    func categoryRules() async throws -> [Rule] {
        try await storage.query("SELECT id, match, category FROM category_rules ORDER BY position, id").map {
            Rule(id: $0["id"].text ?? "", match: $0["match"].text ?? "", category: $0["category"].text ?? "other")
        }
    }

    static func category(for name: String, rules: [Rule]) -> String {
        let folded = Self.folded(name)
        return rules.first { folded.contains(Self.folded($0.match)) }?.category ?? "other"
    }
}
