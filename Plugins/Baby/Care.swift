import Foundation
import TesseraSDK

/// Daily care (issue 41): feeds (breast with its side, bottle with its amount, solids), sleep,
/// nappies (wet, dirty or both, with a colour), pumping and tummy time, the core of the apps
/// parents compare the diary with (Baby Buddy, Huckleberry).
///
/// An entry is a row of `care` in the child's space, so it syncs to everyone the child is shared
/// with, under the same roles as the diary's records (a guardian changes only its own). A timer is
/// an entry without an end: started on one parent's phone, it is running on the other's after the
/// next sync round, and either may stop it. Times are the child's local times `YYYY-MM-DDTHH:MM`,
/// like every other record; the exact instants (`start_ms`, `end_ms`) give the durations to the
/// second, so a feed of 12 minutes 40 seconds is 13 minutes, not whatever the minutes' edges say.
extension Diary {
    /// What a care entry records.
    enum CareKind: String, CaseIterable, Sendable {
        case feed, sleep, nappy, pumping, tummy

        /// Whether it runs as a timer (a nappy is a moment).
        var timed: Bool { self != .nappy }
    }

    static let feedMethods = ["breast", "bottle", "solids"]
    static let sides = ["left", "right", "both"]
    static let nappyKinds = ["wet", "dirty", "both"]
    static let nappyColours = ["yellow", "green", "brown", "black", "red", "white"]

    struct CareStart: Decodable, Sendable { var childId: String; var kind: String; var method: String?; var side: String? }
    struct CareStop: Decodable, Sendable { var id: String; var amountMl: Int?; var note: String? }
    struct CareEntryInput: Decodable, Sendable {
        var childId: String
        var kind: String
        var at: String
        var endAt: String?
        var method: String?
        var side: String?
        var amountMl: Int?
        var food: String?
        var nappy: String?
        var colour: String?
        var note: String?
    }
    struct CareChange: Decodable, Sendable {
        var id: String
        var at: String?
        var endAt: String?
        var method: String?
        var side: String?
        var amountMl: Int?
        var food: String?
        var nappy: String?
        var colour: String?
        var note: String?
    }
    struct CareListInput: Decodable, Sendable { var childId: String; var day: String? }
    struct CareSummaryInput: Decodable, Sendable { var childId: String; var days: Int? }

    // MARK: Timers

    /// Starts a timer now. One timer of a kind runs per child at a time (`timer_running`).
    func startCare(_ input: CareStart) async throws -> JSONValue {
        let kind = try careKind(input.kind)
        guard kind.timed else { throw BabyError.invalid("kind", "a nappy is a moment, not a timer: add it with care-add") }
        try await require(.createRecord, on: input.childId)
        if try await !query("SELECT id FROM care WHERE child_id = ? AND kind = ? AND end_ms IS NULL", [.text(input.childId), .text(kind.rawValue)]).isEmpty {
            throw PluginError(.conflict, "a \(kind.rawValue) timer is already running for this child: stop it first", reason: "timer_running")
        }
        let details = try careDetails(kind: kind, method: input.method, side: input.side, amountMl: nil, food: nil, nappy: nil, colour: nil)
        let now = clock.now()
        return try await insertCare(childID: input.childId, kind: kind, start: now, end: nil, details: details, note: nil)
    }

    /// Stops a running timer now, with the amount a bottle or pumping gave.
    func stopCare(_ input: CareStop) async throws -> JSONValue {
        let row = try await changeableCare(input.id)
        guard row["end_ms"].isNull else { throw PluginError(.conflict, "this timer was stopped already", reason: "not_running") }
        let kind = try careKind(row["kind"].text ?? "")
        var values: [String: SQLValue] = ["end_ms": .integer(Int64(clock.now().timeIntervalSince1970 * 1000)),
                                          "ended_at": .text(dates.moment(of: clock.now()))]
        if let amount = input.amountMl { values["amount_ml"] = .integer(Int64(try amountMl(amount, kind: kind, method: row["method"].text ?? ""))) }
        if let note = input.note { values["note"] = .text(try Validate.note(note)) }
        try await write(in: row["child_id"].text) { $0.patch("care", id: input.id, values) }
        return try await careEntry(input.id)
    }

    // MARK: Entries

    /// A finished entry entered afterwards (or a nappy): its times not in the future, its end
    /// not before its start.
    func addCare(_ input: CareEntryInput) async throws -> JSONValue {
        let kind = try careKind(input.kind)
        try await require(.createRecord, on: input.childId)
        let (start, end) = try careTimes(at: input.at, endAt: kind.timed ? input.endAt : nil)
        let details = try careDetails(kind: kind, method: input.method, side: input.side, amountMl: input.amountMl,
                                      food: input.food, nappy: input.nappy, colour: input.colour)
        return try await insertCare(childID: input.childId, kind: kind, start: start, end: kind.timed ? (end ?? start) : start,
                                    details: details, note: input.note)
    }

