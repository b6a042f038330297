import Foundation
import TesseraSDK

/// The three weeks that ask questions: week 1's goal (F9) and week 3's time management (F11),
/// answered one question at a time with drafts saved as they are typed, and week 4's searching
/// for meaning (F12), answered in one go with its scores computed here. Each is completed once.
extension Study {
    static let formOfWeek = [0: "goal", 2: "time-management"]

    struct DraftInput: Decodable, Sendable { var questionId: Int; var text: String }
    struct CompleteInput: Decodable, Sendable { var answers: [DraftInput]? }

    struct Completion: Encodable, Sendable {
        var order: Int
        var completedAt: String
        /// Week 1: the goal, shown back to the participant (the thesis's alert).
        var goal: String?
        var nextSteps: String
        /// When the next week opens (absent after week 4: the exit questionnaires are next).
        var nextOpensAt: String?
        /// The next week's name in the person's language, and whether it is open already (a week
        /// completed late opens the next one at once): what the page says instead of a fixed
        /// "in six days" (the content's `nextSteps` names no time for that reason).
        var nextWeek: String?
        var nextOpensNow: Bool?
        /// Week 2: the session's own seconds.
        var seconds: Int?
        /// Week 2: whether this session completed the week (only the first does; a later one is
        /// practice, and `completedAt` stays the week's own completion).
        var completesWeek: Bool?
    }

    func formQuestions(_ form: String, _ questions: [ContentPack.FormQuestion], _ language: String) async throws -> JSONValue {
        let drafts = try await drafts(form)
        return .array(questions.map { q in
            ["id": .integer(Int64(q.id)), "text": .string(q.text.text(language)), "multiline": .bool(q.multiline),
             "isGoal": .bool(q.isGoal == true), "draft": drafts[q.id].map { .string($0) } ?? .null]
        })
    }

    private func drafts(_ form: String) async throws -> [Int: String] {
        var drafts: [Int: String] = [:]
        for row in try await storage.query("SELECT question_id, value_text FROM answers WHERE form = ?", [.text(form)]) {
            if let id = row["question_id"].integer, let text = row["value_text"].text { drafts[Int(id)] = text }
        }
        return drafts
    }

    private func questions(_ order: Int, _ content: ContentPack) -> [ContentPack.FormQuestion] {
        order == 0 ? content.goalQuestions : content.timeQuestions
    }

    /// Saves the answer to one question of week 1 or 3 while the week is open (the thesis saves
    /// drafts at once, L1339).
    func saveDraft(order: Int, _ input: DraftInput) async throws -> JSONValue {
        let s = try await activeSnapshot()
        _ = try requireOpen(order, s)
        guard questions(order, s.content).contains(where: { $0.id == input.questionId }) else {
            throw PluginError.invalid("week \(order + 1) has no question \(input.questionId)", field: "$.questionId")
        }
        try Self.checkText(input.text, field: "text", allowEmpty: true)
        try await writeDrafts(order, [input])
        return ["saved": true, "questionId": .integer(Int64(input.questionId))]
    }

    private func writeDrafts(_ order: Int, _ answers: [DraftInput]) async throws {
        let form = Self.formOfWeek[order]!, now = clock.now()
        try await storage.write { batch in
            for answer in answers {
                batch.put("answers", id: "\(form)/\(answer.questionId)", ["form": .text(form), "question_id": .integer(Int64(answer.questionId)),
                                                                         "value_text": .text(answer.text), "saved_at": .text(now.iso)])
            }
        }
    }

