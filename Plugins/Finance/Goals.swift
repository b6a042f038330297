import Foundation
import TesseraSDK

/// Savings goals, monthly or annual: a name, a target, contributions (each > 0), progress in
/// percent. Contributions are rows of their own, not a running sum, so two devices' contributions
/// add up when they sync. Monthly goals do not reset by themselves (spec §7.11 q2: the thesis does
/// not say; a person deletes a goal they are done with).
///
/// Progress (spec §7.2): `percent` is the whole percent rounded down and may pass 100; `progress`
/// is what a progress bar shows, two decimals rounded half-up and capped at `"100.00"`. The first
/// time the saved amount reaches the target — by a contribution here, or by contributions synced
/// from another device — the goal is marked completed (`completedAt`), "goal reached" is notified
/// and `goal-reached` published, once.
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
        var progress: String
        var completed: Bool
        var completedAt: String?
    }

    func createGoal(_ input: NewGoal) async throws -> Goal {
        let name = input.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...120).contains(name.count) else { throw PluginError(.invalidInput, "a goal's name is 1–120 characters", field: "$.name") }
        guard input.duration == "monthly" || input.duration == "annual" else {
            throw PluginError(.invalidInput, "a goal is monthly or annual", field: "$.duration")
        }
        let target = try Money.parse(input.target, field: "$.target")
        let id = RecordID.timeOrdered(at: clock.now())
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
            $0.put("contributions", id: RecordID.timeOrdered(at: clock.now()),
                   ["goal_id": .text(input.id), "amount_minor": .integer(amount), "created_at": .text(iso(clock.now()))])
        }
        try await markReachedGoals()
        return try await goal(input.id)!
    }

    /// Marks each goal whose contributions reached its target and that is not marked yet, and
    /// tells the person (notification keyed by the goal, so it is said once even if a crash
    /// comes between it and the mark).
    func markReachedGoals() async throws {
        let reached = try await storage.query("""
            SELECT g.id, g.name, g.target_minor FROM goals g
            WHERE g.completed_at = '' AND g.target_minor > 0
              AND (SELECT COALESCE(SUM(amount_minor), 0) FROM contributions c WHERE c.goal_id = g.id) >= g.target_minor
            """)
        guard !reached.isEmpty else { return }
        let settings = try await settings(), now = iso(clock.now()), emits = emitsEvents
        for row in reached {
            let id = row["id"].text ?? "", name = row["name"].text ?? ""
            let target = Money.format(row["target_minor"].integer ?? 0, currency: settings.currency, language: settings.language)
            try await notifications?.schedule(NotificationRequest(
                key: "goal-reached-\(id)", title: Strings.text("goal.title", settings.language),
                body: Strings.text("goal.body", settings.language, ["name": name, "target": target]),
                message: NotificationMessage("notify.goalReached", ["name": .text(name), "target": Money.value(row["target_minor"].integer ?? 0),
                                                                    "currency": .text(settings.currency)]),
                priority: .normal,
                payload: ["goal": .string(id)], schedule: .at(clock.now())))
            try await storage.write { batch in
                batch.patch("goals", id: id, ["completed_at": .text(now)])
                if emits {
                    batch.emit(FinanceEvents.goalReached, ["id": .string(id), "name": .string(name), "targetMinor": .integer(row["target_minor"].integer ?? 0),
                                                           "currency": .string(settings.currency)])
                }
            }
        }
    }

    func deleteGoal(_ input: GoalDeletion) async throws {
        guard try await goal(input.id) != nil else { throw PluginError(.notFound, "no goal '\(input.id)'", field: "$.id") }
        guard input.confirm == true else {
            throw PluginError.confirmationRequired("deleting a goal deletes its contributions too")
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
            SELECT g.id, g.name, g.duration, g.target_minor, g.completed_at,
                   (SELECT COALESCE(SUM(amount_minor), 0) FROM contributions c WHERE c.goal_id = g.id) AS saved
            FROM goals g WHERE g.id = ?
            """, [.text(id)]).first else { return nil }
        let target = row["target_minor"].integer ?? 0, saved = row["saved"].integer ?? 0
        return Goal(id: id, name: row["name"].text ?? "", duration: row["duration"].text ?? "", target: Money.plain(target),
                    saved: Money.plain(saved), percent: Money.percentFloor(saved, of: target) ?? 0,
                    progress: Money.progress(saved, of: target), completed: saved >= target,
                    completedAt: row["completed_at"].text.flatMap { $0.isEmpty ? nil : $0 })
    }
}
