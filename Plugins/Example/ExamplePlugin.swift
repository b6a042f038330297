import Foundation
import TesseraSDK

/// A minimal plugin that shows the shape of every Tessera plugin: notes kept in its own database
/// (the storage capability), reminders that fire on the host's clock (the clock capability), and a
/// daily summary job declared in its manifest (manifests/example.json).
package final class ExamplePlugin: Plugin {
    package init() {}

    package var migrations: [StorageMigration] {
        [
            StorageMigration(version: 1, sql: """
                CREATE TABLE notes (id TEXT PRIMARY KEY, text TEXT NOT NULL, created_at TEXT NOT NULL);
                CREATE TABLE reminders (id TEXT PRIMARY KEY, text TEXT NOT NULL, due_at TEXT NOT NULL, fired_at TEXT);
                """),
            StorageMigration(version: 2, sql: """
                CREATE TABLE summaries (id TEXT PRIMARY KEY, day TEXT NOT NULL, note_count INTEGER NOT NULL);
                """),
        ]
    }

    package func start(context: PluginContext) async throws {
        let storage = try context.capability(.storage)
        let clock = try context.capability(.clock)
        // Optional: where the operator grants notifications, a reminder also reaches the inbox.
        let notifications = context.isGranted(.notifications) ? try context.capability(.notifications) : nil
        let notes = Notes(storage: storage, clock: clock, notifications: notifications)

        context.onOperation("add-note", input: NewNote.self) { input, _ in try await notes.add(input.text) }
        context.onOperation("list-notes", input: ListNotes.self) { input, _ in try await notes.list(limit: input.limit ?? 50) }
        context.onOperation("remind", input: NewReminder.self) { input, _ in try await notes.remind(input) }
        context.onOperation("list-reminders", input: Empty.self) { _, _ in try await notes.reminders() }
        context.onOperation("summaries", input: Empty.self) { _, _ in try await notes.summaries() }
        context.onOperation("echo", input: Echo.self) { input, _ in EchoReply(ok: true, count: input.tags.count) }

        context.onTimer("reminder") { firing in try await notes.markFired(firing) }
        context.onTimer("daily-summary") { firing in try await notes.summarize(at: firing.dueAt) }
        context.log.info("started with \(context.grantedCapabilities.joined(separator: ", "))")
    }
}

/// The plugin's logic, apart from registration.
struct Notes: Sendable {
    let storage: any PluginStorage
    let clock: any HostClock
    let notifications: (any PluginNotifications)?

    func add(_ text: String) async throws -> Saved {
        let id = RecordID.timeOrdered(at: clock.now())
        let now = iso(clock.now())
        try await storage.write { $0.put("notes", id: id, ["text": .text(text), "created_at": .text(now)]) }
        return Saved(id: id, at: now)
    }

    func list(limit: Int) async throws -> NoteList {
        let rows = try await storage.query("SELECT id, text, created_at FROM notes ORDER BY created_at DESC, id LIMIT ?", [.integer(Int64(limit))])
        return NoteList(notes: rows.map { Note(id: $0["id"].text ?? "", text: $0["text"].text ?? "", createdAt: $0["created_at"].text ?? "") })
    }

    func remind(_ input: NewReminder) async throws -> Saved {
        guard let seconds = parseDuration(input.in) else {
            throw PluginError(.invalidInput, "'\(input.in)' is not a duration such as 30m or 2h", field: "$.in")
        }
        let id = RecordID.timeOrdered(at: clock.now())
        let due = clock.now().addingTimeInterval(seconds)
        try await storage.write { $0.put("reminders", id: id, ["text": .text(input.text), "due_at": .text(iso(due)), "fired_at": .null]) }
        try await clock.schedule(TimerRequest(key: "reminder:\(id)", name: "reminder", fireAt: due, payload: ["id": .string(id)]))
        try await notifications?.schedule(NotificationRequest(
            key: "reminder:\(id)", title: input.text, body: "A reminder you set for \(input.in) later.",
            payload: ["reminder": .string(id)], schedule: .at(due)))
        return Saved(id: id, at: iso(due))
    }

    func reminders() async throws -> ReminderList {
        let rows = try await storage.query("SELECT id, text, due_at, fired_at FROM reminders ORDER BY due_at, id")
        return ReminderList(reminders: rows.map {
            Reminder(id: $0["id"].text ?? "", text: $0["text"].text ?? "", dueAt: $0["due_at"].text ?? "", firedAt: $0["fired_at"].text)
        })
    }

    func markFired(_ firing: TimerFiring) async throws {
        guard let id = firing.payload["id"]?.stringValue else { return }
        try await storage.write { $0.patch("reminders", id: id, ["fired_at": .text(iso(firing.firedAt))]) }
    }

    func summarize(at due: Date) async throws {
        let count = try await storage.query("SELECT count(*) AS n FROM notes")[0]["n"].integer ?? 0
        let day = String(iso(due).prefix(10))
        try await storage.write { $0.put("summaries", id: day, ["day": .text(day), "note_count": .integer(count)]) }
    }

    func summaries() async throws -> JSONValue {
        .array(try await storage.query("SELECT day, note_count FROM summaries ORDER BY day").map(\.jsonObject))
    }

    /// `90s`, `15m`, `2h30m`, `1d`.
    func parseDuration(_ text: String) -> TimeInterval? {
        var total = 0.0, number = ""
        for ch in text {
            if ch.isNumber { number.append(ch); continue }
            guard let n = Double(number), let unit = ["s": 1.0, "m": 60, "h": 3600, "d": 86400][String(ch)] else { return nil }
            total += n * unit
            number = ""
        }
        return number.isEmpty && total > 0 ? total : nil
    }
}

func iso(_ date: Date) -> String { date.formatted(.iso8601) }

struct NewNote: Decodable, Sendable { let text: String }
struct ListNotes: Decodable, Sendable { let limit: Int? }
struct NewReminder: Decodable, Sendable { let text: String; let `in`: String }
struct Empty: Decodable, Sendable {}
struct Echo: Decodable, Sendable { let id: String; let title: String; let amount: Int; let date: String; let tags: [String]; let note: String? }
struct EchoReply: Encodable, Sendable { let ok: Bool; let count: Int }
struct Saved: Encodable, Sendable { let id: String; let at: String }
struct Note: Encodable, Sendable { let id: String; let text: String; let createdAt: String }
struct NoteList: Encodable, Sendable { let notes: [Note] }
struct Reminder: Encodable, Sendable { let id: String; let text: String; let dueAt: String; let firedAt: String? }
struct ReminderList: Encodable, Sendable { let reminders: [Reminder] }

