import Foundation
import TesseraSDK

/// The programme list (F8), one week's view (§3.2 step 2: what opening it shows), the rating of
/// the previous week (F14) and the summaries (F13).
extension Study {
    struct ProgrammeOverview: Encodable, Sendable {
        struct Week: Encodable, Sendable {
            var order: Int
            var title: String
            var name: String
            var state: String
            var reason: String?
            var reasonDetail: String?
            var startDate: String?
            var completedAt: String?
            var evaluated: Bool
            var repeatable: Bool
            var hasSummary: Bool
        }
        struct Exit: Encodable, Sendable { var available: Bool; var retest: Bool; var evaluation: Bool }
        var weeks: [Week]
        var entryQuestionnaires: [String: Bool]
        var exit: Exit
        var finished: Bool
        var lastDay: String?
        var daysLeft: Int?
    }

    func overview() async throws -> ProgrammeOverview {
        let s = try await activeSnapshot()
        let programme = programme(s), language = s.settings.language
        let weeks = programme.weeks.map { week in
            let info = s.content.programs[week.order]
            return ProgrammeOverview.Week(order: week.order, title: info.title, name: info.name.text(language), state: week.state.rawValue,
                                          reason: week.reason?.rawValue, reasonDetail: week.reasonDetail, startDate: week.startDate?.iso,
                                          completedAt: week.completedAt?.iso, evaluated: week.evaluated, repeatable: info.repeatable,
                                          hasSummary: info.hasSummary)
        }
        return ProgrammeOverview(weeks: weeks, entryQuestionnaires: ["entry": s.submissions["entry"] != nil, "screen": s.submissions["screen"] != nil],
                                 exit: .init(available: programme.exitAvailable, retest: programme.exitRetestAt != nil,
                                             evaluation: programme.exitEvaluationAt != nil),
                                 finished: programme.finished, lastDay: programme.lastDay, daysLeft: daysLeft(programme, s))
    }

    /// Whole days from today to the study's last day (0 on the day itself, never negative).
    func daysLeft(_ programme: Programme, _ s: Snapshot) -> Int? {
        guard let lastDay = programme.lastDay else { return nil }
        let calendar = calendar(s)
        return calendar.daysBetween(calendar.day(clock.now()), lastDay).map { max(0, $0) }
    }

    // MARK: Opening a week

    /// What opening week `order` shows: the entry questionnaires still owed, the rating of the
    /// previous week still owed, its content (open, or a repeatable one completed), its summary
    /// (completed), or why it is closed.
    func openWeek(_ order: Int) async throws -> JSONValue {
        let s = try await activeSnapshot()
        try Self.checkOrder(order)
        let programme = programme(s), week = programme.weeks[order]
        var view: [String: JSONValue] = ["order": .integer(Int64(order)), "state": .string(week.state.rawValue)]
        if programme.entryDoneAt == nil {
            view["view"] = "needsEntryQuestionnaires"
        } else if week.state == .closed {
            view["view"] = "closed"
            view["reason"] = week.reason.map { .string($0.rawValue) } ?? .null
            view["reasonDetail"] = week.reasonDetail.map { .string($0) } ?? .null
        } else if week.state == .open, let owed = programme.evaluationOwed(before: order) {
            view["view"] = "needsEvaluation"
            view["evaluationOf"] = .integer(Int64(owed))
        } else if week.state == .completed && !s.content.programs[order].repeatable {
            view["view"] = "summary"
            view["summary"] = try await summary(order, s)
        } else {
            view["view"] = "content"
            view["content"] = try await weekContent(order, s)
            if week.state == .completed { view["summary"] = try await summary(order, s) }
        }
        return .object(view)
    }

    private func weekContent(_ order: Int, _ s: Snapshot) async throws -> JSONValue {
        let language = s.settings.language, info = s.content.programs[order]
        var content: [String: JSONValue] = ["name": .string(info.name.text(language)), "intro": .string(info.intro.text(language))]
        switch order {
        case 0: content["questions"] = try await formQuestions("goal", s.content.goalQuestions, language)
        case 1: content.merge(try JSONValue(encoding: relaxationContent(s)).objectValue ?? [:]) { $1 }
        case 2: content["questions"] = try await formQuestions("time-management", s.content.timeQuestions, language)
        default:
            content["scale"] = try JSONValue(encoding: s.content.scales.meaning)
            content["questions"] = try JSONValue(encoding: s.content.meaningQuestions.map {
                ["id": JSONValue.integer(Int64($0.id)), "type": .integer(Int64($0.type)), "text": .string($0.text.text(language))]
            })
        }
        return .object(content)
    }

    // MARK: Rating the previous week (F14, E13)

    struct EvaluationInput: Decodable, Sendable { var order: Int; var feasibility: Int; var difficulty: Int; var note: String? }

    /// Rates week `order`: once, after it is completed, when the next week has opened (for week 4:
    /// before the exit questionnaires).
    func evaluate(_ input: EvaluationInput) async throws -> ProgrammeOverview {
        let s = try await activeSnapshot()
        try Self.checkOrder(input.order)
        let programme = programme(s), week = programme.weeks[input.order]
        guard week.state == .completed else { throw PluginError.refused(.notCompleted, "week \(input.order + 1) is not completed yet") }
        guard !week.evaluated else { throw PluginError.refused(.recordExists, "week \(input.order + 1) was already rated") }
        if input.order < 3, programme.weeks[input.order + 1].state == .closed, let reason = programme.weeks[input.order + 1].reason {
            throw PluginError.refused(reason, "week \(input.order + 1) is rated when week \(input.order + 2) opens"
                                      + (programme.weeks[input.order + 1].reasonDetail.map { " (\($0))" } ?? ""))
        }
        let range = s.content.scales.evaluation
        for (field, value) in [("feasibility", input.feasibility), ("difficulty", input.difficulty)] where !ContentPack.Scales.contains(range, value) {
            throw PluginError.invalid("\(field) is from \(range[0]) to \(range[1])", field: "$.\(field)")
        }
        try Self.checkText(input.note ?? "", field: "note", allowEmpty: true)
        let now = clock.now()
        try await storage.write { batch in
            batch.put("evaluations", id: "week-\(input.order)", ["week": .integer(Int64(input.order)), "feasibility": .integer(Int64(input.feasibility)),
                                                                 "difficulty": .integer(Int64(input.difficulty)), "note": .text(input.note ?? ""),
                                                                 "created_at": .text(now.iso)])
        }
        return try await overview()
    }

    // MARK: Working on a week

    /// The programme, if week `order` is open and may be entered; otherwise the refusal that says why.
    func requireOpen(_ order: Int, _ s: Snapshot) throws -> Programme {
        let programme = programme(s), week = programme.weeks[order]
        switch week.state {
        case .completed: throw PluginError.refused(.weekCompleted, "week \(order + 1) is already completed")
        case .closed:
            let detail = week.reasonDetail.map { week.reason == .previousNotCompleted ? " (complete week \(Int($0)! + 1) first)" : " (\($0))" } ?? ""
            throw PluginError.refused(week.reason ?? .entryQuestionnairesPending, "week \(order + 1) is closed\(detail)")
        case .open:
            if let owed = programme.evaluationOwed(before: order) {
                throw PluginError.refused(.evaluationPending, "rate week \(owed + 1) before entering week \(order + 1) (week-evaluate)")
            }
            return programme
        }
    }

    static func checkOrder(_ order: Int) throws {
        guard (0...3).contains(order) else { throw PluginError.invalid("a week's order is 0–3", field: "$.order") }
    }
}