    func updateCare(_ input: CareChange) async throws -> JSONValue {
        let row = try await changeableCare(input.id)
        let kind = try careKind(row["kind"].text ?? "")
        var values: [String: SQLValue] = [:]
        if input.at != nil || input.endAt != nil {
            let startText = input.at ?? row["started_at"].text ?? ""
            let running = row["end_ms"].isNull
            let (start, end) = try careTimes(at: startText, endAt: kind.timed ? (input.endAt ?? (running ? nil : row["ended_at"].text)) : nil)
            values["started_at"] = .text(dates.moment(of: start))
            values["start_ms"] = .integer(Int64(start.timeIntervalSince1970 * 1000))
            if let end, !running || input.endAt != nil {
                values["ended_at"] = .text(dates.moment(of: end))
                values["end_ms"] = .integer(Int64(end.timeIntervalSince1970 * 1000))
            } else if !kind.timed {
                values["ended_at"] = .text(dates.moment(of: start))
                values["end_ms"] = .integer(Int64(start.timeIntervalSince1970 * 1000))
            }
        }
        let method = input.method ?? row["method"].text
        let merged = try careDetails(kind: kind, method: method?.isEmpty == true ? nil : method, side: input.side ?? nonEmpty(row["side"].text),
                                     amountMl: input.amountMl ?? row["amount_ml"].integer.map(Int.init), food: input.food ?? nonEmpty(row["food"].text),
                                     nappy: input.nappy ?? nonEmpty(row["nappy"].text), colour: input.colour ?? nonEmpty(row["colour"].text))
        values.merge(merged) { $1 }
        if let note = input.note { values["note"] = .text(try Validate.note(note)) }
        try await write(in: row["child_id"].text) { $0.patch("care", id: input.id, values) }
        return try await careEntry(input.id)
    }

    func deleteCare(_ id: String) async throws {
        let row = try await changeableCare(id)
        try await write(in: row["child_id"].text) { $0.delete("care", id: id) }
    }

    // MARK: Reading

    /// The running timers, a day's entries (today's by default, newest first) and the last feed,
    /// sleep and nappy: what a parent looks at first ("last feed 2 h 10 min ago, left side").
    func careList(_ input: CareListInput) async throws -> JSONValue {
        try await requireChild(input.childId)
        let day = input.day ?? dates.today(clock.now())
        _ = try dates.parseDay(day, field: "day")
        let running = try await query("SELECT * FROM care WHERE child_id = ? AND end_ms IS NULL ORDER BY start_ms DESC", [.text(input.childId)])
        let entries = try await query("SELECT * FROM care WHERE child_id = ? AND substr(started_at, 1, 10) = ? ORDER BY start_ms DESC, id DESC",
                                      [.text(input.childId), .text(day)])
        var last: [String: JSONValue] = [:]
        for kind in [CareKind.feed, .sleep, .nappy] {
            let row = try await query("SELECT * FROM care WHERE child_id = ? AND kind = ? ORDER BY start_ms DESC, id DESC LIMIT 1",
                                      [.text(input.childId), .text(kind.rawValue)]).first
            last[kind.rawValue] = row.map(careJSON) ?? .null
        }
        return ["day": .string(day), "now": .string(dates.moment(of: clock.now())), "running": .array(running.map(careJSON)),
                "entries": .array(entries.map(careJSON)), "last": .object(last)]
    }

