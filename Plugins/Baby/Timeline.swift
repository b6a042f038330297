import Foundation
import TesseraSDK

/// The timeline (UC18) and the calendar (UC19), both filtered by record type and child, freely
/// combined (UC20). Items come from `records` and the vaccinations of `health_items`; each is
/// read newest first along an index (`records_timeline`, `records_by_child`,
/// `health_items_timeline`), so a page costs the same after years of records. A page ends with an
/// opaque cursor: the last item's (date, id), so an item added meanwhile never shifts a page.
extension Diary {
    static let timelineTypes = RecordType.allCases.map(\.rawValue) + ["vaccination"]

    struct Filter: Decodable, Sendable {
        var childIds: [String]?
        var types: [String]?
    }

    struct TimelineInput: Decodable, Sendable {
        var childIds: [String]?
        var types: [String]?
        var cursor: String?
        var limit: Int?
        var includeFuture: Bool?
    }

    struct MonthInput: Decodable, Sendable { var month: String; var childIds: [String]?; var types: [String]? }
    struct DayInput: Decodable, Sendable { var date: String; var childIds: [String]?; var types: [String]? }

    /// A page of items newest first. Without `includeFuture` it starts with today (future items
    /// show only when asked for, L520); each item has its group: its day within a week of today,
    /// else its month.
    func timeline(_ input: TimelineInput) async throws -> JSONValue {
        let limit = input.limit ?? 20
        guard (1...200).contains(limit) else { throw BabyError.invalid("limit", "\(limit) is not within 1–200") }
        let types = try checkedTypes(input.types)
        let today = dates.today(clock.now())
        var upper = TimelinePosition(date: "\u{10FFFF}", id: "")
        if input.includeFuture != true { upper.date = dates.day(today, minus: .day, -1) }
        if let cursor = input.cursor { upper = try TimelinePosition(cursor: cursor) }
        let rows = try await items(childIDs: input.childIds, types: types, below: upper, from: nil, limit: limit + 1, descending: true)
        let page = rows.prefix(limit)
        let weekAgo = dates.day(today, minus: .day, 7), weekAhead = dates.day(today, minus: .day, -7)
        let items: [JSONValue] = page.map { item in
            guard case .object(var members) = item.json else { return item.json }
            let day = String(item.date.prefix(10))
            members["group"] = .string(day >= weekAgo && day <= weekAhead ? day : String(day.prefix(7)))
            return .object(members)
        }
        let next: JSONValue = rows.count > limit ? .string(TimelinePosition(date: page.last!.date, id: page.last!.id).cursor) : .null
        return ["items": .array(items), "nextCursor": next]
    }

    /// Which days of a month have what: per day, the count of each type.
    func calendarMonth(_ input: MonthInput) async throws -> JSONValue {
        let month = try dates.parseMonth(input.month, field: "month")
        let types = try checkedTypes(input.types)
        let next = dates.day(month + "-01", minus: .month, -1)
        let rows = try await items(childIDs: input.childIds, types: types, below: TimelinePosition(date: next, id: ""), from: month + "-01",
                                   limit: 10_000, descending: false)
        var days: [String: [String: Int64]] = [:]
        for item in rows { days[String(item.date.prefix(10)), default: [:]][item.type, default: 0] += 1 }
        return ["month": .string(month), "days": .array(days.keys.sorted().map { day in
            ["date": .string(day), "types": .object(days[day]!.mapValues { .integer($0) })]
        })]
    }

    /// Everything on one day, earliest first.
    func calendarDay(_ input: DayInput) async throws -> JSONValue {
        _ = try dates.parseDay(input.date, field: "date")
        let types = try checkedTypes(input.types)
        let rows = try await items(childIDs: input.childIds, types: types, below: TimelinePosition(date: dates.day(input.date, minus: .day, -1), id: ""),
                                   from: input.date, limit: 10_000, descending: false)
        return ["date": .string(input.date), "items": .array(rows.map(\.json))]
    }

    private func checkedTypes(_ types: [String]?) throws -> [String]? {
        guard let types else { return nil }
        for (index, type) in types.enumerated() { _ = try Validate.oneOf(type, Self.timelineTypes, field: "types[\(index)]") }
        return types
    }

    private struct Item { var date: String; var id: String; var type: String; var json: JSONValue }

