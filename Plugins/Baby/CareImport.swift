import Foundation
import TesseraSDK

/// Bringing a child's care log over from Baby Buddy (issue 41: "its API field names are a good
/// reference for import"). `care-import` takes what Baby Buddy's API answers for a child —
/// `GET /api/feedings/`, `/api/sleep/`, `/api/changes/`, `/api/tummy-times/`, `/api/pumping/` —
/// as a page (`{"count", "results": […]}`), a list, or an object naming each list
/// (`{"feedings": […], "changes": […]}`); a list without a name is recognised entry by entry by its
/// fields. With `dryRun` it only says what it would do, so the page can show it first.
///
/// Each entry becomes a row of `care` whose id names its origin (`babybuddy-feedings-12`), so
/// importing the same file again adds nothing. An entry the diary cannot take — a time still
/// ahead, an end before its start, a nappy neither wet nor dirty, an unknown method — is skipped
/// and said by its list, its place in the list and a code the page puts in words; the rest are
/// written, a few hundred per batch.
extension Diary {
    struct CareImportInput: Decodable, Sendable {
        var childId: String
        var data: JSONValue
        var dryRun: Bool?
    }

    /// A Baby Buddy list and the care kind its entries become.
    enum BabyBuddyList: String, CaseIterable, Sendable {
        case feedings, sleep, changes, tummyTimes = "tummy-times", pumping

        var kind: CareKind {
            switch self {
            case .feedings: .feed
            case .sleep: .sleep
            case .changes: .nappy
            case .tummyTimes: .tummy
            case .pumping: .pumping
            }
        }

        /// The list an entry of an unnamed list belongs to, by its fields.
        static func recognising(_ entry: JSONValue) -> BabyBuddyList? {
            if entry["wet"] != nil || entry["solid"] != nil { return .changes }
            if entry["method"] != nil || entry["type"] != nil { return .feedings }
            if entry["milestone"] != nil { return .tummyTimes }
            if entry["nap"] != nil { return .sleep }
            if entry["amount"] != nil { return .pumping }
            return nil
        }
    }

    /// Why an entry was skipped: a code the page puts in words.
    struct SkippedEntry: Error {
        let code: String
    }

    private static let importBatch = 200

    func importCare(_ input: CareImportInput) async throws -> JSONValue {
        try await requireChild(input.childId)
        try await require(.createRecord, on: input.childId)
        let entries = try Self.babyBuddyEntries(input.data)
        var rows: [(id: String, row: [String: SQLValue])] = []
        var counts: [String: Int] = [:]
        var skipped: [JSONValue] = []
        var already = 0
        for entry in entries {
            do {
                guard let list = entry.list else { throw SkippedEntry(code: "unknown_entry") }
                let id = "babybuddy-\(list.rawValue)-\(try Self.babyBuddyID(entry.value, list: list))"
                let stored = try await !query("SELECT 1 FROM care WHERE id = ?", [.text(id)]).isEmpty
                if stored || rows.contains(where: { $0.id == id }) {
                    already += 1
                    continue
                }
                rows.append((id, try await careRow(babyBuddy: entry.value, list: list, childID: input.childId)))
                counts[list.kind.rawValue, default: 0] += 1
            } catch let skip as SkippedEntry {
                skipped.append(["list": entry.list.map { .string($0.rawValue) } ?? .null, "index": .integer(Int64(entry.index)),
                                "code": .string(skip.code)])
            }
        }
        if input.dryRun != true {
            for start in stride(from: 0, to: rows.count, by: Self.importBatch) {
                let chunk = rows[start..<min(start + Self.importBatch, rows.count)]
                try await write(in: input.childId) { batch in for (id, row) in chunk { batch.put("care", id: id, row) } }
            }
        }
        return ["dryRun": .bool(input.dryRun == true), "imported": .object(counts.mapValues { .integer(Int64($0)) }),
                "alreadyImported": .integer(Int64(already)), "skipped": .array(skipped)]
    }