    /// Day by day over the last `days` days (7 by default, 1–31) ending today: feeds, their
    /// minutes, bottle millilitres and solids; sleep minutes (a night is split at midnight, each
    /// part counted on its own day); nappies (wet, dirty); pumped millilitres; tummy time.
    func careSummary(_ input: CareSummaryInput) async throws -> JSONValue {
        try await requireChild(input.childId)
        let count = input.days ?? 7
        guard (1...31).contains(count) else { throw BabyError.outOfRange("days", "\(count) is outside 1–31") }
        let calendar = dates.calendar
        let todayStart = calendar.startOfDay(for: clock.now())
        guard let first = calendar.date(byAdding: .day, value: -(count - 1), to: todayStart) else { return ["days": []] }
        let rows = try await query("SELECT * FROM care WHERE child_id = ? AND (end_ms IS NULL OR end_ms >= ?)",
                                   [.text(input.childId), .integer(Int64(first.timeIntervalSince1970 * 1000))])
        let nowMs = Int64(clock.now().timeIntervalSince1970 * 1000)
        var days: [JSONValue] = []
        for offset in 0..<count {
            guard let dayStart = calendar.date(byAdding: .day, value: offset, to: first),
                  let dayEnd = calendar.date(byAdding: .day, value: 1, to: dayStart) else { continue }
            let from = Int64(dayStart.timeIntervalSince1970 * 1000), to = Int64(dayEnd.timeIntervalSince1970 * 1000)
            var totals = CareDay()
            for row in rows {
                let start = row["start_ms"].integer ?? 0, end = row["end_ms"].integer ?? nowMs
                let startsToday = start >= from && start < to
                let overlap = max(0, min(end, to) - max(start, from)) / 60_000
                switch CareKind(rawValue: row["kind"].text ?? "") {
                case .feed?:
                    guard startsToday else { continue }
                    totals.feeds += 1
                    totals.feedMinutes += Int((end - start) / 60_000)
                    totals.bottleMl += Int(row["amount_ml"].integer ?? 0)
                    if row["method"].text == "solids" { totals.solids += 1 }
                case .sleep?: totals.sleepMinutes += Int(overlap)
                case .nappy?:
                    guard startsToday else { continue }
                    totals.nappies += 1
                    if ["wet", "both"].contains(row["nappy"].text ?? "") { totals.wet += 1 }
                    if ["dirty", "both"].contains(row["nappy"].text ?? "") { totals.dirty += 1 }
                case .pumping?:
                    guard startsToday else { continue }
                    totals.pumpingMl += Int(row["amount_ml"].integer ?? 0)
                case .tummy?: totals.tummyMinutes += Int(overlap)
                case nil: continue
                }
            }
            days.append(totals.json(day: dates.day(of: dayStart)))
        }
        return ["days": .array(days)]
    }

    /// One day's totals of `careSummary`.
    struct CareDay {
        var feeds = 0, feedMinutes = 0, bottleMl = 0, solids = 0, sleepMinutes = 0, nappies = 0, wet = 0, dirty = 0
        var pumpingMl = 0, tummyMinutes = 0

        func json(day: String) -> JSONValue {
            ["day": .string(day), "feeds": .integer(Int64(feeds)), "feedMinutes": .integer(Int64(feedMinutes)),
             "bottleMl": .integer(Int64(bottleMl)), "solids": .integer(Int64(solids)), "sleepMinutes": .integer(Int64(sleepMinutes)),
             "nappies": .integer(Int64(nappies)), "wet": .integer(Int64(wet)), "dirty": .integer(Int64(dirty)),
             "pumpingMl": .integer(Int64(pumpingMl)), "tummyMinutes": .integer(Int64(tummyMinutes))]
        }
    }

    // MARK: Helpers

