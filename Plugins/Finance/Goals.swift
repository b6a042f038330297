import Foundation
import TesseraSDK

/// Savings goals, monthly or annual: a name, a target, contributions (each > 0), progress in
/// percent. Contributions are rows of their own, not a running sum, so two devices' contributions
/// add up when they sync. Monthly goals do not reset by themselves (spec §7.11 q2: the thesis does
/// not say; a person deletes a goal they are done with). Progress may pass 100 %.
extension Ledger {
    struct NewGoal: Decodable, Sendable { var name: String; var duration: String; var target: String }
    struct Contribution: Decodable, Sendable { var id: String; var amount: String }
    struct GoalDeletion: Decodable, Sendable { var id: String; var confirm: Bool? }

    struct Goal: Codable, Sendable, Equatable {
        var id: String
        var name: String
        var duration: String
        var target: String
        var saved: String
        var percent: Int64
        var completed: Bool
    }

    func createGoal(_ input: NewGoal) async throws -> Goal {
        let name = input.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...120).contains(name.count) else { throw PluginError(.invalidInput, "a goal's name is 1–120 characters", field: "$.name") }
        guard input.duration == "monthly" || input.duration == "annual" else {
            throw PluginError(.invalidInput, "a goal is monthly or annual", field: "$.duration")
        }
        let target = try Money.parse(input.target, field: "$.target")
        let id = UUID().uuidString.lowercased()
        try await storage.write {
            $0.put("goals", id: id, ["name": .text(name), "duration": .text(input.duration), "target_minor": .integer(target),
                                     "created_at": .text(iso(clock.now()))])
        }
        return try await goal(id)!
    }

    func contribute(_ input: Contribution) async throws -> Goal {
        let amount = try Money.parse(input.amount, field: "$.amount")  // > 0, as the thesis requires
        guard try await goal(input.id) != nil else { throw PluginError(.notFound, "no goal '\(input.id)'", field: "$.id") }
        try await storage.write {
            $0.put("contributions", id: UUID().uuidString.lowercased(),
                   ["goal_id": .text(input.id), "amount_minor": .integer(amount), "created_at": .text(iso(clock.now()))])
        }
        return try await goal(input.id)!
    }

    func deleteGoal(_ input: GoalDeletion) async throws {
        guard try await goal(input.id) != nil else { throw PluginError(.notFound, "no goal '\(input.id)'", field: "$.id") }
        guard input.confirm == true else {
            throw PluginError(.conflict, "deleting a goal deletes its contributions too; send confirm: true (code confirmation_required)", field: "$.confirm")
        }
        let contributions = try await storage.query("SELECT id FROM contributions WHERE goal_id = ?", [.text(input.id)])
        try await storage.write { batch in
            for row in contributions { batch.delete("contributions", id: row["id"].text ?? "") }
            batch.delete("goals", id: input.id)
        }
    }

    func goals(duration: String?) async throws -> [Goal] {
        var sql = "SELECT id FROM goals"
        var parameters: [SQLValue] = []
        if let duration { sql += " WHERE duration = ?"; parameters.append(.text(duration)) }
        var out: [Goal] = []
        for row in try await storage.query(sql + " ORDER BY created_at, id", parameters) {
            if let goal = try await goal(row["id"].text ?? "") { out.append(goal) }
        }
        return out
    }

    func goal(_ id: String) async throws -> Goal? {
        guard let row = try await storage.query("""
            SELECT g.id, g.name, g.duration, g.target_minor,
                   (SELECT COALESCE(SUM(amount_minor), 0) FROM contributions c WHERE c.goal_id = g.id) AS saved
            FROM goals g WHERE g.id = ?
            """, [.text(id)]).first else { return nil }
        let target = row["target_minor"].integer ?? 0, saved = row["saved"].integer ?? 0
        return Goal(id: id, name: row["name"].text ?? "", duration: row["duration"].text ?? "", target: Money.plain(target),
                    saved: Money.plain(saved), percent: Money.percentFloor(saved, of: target) ?? 0, completed: saved >= target)
    }
}