    /// The entries of `data` with the list each belongs to (nil: not recognised) and its place in its list.
    static func babyBuddyEntries(_ data: JSONValue) throws -> [(list: BabyBuddyList?, index: Int, value: JSONValue)] {
        if let results = data["results"]?.arrayValue { return unnamed(results) }
        if let items = data.arrayValue { return unnamed(items) }
        guard let lists = data.objectValue, !lists.isEmpty else {
            throw BabyError.invalid("data", "expected what Baby Buddy's API answers: a page with results, a list, or lists by name")
        }
        var entries: [(list: BabyBuddyList?, index: Int, value: JSONValue)] = []
        for name in lists.keys.sorted() {
            guard let list = BabyBuddyList(rawValue: name) else {
                throw BabyError.invalid("data", "'\(name)' is not one of Baby Buddy's lists: \(BabyBuddyList.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let value = lists[name]!
            let items = value["results"]?.arrayValue ?? value.arrayValue ?? []
            entries += items.enumerated().map { (list, $0.offset, $0.element) }
        }
        return entries
    }

    private static func unnamed(_ items: [JSONValue]) -> [(list: BabyBuddyList?, index: Int, value: JSONValue)] {
        items.enumerated().map { (BabyBuddyList.recognising($0.element), $0.offset, $0.element) }
    }

    /// The entry's Baby Buddy id, or when it has none, its time: what makes a second import find it.
    private static func babyBuddyID(_ entry: JSONValue, list: BabyBuddyList) throws -> String {
        if let id = entry["id"]?.integerValue { return String(id) }
        if let time = (entry["start"] ?? entry["time"])?.stringValue, !time.isEmpty { return time.filter { $0.isNumber } }
        throw SkippedEntry(code: "no_time")
    }

    /// The `care` row a Baby Buddy entry becomes.
    private func careRow(babyBuddy entry: JSONValue, list: BabyBuddyList, childID: String) async throws -> [String: SQLValue] {
        let start = try babyBuddyInstant(entry[list == .changes ? "time" : "start"] ?? entry["time"])
        let end = list == .changes ? nil : try entry["end"].flatMap { $0 == .null ? nil : try babyBuddyInstant($0) }
        let now = clock.now()
        guard start <= now, (end ?? start) <= now else { throw SkippedEntry(code: "date_in_future") }
        if let end, end < start { throw SkippedEntry(code: "end_before_start") }
        var notes = [entry["notes"]?.stringValue, entry["milestone"]?.stringValue].compactMap { $0 }.filter { !$0.isEmpty }
        let amount = entry["amount"]?.doubleValue.map { Int($0.rounded()) }.flatMap { (1...1000).contains($0) ? $0 : nil }
        let details: [String: SQLValue]
        do {
            switch list {
            case .feedings:
                let (method, side) = try Self.babyBuddyMethod(entry)
                if let type = entry["type"]?.stringValue, ["formula", "fortified breast milk"].contains(type) { notes.insert(type, at: 0) }
                details = try careDetails(kind: .feed, method: method, side: side, amountMl: method == "bottle" ? amount : nil,
                                          food: nil, nappy: nil, colour: nil)
            case .changes:
                let wet = entry["wet"]?.boolValue == true, solid = entry["solid"]?.boolValue == true
                guard wet || solid else { throw SkippedEntry(code: "not_a_change") }
                let colour = entry["color"]?.stringValue.flatMap { Self.nappyColours.contains($0) ? $0 : nil }
                details = try careDetails(kind: .nappy, method: nil, side: nil, amountMl: nil, food: nil,
                                          nappy: wet && solid ? "both" : wet ? "wet" : "dirty", colour: colour)
            case .pumping:
                details = try careDetails(kind: .pumping, method: nil, side: nil, amountMl: amount, food: nil, nappy: nil, colour: nil)
            case .sleep, .tummyTimes:
                details = [:]
            }
        } catch let error as PluginError where error.code == .invalidInput {
            throw SkippedEntry(code: "unknown_method")
        }
        // A nappy is a moment; a timed entry Baby Buddy kept without an end took no time.
        let ended: Date? = list == .changes ? start : (end ?? start)
        return try await careRow(childID: childID, kind: list.kind, start: start, end: ended, details: details,
                                 note: notes.isEmpty ? nil : String(notes.joined(separator: ". ").prefix(10_000)))
    }

    /// Baby Buddy's method (and type) as the diary's method and side.
    private static func babyBuddyMethod(_ entry: JSONValue) throws -> (String, String?) {
        if entry["type"]?.stringValue == "solid food" { return ("solids", nil) }
        switch entry["method"]?.stringValue ?? "" {
        case "left breast": return ("breast", "left")
        case "right breast": return ("breast", "right")
        case "both breasts": return ("breast", "both")
        case "bottle", "parent fed", "self fed": return ("bottle", nil)
        default: throw SkippedEntry(code: "unknown_method")
        }
    }

    /// A Baby Buddy time: ISO 8601 with its offset (`2026-03-01T08:05:12.964405+01:00`), or
    /// without one, the child's local time.
    private func babyBuddyInstant(_ value: JSONValue?) throws -> Date {
        guard let text = value?.stringValue,
              let match = text.wholeMatch(of: /(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?/)
        else { throw SkippedEntry(code: "no_time") }
        let local = "\(match.1)T\(match.2):\(match.3)"
        let seconds = Double(match.4.map(String.init) ?? "0") ?? 0
        guard let zone = match.5.map(String.init) else {
            guard let instant = try? dates.instant(local, field: "data") else { throw SkippedEntry(code: "no_time") }
            return instant.addingTimeInterval(seconds)
        }
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let day = match.1.split(separator: "-").compactMap { Int($0) }
        guard day.count == 3, let hour = Int(match.2), let minute = Int(match.3),
              let wall = utc.date(from: DateComponents(year: day[0], month: day[1], day: day[2], hour: hour, minute: minute))
        else { throw SkippedEntry(code: "no_time") }
        var offset = 0
        if zone != "Z" {
            let digits = zone.dropFirst().filter(\.isNumber)
            offset = ((Int(digits.prefix(2)) ?? 0) * 60 + (Int(digits.suffix(2)) ?? 0)) * 60 * (zone.hasPrefix("-") ? -1 : 1)
        }
        return wall.addingTimeInterval(seconds - Double(offset))
    }
}
