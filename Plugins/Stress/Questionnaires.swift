import Foundation
import TesseraSDK

/// The entry questionnaires (F15: the entry test and the screening questionnaire, both before
/// week 1) and the exit ones (F16: the entry test again, and the app's evaluation). Each is
/// answered whole and once: a second submission is refused with `record_exists` (the thesis's
/// errorCode 403), so two devices cannot both count.
extension Study {
    static let questionnaireKinds = ["entry", "screen", "exit-retest"]

    struct Answer: Codable, Sendable { var questionId: Int; var value: Int?; var optionId: Int? }
    struct QuestionnaireInput: Decodable, Sendable { var kind: String; var answers: [Answer] }

    struct Questionnaire: Encodable, Sendable {
        struct Item: Encodable, Sendable { var id: Int; var text: String; var options: [Option]? }
        struct Option: Encodable, Sendable { var id: Int; var text: String }
        var kind: String
        var title: String
        var scale: [Int]?
        var items: [Item]
        var submittedAt: String?
    }

    func questionnaire(kind: String) async throws -> Questionnaire {
        let s = try await activeSnapshot()
        let language = s.settings.language, content = s.content
        guard Self.questionnaireKinds.contains(kind) else { throw Self.unknownKind(kind) }
        let submitted = s.submittedAt(kind)?.iso
        if kind == "screen" {
            return Questionnaire(kind: kind, title: content.screen.title.text(language), scale: nil, items: content.screen.questions.map { q in
                .init(id: q.id, text: q.text.text(language), options: q.options.map { .init(id: $0.id, text: $0.text.text(language)) })
            }, submittedAt: submitted)
        }
        return Questionnaire(kind: kind, title: content.entryTest.title.text(language), scale: content.scales.entry,
                             items: content.entryTest.items.map { .init(id: $0.id, text: $0.text.text(language), options: nil) }, submittedAt: submitted)
    }

    func submitQuestionnaire(_ input: QuestionnaireInput) async throws -> ProgrammeOverview {
        let s = try await activeSnapshot()
        guard Self.questionnaireKinds.contains(input.kind) else { throw Self.unknownKind(input.kind) }
        if s.submissions[input.kind] != nil {
            throw PluginError.refused(.recordExists, "the \(input.kind) questionnaire was already submitted; it is answered once")
        }
        if input.kind == "exit-retest" { try requireExit(programme(s)) }
        let values = input.kind == "screen" ? try checkedChoices(input.answers, s.content) : try checkedScale(input.answers, s.content)
        let now = clock.now()
        try await storage.write { batch in
            for (question, value) in values {
                batch.put("answers", id: "\(input.kind)/\(question)", ["form": .text(input.kind), "question_id": .integer(Int64(question)),
                                                                       "value_num": .integer(Int64(value)), "saved_at": .text(now.iso)])
            }
            batch.put("submissions", id: input.kind, ["submitted_at": .text(now.iso)])
        }
        try await reschedule()
        return try await overview()
    }

    /// Every item of the entry test answered once, within its scale.
    private func checkedScale(_ answers: [Answer], _ content: ContentPack) throws -> [(Int, Int)] {
        let ids = content.entryTest.items.map(\.id)
        return try Self.complete(answers, ids: ids) { answer, index in
            guard let value = answer.value, ContentPack.Scales.contains(content.scales.entry, value) else {
                throw PluginError.invalid("an answer is a number from \(content.scales.entry[0]) to \(content.scales.entry[1])",
                                          field: "$.answers[\(index)].value")
            }
            return value
        }
    }

    /// Every screening question answered once with one of its options.
    private func checkedChoices(_ answers: [Answer], _ content: ContentPack) throws -> [(Int, Int)] {
        try Self.complete(answers, ids: content.screen.questions.map(\.id)) { answer, index in
            let options = content.screen.questions.first { $0.id == answer.questionId }?.options.map(\.id) ?? []
            guard let option = answer.optionId, options.contains(option) else {
                throw PluginError.invalid("question \(answer.questionId) is answered with one of its options \(options)", field: "$.answers[\(index)].optionId")
            }
            return option
        }
    }

    /// Checks that `answers` answers exactly the questions `ids`, once each, mapping each to its value.
    static func complete(_ answers: [Answer], ids: [Int], value: (Answer, Int) throws -> Int) throws -> [(Int, Int)] {
        var seen: Set<Int> = []
        var result: [(Int, Int)] = []
        for (index, answer) in answers.enumerated() {
            guard ids.contains(answer.questionId) else {
                throw PluginError.invalid("there is no question \(answer.questionId) here", field: "$.answers[\(index)].questionId")
            }
            guard seen.insert(answer.questionId).inserted else {
                throw PluginError.invalid("question \(answer.questionId) is answered twice", field: "$.answers[\(index)].questionId")
            }
            result.append((answer.questionId, try value(answer, index)))
        }
        let missing = ids.filter { !seen.contains($0) }
        guard missing.isEmpty else {
            throw PluginError.invalid("questions \(missing.map(String.init).joined(separator: ", ")) are not answered", field: "$.answers", .answersMissing)
        }
        return result
    }

    func requireExit(_ programme: Programme) throws {
        guard programme.exitAvailable else {
            let reason = programme.weeks[3].state == .completed ? "rate week 4 first (week-evaluate)" : "week 4 is not completed"
            throw PluginError.refused(.exitNotAvailable, "the exit questionnaires open after week 4 is completed and rated: \(reason)")
        }
    }

    static func unknownKind(_ kind: String) -> PluginError {
        .invalid("'\(kind)' is not a questionnaire: \(questionnaireKinds.joined(separator: ", "))", field: "$.kind")
    }

    // MARK: The app's evaluation (E11)

    struct ExitEvaluation: Codable, Sendable {
        var stressBefore: Int
        var stressAfter: Int
        var useful: Bool
        var comment: String?
        var appRating: Int
        var ratingNote: String?
        var recommendation: String?
    }

    func submitExitEvaluation(_ input: ExitEvaluation) async throws -> ProgrammeOverview {
        let s = try await activeSnapshot()
        if s.submissions["exit-evaluation"] != nil { throw PluginError.refused(.recordExists, "the app evaluation was already submitted") }
        try requireExit(programme(s))
        let scales = s.content.scales
        for (field, value, range) in [("stressBefore", input.stressBefore, scales.stress), ("stressAfter", input.stressAfter, scales.stress),
                                      ("appRating", input.appRating, scales.appRating)] where !ContentPack.Scales.contains(range, value) {
            throw PluginError.invalid("\(field) is from \(range[0]) to \(range[1])", field: "$.\(field)")
        }
        for (field, text) in [("comment", input.comment), ("ratingNote", input.ratingNote), ("recommendation", input.recommendation)] {
            try Self.checkText(text ?? "", field: field, allowEmpty: true)
        }
        let now = clock.now(), data = try JSONValue(encoding: input)
        try await storage.write { batch in
            batch.put("submissions", id: "exit-evaluation", ["submitted_at": .text(now.iso), "data": .text(data.serialized())])
        }
        try await reschedule()
        return try await overview()
    }

    /// Free text: at most 4000 characters, and not empty unless allowed.
    static func checkText(_ text: String, field: String, allowEmpty: Bool = false) throws {
        if !allowEmpty && text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw PluginError.invalid("\(field) must not be empty", field: "$.\(field)")
        }
        guard text.count <= 4000 else { throw PluginError.invalid("\(field) is at most 4000 characters", field: "$.\(field)") }
    }
}
