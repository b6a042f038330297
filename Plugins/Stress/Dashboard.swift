import Foundation
import TesseraSDK

/// The start screen (G5, F17): today's diary prompt, the programme's current step, a library
/// suggestion and the days left until the study's last day.
extension Study {
    struct DashboardView: Encodable, Sendable {
        struct Step: Encodable, Sendable {
            var order: Int?
            var name: String?
            /// `entryQuestionnaires`, `evaluation` (of `evaluationOf`), `week`, `waiting` (until
            /// `opensAt`), `exitQuestionnaires`, `finished` or `ended`.
            var next: String
            var evaluationOf: Int?
            var opensAt: String?
        }
        struct Suggestion: Encodable, Sendable { var id: String; var title: String }
        var diary: Prompt
        var programme: Step
        var library: Suggestion?
        var daysLeft: Int?
        var lastDay: String?
    }

    func dashboard(seed: UInt64?) async throws -> DashboardView {
        let s = try await activeSnapshot()
        let programme = programme(s)
        return DashboardView(diary: try await prompt(seed: seed), programme: step(programme, s), library: suggestion(s),
                             daysLeft: daysLeft(programme, s), lastDay: programme.lastDay)
    }

    private func step(_ programme: Programme, _ s: Snapshot) -> DashboardView.Step {
        let language = s.settings.language
        func name(_ order: Int) -> String { s.content.programs[order].name.text(language) }
        if programme.entryDoneAt == nil { return .init(next: "entryQuestionnaires") }
        if programme.finished { return .init(next: "finished") }
        if let week = programme.openWeek {
            if let owed = programme.evaluationOwed(before: week.order) {
                return .init(order: week.order, name: name(week.order), next: "evaluation", evaluationOf: owed)
            }
            return .init(order: week.order, name: name(week.order), next: "week")
        }
        if let waiting = programme.weeks.first(where: { $0.reason == .waitingUntil }) {
            return .init(order: waiting.order, name: name(waiting.order), next: "waiting", opensAt: waiting.startDate?.iso)
        }
        if programme.weeks[3].state == .completed {
            return programme.exitAvailable ? .init(next: "exitQuestionnaires") : .init(order: 3, name: name(3), next: "evaluation", evaluationOf: 3)
        }
        return .init(next: "ended")
    }

    /// A different section each day, in the library's order: the leaves, where the reading is.
    private func suggestion(_ s: Snapshot) -> DashboardView.Suggestion? {
        let nodes = s.content.library
        let leaves = nodes.filter { node in !nodes.contains { $0.parent == node.id } }.sorted { $0.id < $1.id }
        guard !leaves.isEmpty else { return nil }
        let calendar = calendar(s)
        let dayNumber = calendar.daysBetween("2000-01-01", calendar.day(clock.now())) ?? 0
        let node = leaves[((dayNumber % leaves.count) + leaves.count) % leaves.count]
        return .init(id: node.id, title: node.title.text(s.settings.language))
    }

    // MARK: Feedback (F4)

    /// Keeps the participant's feedback for the research team (it travels with the module's synced
    /// tables; see docs/stress.md for the choice against the thesis's "online only").
    func submitFeedback(text: String) async throws -> JSONValue {
        _ = try await activeSnapshot()
        try Self.checkText(text, field: "text")
        let id = newID(), now = clock.now()
        try await storage.write { $0.put("feedback", id: id, ["text": .text(text), "created_at": .text(now.iso)]) }
        return ["id": .string(id), "receivedAt": .string(now.iso)]
    }
}