    /// Items with (date, id) below `below` (and dates from `from`), in order, from both tables.
    private func items(childIDs: [String]?, types: [String]?, below: TimelinePosition, from: String?, limit: Int, descending: Bool) async throws -> [Item] {
        if childIDs?.isEmpty == true { return [] }
        var merged: [Item] = []
        let recordTypes = types.map { $0.filter { $0 != "vaccination" } } ?? RecordType.allCases.map(\.rawValue)
        if !recordTypes.isEmpty {
            let (sql, parameters) = Self.recordsPage(childIDs: childIDs, types: types == nil ? nil : recordTypes, below: below, from: from,
                                                     limit: limit, descending: descending)
            let rows = try await query(sql, parameters)
            merged += zip(rows, try await recordsJSON(rows)).map { row, json in
                Item(date: row["occurred_at"].text ?? "", id: row["id"].text ?? "", type: row["type"].text ?? "", json: json)
            }
        }
        if types?.contains("vaccination") ?? true {
            let (sql, parameters) = Self.vaccinationsPage(childIDs: childIDs, below: below, from: from, limit: limit, descending: descending)
            merged += try await query(sql, parameters).map { row in
                var json = Self.itemJSON(row)
                if case .object(var members) = json {
                    members["type"] = "vaccination"
                    members["childId"] = row["child_id"].jsonValue
                    json = .object(members)
                }
                return Item(date: row["occurred_at"].text ?? "", id: row["id"].text ?? "", type: "vaccination", json: json)
            }
        }
        merged.sort { descending ? ($0.date, $0.id) > ($1.date, $1.id) : ($0.date, $0.id) < ($1.date, $1.id) }
        return Array(merged.prefix(limit))
    }

    /// One page of `records` in (date, id) order below `below`: read along `records_timeline`, or
    /// `records_by_child` when children are named, never sorted afterwards (BabyTimelineTests
    /// checks the plan).
    static func recordsPage(childIDs: [String]?, types: [String]?, below: TimelinePosition, from: String?, limit: Int,
                            descending: Bool) -> (String, [SQLValue]) {
        let order = descending ? "DESC" : ""
        var sql = "SELECT * FROM records WHERE (occurred_at, id) < (?, ?)", parameters: [SQLValue] = [.text(below.date), .text(below.id)]
        if let from { sql += " AND occurred_at >= ?"; parameters.append(.text(from)) }
        if let childIDs { sql += " AND child_id IN (\(marks(childIDs.count)))"; parameters += childIDs.map { .text($0) } }
        if let types { sql += " AND type IN (\(marks(types.count)))"; parameters += types.map { .text($0) } }
        return (sql + " ORDER BY occurred_at \(order), id \(order) LIMIT \(limit)", parameters)
    }

    /// The same for the vaccinations of `health_items`, along `health_items_timeline`.
    static func vaccinationsPage(childIDs: [String]?, below: TimelinePosition, from: String?, limit: Int, descending: Bool) -> (String, [SQLValue]) {
        let order = descending ? "DESC" : ""
        var sql = "SELECT * FROM health_items WHERE kind = 'vaccination' AND (occurred_at, id) < (?, ?)", parameters: [SQLValue] = [.text(below.date), .text(below.id)]
        if let from { sql += " AND occurred_at >= ?"; parameters.append(.text(from)) }
        if let childIDs { sql += " AND child_id IN (\(marks(childIDs.count)))"; parameters += childIDs.map { .text($0) } }
        return (sql + " ORDER BY occurred_at \(order), id \(order) LIMIT \(limit)", parameters)
    }

    static func marks(_ count: Int) -> String { Array(repeating: "?", count: max(count, 1)).joined(separator: ", ") }
}

/// A position in the timeline: items strictly before (date, id) come next. Its cursor is opaque
/// to callers (base64url of the two), and a cursor that does not decode is refused by name.
struct TimelinePosition {
    var date: String
    var id: String

    init(date: String, id: String) {
        self.date = date
        self.id = id
    }

    init(cursor: String) throws {
        let base64 = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let padded = base64 + String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: padded), let text = String(data: data, encoding: .utf8),
              let separator = text.firstIndex(of: "|") else { throw BabyError.invalid("cursor", "is not a cursor this module gave out") }
        date = String(text[..<separator])
        id = String(text[text.index(after: separator)...])
    }

    var cursor: String {
        Data("\(date)|\(id)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
