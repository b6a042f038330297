import Foundation
import TesseraSDK

/// The diary (§3.3, F6, F7): stress records on four levels with no neutral one, each answering one
/// question drawn from that level's pool; notes, allowed only after a stress record the same day.
/// Records can be edited but never deleted, notes edited and deleted (conflict C1, resolved as the
/// spec says). "Today" is the participant's day in their time zone.
extension Study {
    struct DiaryEntry: Encodable, Sendable {
        var id: String
        var kind: String
        var level: Int?
        var questionId: Int?
        var question: String?
        var text: String
        var day: String
        var createdAt: String
        var updatedAt: String
    }

    struct Prompt: Encodable, Sendable {
        struct Level: Encodable, Sendable { var level: Int; var label: String; var questionId: Int; var question: String }
        /// `first` when there is no stress record today (the larger panel with word labels),
        /// `next` after one (compact, and notes allowed).
        var panel: String
        var levels: [Level]
        var notesAllowed: Bool
    }

    /// One question per level, drawn from its pool; `seed` makes the draw repeatable (tests, or a
    /// client that wants the same prompt on redisplay).
    func prompt(seed: UInt64?) async throws -> Prompt {
        let s = try await activeSnapshot()
        var generator = SplitMix64(seed: seed ?? UInt64.random(in: .min ... .max))
        let language = s.settings.language
        let levels = s.content.levels.map { level in
            let pool = s.content.diaryQuestions.filter { $0.level == level.level }
            let question = pool[Int(generator.next() % UInt64(pool.count))]
            return Prompt.Level(level: level.level, label: level.label.text(language), questionId: question.id, question: question.text.text(language))
        }
        let recorded = try await hasStressRecord(on: calendar(s).day(clock.now()))
        return Prompt(panel: recorded ? "next" : "first", levels: levels, notesAllowed: recorded)
    }

    func hasStressRecord(on day: String) async throws -> Bool {
        try await !storage.query("SELECT 1 FROM diary WHERE kind = 'stress' AND local_day = ? LIMIT 1", [.text(day)]).isEmpty
    }

    struct StressInput: Decodable, Sendable { var level: Int; var questionId: Int; var text: String }

    func recordStress(_ input: StressInput) async throws -> DiaryEntry {
        let s = try await activeSnapshot()
        guard (1...4).contains(input.level) else { throw PluginError.invalid("the stress level is 1–4 (there is no neutral one)", field: "$.level") }
        guard let question = s.content.diaryQuestions.first(where: { $0.id == input.questionId }), question.level == input.level else {
            throw PluginError.invalid("question \(input.questionId) is not one of level \(input.level)'s questions", field: "$.questionId")
        }
        try Self.checkText(input.text, field: "text")
        let questionText = question.text.text(s.settings.language)
        let entry = try await insert(kind: "stress", level: input.level, questionId: input.questionId, question: questionText, text: input.text, s)
        try await reschedule()  // today's diary reminder is no longer needed
        return entry
    }

    struct NoteInput: Decodable, Sendable { var text: String }

    func addNote(_ input: NoteInput) async throws -> DiaryEntry {
        let s = try await activeSnapshot()
        try Self.checkText(input.text, field: "text")
        let today = calendar(s).day(clock.now())
        guard try await hasStressRecord(on: today) else {
            throw PluginError.refused(.noStressRecordToday, "a note can be added after at least one stress record today (\(today))")
        }
        return try await insert(kind: "note", level: nil, questionId: nil, question: nil, text: input.text, s)
    }

    private func insert(kind: String, level: Int?, questionId: Int?, question: String?, text: String, _ s: Snapshot) async throws -> DiaryEntry {
        let now = clock.now(), id = newID(), day = calendar(s).day(now)
        try await storage.write { batch in
            batch.put("diary", id: id, ["kind": .text(kind), "level": level.map { .integer(Int64($0)) } ?? .null,
                                        "question_id": questionId.map { .integer(Int64($0)) } ?? .null, "question_text": question.map { .text($0) } ?? .null,
                                        "text": .text(text), "local_day": .text(day), "created_at": .text(now.iso), "updated_at": .text(now.iso)])
        }
        return DiaryEntry(id: id, kind: kind, level: level, questionId: questionId, question: question, text: text, day: day,
                          createdAt: now.iso, updatedAt: now.iso)
    }

    struct EditInput: Decodable, Sendable { var id: String; var text: String }

    /// Changes the text of a record or a note; nothing else about an entry changes.
    func editEntry(_ input: EditInput) async throws -> DiaryEntry {
        _ = try await activeSnapshot()
        try Self.checkText(input.text, field: "text")
        guard var entry = try await entry(input.id) else { throw PluginError(.notFound, "there is no diary entry '\(input.id)'", field: "$.id") }
        let now = clock.now()
        try await storage.write { $0.patch("diary", id: input.id, ["text": .text(input.text), "updated_at": .text(now.iso)]) }
        entry.text = input.text
        entry.updatedAt = now.iso
        return entry
    }

    struct DeleteInput: Decodable, Sendable { var id: String; var confirm: Bool? }

    func deleteNote(_ input: DeleteInput) async throws -> JSONValue {
        _ = try await activeSnapshot()
        guard let entry = try await entry(input.id) else { throw PluginError(.notFound, "there is no diary entry '\(input.id)'", field: "$.id") }
        guard entry.kind == "note" else {
            throw PluginError.refused(.notDeletable, "stress records can be edited but not deleted; only notes can be deleted")
        }
        guard input.confirm == true else {
            throw PluginError.invalid("deleting a note cannot be undone; send confirm: true", field: "$.confirm", .confirmationRequired)
        }
        try await storage.write { $0.delete("diary", id: input.id) }
        return ["deleted": .string(input.id)]
    }

    struct ListInput: Decodable, Sendable { var from: String?; var to: String? }
    struct DiaryDay: Encodable, Sendable { var day: String; var entries: [DiaryEntry] }

    /// Entries grouped by day, newest day and entry first (the thesis's history, L1353).
    func diary(_ input: ListInput) async throws -> [DiaryDay] {
        let s = try await activeSnapshot()
        for (field, day) in [("from", input.from), ("to", input.to)] {
            if let day, !calendar(s).isDay(day) { throw PluginError.invalid("\(field) is a date YYYY-MM-DD", field: "$.\(field)") }
        }
        let rows = try await storage.query("""
            SELECT * FROM diary WHERE local_day >= ? AND local_day <= ? ORDER BY local_day DESC, created_at DESC, id DESC
            """, [.text(input.from ?? "0000-00-00"), .text(input.to ?? "9999-99-99")])
        var days: [DiaryDay] = []
        for entry in rows.map(Self.entry) {
            if days.last?.day == entry.day { days[days.count - 1].entries.append(entry) } else { days.append(DiaryDay(day: entry.day, entries: [entry])) }
        }
        return days
    }

    private func entry(_ id: String) async throws -> DiaryEntry? {
        try await storage.query("SELECT * FROM diary WHERE id = ?", [.text(id)]).first.map(Self.entry)
    }

    private static func entry(_ row: Row) -> DiaryEntry {
        DiaryEntry(id: row["id"].text ?? "", kind: row["kind"].text ?? "stress", level: row["level"].integer.map(Int.init),
                   questionId: row["question_id"].integer.map(Int.init), question: row["question_text"].text, text: row["text"].text ?? "",
                   day: row["local_day"].text ?? "", createdAt: row["created_at"].text ?? "", updatedAt: row["updated_at"].text ?? "")
    }
}