    private func careKind(_ text: String) throws -> CareKind {
        guard let kind = CareKind(rawValue: text) else {
            throw BabyError.invalid("kind", "'\(text)' is not one of \(CareKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return kind
    }

    private func nonEmpty(_ text: String?) -> String? { text?.isEmpty == false ? text : nil }

    /// The kind's own columns, each checked against what the kind may have.
    func careDetails(kind: CareKind, method: String?, side: String?, amountMl: Int?, food: String?, nappy: String?,
                             colour: String?) throws -> [String: SQLValue] {
        var values: [String: SQLValue] = ["method": "", "side": "", "amount_ml": .null, "food": "", "nappy": "", "colour": ""]
        switch kind {
        case .feed:
            let method = try Validate.oneOf(method ?? "breast", Self.feedMethods, field: "method")
            values["method"] = .text(method)
            if method == "breast", let side { values["side"] = .text(try Validate.oneOf(side, Self.sides, field: "side")) }
            if let amountMl { values["amount_ml"] = .integer(Int64(try self.amountMl(amountMl, kind: kind, method: method))) }
            if let food, method == "solids" { values["food"] = .text(try Validate.name(food, field: "food")) }
        case .pumping:
            if let side { values["side"] = .text(try Validate.oneOf(side, Self.sides, field: "side")) }
            if let amountMl { values["amount_ml"] = .integer(Int64(try self.amountMl(amountMl, kind: kind, method: ""))) }
        case .nappy:
            values["nappy"] = .text(try Validate.oneOf(nappy ?? "", Self.nappyKinds, field: "nappy"))
            if let colour { values["colour"] = .text(try Validate.oneOf(colour, Self.nappyColours, field: "colour")) }
        case .sleep, .tummy:
            break
        }
        return values
    }

    /// Millilitres of a bottle feed or pumping, 1–1000; no other entry has an amount.
    private func amountMl(_ amount: Int, kind: CareKind, method: String) throws -> Int {
        guard kind == .pumping || (kind == .feed && method == "bottle") else {
            throw BabyError.invalid("amountMl", "only a bottle feed or pumping has an amount")
        }
        guard (1...1000).contains(amount) else { throw BabyError.outOfRange("amountMl", "\(amount) ml is outside 1–1000 ml") }
        return amount
    }

    /// An entry's start and end as instants: local moments, not after now, the end not before
    /// the start (`end_before_start`).
    func careTimes(at: String, endAt: String?) throws -> (Date, Date?) {
        let start = try dates.instant(at, field: "at")
        let now = clock.now()
        guard start <= now else { throw PluginError(.invalidInput, "at: \(at) is still ahead", field: "$.at", reason: "date_in_future") }
        guard let endAt else { return (start, nil) }
        let end = try dates.instant(endAt, field: "endAt")
        guard end >= start else { throw PluginError(.invalidInput, "endAt: \(endAt) is before at \(at)", field: "$.endAt", reason: "end_before_start") }
        guard end <= now else { throw PluginError(.invalidInput, "endAt: \(endAt) is still ahead", field: "$.endAt", reason: "date_in_future") }
        return (start, end)
    }

    private func insertCare(childID: String, kind: CareKind, start: Date, end: Date?, details: [String: SQLValue], note: String?) async throws -> JSONValue {
        let id = newID()
        let row = try await careRow(childID: childID, kind: kind, start: start, end: end, details: details, note: note)
        try await write(in: childID) { $0.put("care", id: id, row) }
        return try await careEntry(id)
    }

    /// A `care` row as this device's person writes it: the details, the times both as local
    /// moments and as instants, the note, and who wrote it.
    func careRow(childID: String, kind: CareKind, start: Date, end: Date?, details: [String: SQLValue], note: String?) async throws -> [String: SQLValue] {
        let (person, author) = try await me()
        var row = details
        row["child_id"] = .text(childID)
        row["kind"] = .text(kind.rawValue)
        row["started_at"] = .text(dates.moment(of: start))
        row["start_ms"] = .integer(Int64(start.timeIntervalSince1970 * 1000))
        row["ended_at"] = .text(end.map { dates.moment(of: $0) } ?? "")
        row["end_ms"] = end.map { .integer(Int64($0.timeIntervalSince1970 * 1000)) } ?? .null
        row["note"] = .text(try Validate.note(note))
        row["created_by"] = .text(person)
        row["author_name"] = .text(author)
        row["created_at"] = .text(stamp())
        return row
    }

    private func changeableCare(_ id: String) async throws -> Row {
        guard let row = try await query("SELECT * FROM care WHERE id = ?", [.text(id)]).first else { throw BabyError.notFound("care entry", id) }
        try await require(.changeRecord(createdBy: row["created_by"].text ?? ""), on: row["child_id"].text ?? "")
        return row
    }

    func requireChild(_ childID: String) async throws {
        guard try await !query("SELECT 1 FROM children WHERE id = ?", [.text(childID)]).isEmpty else { throw BabyError.notFound("child", childID) }
    }

    func careEntry(_ id: String) async throws -> JSONValue {
        guard let row = try await query("SELECT * FROM care WHERE id = ?", [.text(id)]).first else { throw BabyError.notFound("care entry", id) }
        return careJSON(row)
    }

    /// An entry as callers see it: the empty columns as `null`, the duration in whole minutes
    /// (rounded) once it has ended.
    func careJSON(_ row: Row) -> JSONValue {
        func text(_ column: String) -> JSONValue { (row[column].text).flatMap { $0.isEmpty ? nil : JSONValue.string($0) } ?? .null }
        let duration: JSONValue = {
            guard let start = row["start_ms"].integer, let end = row["end_ms"].integer else { return .null }
            return .integer(Int64(((Double(end - start) / 60_000)).rounded()))
        }()
        return ["id": row["id"].jsonValue, "childId": row["child_id"].jsonValue, "kind": row["kind"].jsonValue,
                "method": text("method"), "side": text("side"), "startedAt": text("started_at"), "endedAt": text("ended_at"),
                "durationMinutes": duration, "running": .bool(row["end_ms"].isNull),
                "amountMl": row["amount_ml"].integer.map { .integer($0) } ?? .null, "food": text("food"), "nappy": text("nappy"),
                "colour": text("colour"), "note": row["note"].jsonValue, "authorName": row["author_name"].jsonValue,
                "createdBy": row["created_by"].jsonValue]
    }
}