    /// Completes week 1 or 3: every question needs an answer (those in `input` are saved first,
    /// in the same batch as the completion).
    func completeForm(order: Int, _ input: CompleteInput) async throws -> Completion {
        let s = try await activeSnapshot()
        _ = try requireOpen(order, s)
        let questions = questions(order, s.content)
        var answers = try await drafts(Self.formOfWeek[order]!)
        for (index, answer) in (input.answers ?? []).enumerated() {
            guard questions.contains(where: { $0.id == answer.questionId }) else {
                throw PluginError.invalid("week \(order + 1) has no question \(answer.questionId)", field: "$.answers[\(index)].questionId")
            }
            try Self.checkText(answer.text, field: "answers[\(index)].text", allowEmpty: true)
            answers[answer.questionId] = answer.text
        }
        let missing = questions.filter { (answers[$0.id] ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }.map(\.id)
        guard missing.isEmpty else {
            throw PluginError.invalid("questions \(missing.map(String.init).joined(separator: ", ")) are not answered yet", field: "$.answers", .answersMissing)
        }
        let now = clock.now(), form = Self.formOfWeek[order]!
        try await storage.write { batch in
            for answer in input.answers ?? [] {
                batch.put("answers", id: "\(form)/\(answer.questionId)", ["form": .text(form), "question_id": .integer(Int64(answer.questionId)),
                                                                         "value_text": .text(answer.text), "saved_at": .text(now.iso)])
            }
            batch.put("submissions", id: "week-\(order)", ["submitted_at": .text(now.iso)])
        }
        let goal = order == 0 ? questions.first { $0.isGoal == true }.flatMap { answers[$0.id] } : nil
        return try await completion(order, at: now, goal: goal)
    }

    /// What completing week `order` answers, and the reminders brought up to date.
    func completion(_ order: Int, at: Date, goal: String? = nil, seconds: Int? = nil, completesWeek: Bool? = nil) async throws -> Completion {
        try await reschedule()
        let s = try await snapshot()
        let programme = programme(s)
        let language = s.settings.language
        let opens = order < 3 ? programme.weeks[order + 1].startDate : nil
        return Completion(order: order, completedAt: at.iso, goal: goal, nextSteps: s.content.programs[order].nextSteps.text(language),
                          nextOpensAt: opens?.iso, nextWeek: order < 3 ? s.content.programs[order + 1].name.text(language) : nil,
                          nextOpensNow: opens.map { $0 <= clock.now() }, seconds: seconds, completesWeek: completesWeek)
    }

    // MARK: Week 4

    struct MeaningInput: Decodable, Sendable {
        struct Result: Decodable, Sendable { var questionId: Int; var answer: Int }
        var stressEvent: String
        var positives: String
        var results: [Result]
    }

    /// Completes week 4: the stress event, its positives, and every scale item answered; the scores
    /// are the sums of the answers of type 1 (presence of meaning) and type 2 (searching), as A5's
    /// `scoreOfPresent` and `scoreOfSearching`.
    func completeMeaning(_ input: MeaningInput) async throws -> Completion {
        let s = try await activeSnapshot()
        _ = try requireOpen(3, s)
        try Self.checkText(input.stressEvent, field: "stressEvent")
        try Self.checkText(input.positives, field: "positives")
        let range = s.content.scales.meaning
        let answers = try Self.complete(input.results.map { Answer(questionId: $0.questionId, value: $0.answer) },
                                        ids: s.content.meaningQuestions.map(\.id)) { answer, index in
            guard let value = answer.value, ContentPack.Scales.contains(range, value) else {
                throw PluginError.invalid("an answer is from \(range[0]) to \(range[1])", field: "$.results[\(index)].answer")
            }
            return value
        }
        let types = Dictionary(uniqueKeysWithValues: s.content.meaningQuestions.map { ($0.id, $0.type) })
        let results: [JSONValue] = answers.map { ["questionId": .integer(Int64($0.0)), "type": .integer(Int64(types[$0.0]!)), "answer": .integer(Int64($0.1))] }
        let present = answers.filter { types[$0.0] == 1 }.reduce(0) { $0 + $1.1 }
        let searching = answers.filter { types[$0.0] == 2 }.reduce(0) { $0 + $1.1 }
        let data: JSONValue = ["stressEvent": .string(input.stressEvent), "positives": .string(input.positives),
                               "scoreOfPresent": .integer(Int64(present)), "scoreOfSearching": .integer(Int64(searching)), "results": .array(results)]
        let now = clock.now()
        try await storage.write { batch in
            for (question, value) in answers {
                batch.put("answers", id: "meaning/\(question)", ["form": "meaning", "question_id": .integer(Int64(question)),
                                                                 "value_num": .integer(Int64(value)), "saved_at": .text(now.iso)])
            }
            batch.put("submissions", id: "week-3", ["submitted_at": .text(now.iso), "data": .text(data.serialized())])
        }
        return try await completion(3, at: now)
    }

    // MARK: Summaries (F13)

    func summary(order: Int) async throws -> JSONValue {
        let s = try await activeSnapshot()
        try Self.checkOrder(order)
        guard s.submissions["week-\(order)"] != nil else { throw PluginError.refused(.notCompleted, "week \(order + 1) is not completed yet") }
        return try await summary(order, s)
    }

    func summary(_ order: Int, _ s: Snapshot) async throws -> JSONValue {
        guard let submission = s.submissions["week-\(order)"] else { return .null }
        var summary: [String: JSONValue] = ["order": .integer(Int64(order)), "completedAt": .string(submission.at.iso)]
        let language = s.settings.language
        switch order {
        case 1:
            summary.merge(try JSONValue(encoding: await relaxationTotals()).objectValue ?? [:]) { $1 }
        case 3:
            summary.merge(submission.data.objectValue ?? [:]) { $1 }
        default:
            let drafts = try await drafts(Self.formOfWeek[order]!), questions = questions(order, s.content)
            summary["answers"] = .array(questions.map { ["questionId": .integer(Int64($0.id)), "question": .string($0.text.text(language)),
                                                         "answer": .string(drafts[$0.id] ?? "")] })
            if order == 0, let goal = questions.first(where: { $0.isGoal == true }) { summary["goal"] = .string(drafts[goal.id] ?? "") }
        }
        return .object(summary)
    }
}
