import Foundation
import TesseraSDK

/// The person's own notes (spec §5.1 component 2 and §5.4): a title, text, optionally a subject
/// (`KMI/PRG`) and a day, from which the days remaining are counted. Kept across logout, unlike
/// everything read from IS/STAG, and each belongs to one IS/STAG person (the university and login
/// name it was written under): another person logging in on the same host never sees it, and
/// nobody sees notes while logged out.
struct Notes: Sendable {
    let store: Store

    struct Input: Decodable, Sendable { let id: String?; let subject: String?; let title: String?; let text: String?; let day: String? }

    /// Whose notes: the logged-in person's university and login name, or `not_logged_in`.
    func owner() async throws -> (base: String, userName: String) {
        try await store.adoptForSync()
        guard let user = try await store.setting("userName"), let base = try await store.setting("baseURL") else {
            throw STAGFailure.notLoggedIn.pluginError
        }
        return (base, user)
    }

    func list(subject: String?) async throws -> JSONValue {
        let (base, user) = try await owner()
        let today = ISO.day(store.clock.now())
        let rows = try await store.storage.query("""
            SELECT * FROM notes WHERE user_name = ? AND base_url = ? AND (? IS NULL OR subject = ?) ORDER BY COALESCE(day, '9999'), created_at, id
            """, [.text(user), .text(base), subject.map(SQLValue.text) ?? .null, subject.map(SQLValue.text) ?? .null])
        return .array(rows.map { row in
            var note: [String: JSONValue] = ["id": .string(row["id"].text ?? ""), "title": .string(row["title"].text ?? ""),
                                             "text": .string(row["body"].text ?? ""), "subject": row["subject"].text.map(JSONValue.string) ?? .null,
                                             "day": row["day"].text.map(JSONValue.string) ?? .null,
                                             "updatedAt": .string(row["updated_at"].text ?? "")]
            if let day = row["day"].text, let from = ISO.parseDay(today), let to = ISO.parseDay(day) {
                note["daysRemaining"] = .integer(Int64(Timetable.calendar.dateComponents([.day], from: from, to: to).day ?? 0))
            }
            return .object(note)
        })
    }

    /// Adds a note, or with `id` changes one (only the members given).
    func save(_ input: Input) async throws -> JSONValue {
        let (base, user) = try await owner()
        let now = ISO.utc(store.clock.now())
        if let day = input.day, !day.isEmpty, ISO.parseDay(day) == nil { throw PluginError(.invalidInput, "a day is YYYY-MM-DD", field: "$.day") }
        if let subject = input.subject, !subject.isEmpty, subject.split(separator: "/").count != 2 {
            throw PluginError(.invalidInput, "a subject is DEPARTMENT/CODE, e.g. KMI/PRG", field: "$.subject")
        }
        var values: [String: SQLValue] = ["updated_at": .text(now)]
        if let title = input.title { values["title"] = .text(title) }
        if let text = input.text { values["body"] = .text(text) }
        if let subject = input.subject { values["subject"] = subject.isEmpty ? .null : .text(subject) }
        if let day = input.day { values["day"] = day.isEmpty ? .null : .text(day) }
        if let id = input.id {
            try await requireOwn(id, base: base, user: user)
            try await store.storage.write { $0.patch("notes", id: id, values) }
            return ["id": .string(id), "saved": true]
        }
        guard let title = input.title, !title.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw PluginError(.invalidInput, "a note needs a title", field: "$.title")
        }
        values["title"] = .text(title)
        values["body"] = values["body"] ?? .text("")
        values["created_at"] = .text(now)
        values["user_name"] = .text(user)
        values["base_url"] = .text(base)
        let id = RecordID.timeOrdered(at: store.clock.now())
        try await store.storage.write { $0.put("notes", id: id, values) }
        return ["id": .string(id), "saved": true]
    }

    func delete(_ id: String) async throws -> JSONValue {
        let (base, user) = try await owner()
        try await requireOwn(id, base: base, user: user)
        try await store.storage.write { $0.delete("notes", id: id) }
        return ["deleted": .string(id)]
    }

    /// Another person's note is answered as missing, the same as one that never existed.
    private func requireOwn(_ id: String, base: String, user: String) async throws {
        guard try await !store.storage.query("SELECT 1 FROM notes WHERE id = ? AND user_name = ? AND base_url = ?",
                                             [.text(id), .text(user), .text(base)]).isEmpty else {
            throw PluginError(.notFound, "there is no note '\(id)'", field: "$.id")
        }
    }
}
