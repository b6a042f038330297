import Foundation
import TesseraSDK

/// A week's (or a day's) timetable from STAG's `rozvrhovaAkce`: each event is placed on its weekday
/// in the week asked for, if that date falls within its `datumOd`–`datumDo` and the week's parity
/// matches `tydenZkr` (K every, L odd, S even ISO week number).
enum Timetable {
    static let weekdays = ["Po": 0, "Út": 1, "St": 2, "Čt": 3, "Pá": 4, "So": 5, "Ne": 6]

    static var calendar: Calendar {
        var c = Calendar(identifier: .iso8601)
        c.timeZone = ISO.prague
        return c
    }

    /// The week a timetable call asks for: its Monday, STAG's `datumOd`/`datumDo`, and the one day
    /// when only a day was asked for.
    struct Week {
        let monday: Date
        let from: String
        let to: String
        let onlyDay: Date?

        init(_ input: TimetableInput, now: Date) throws {
            var date = now
            if let text = input.date {
                guard let parsed = ISO.parseDay(text) else { throw PluginError(.invalidInput, "a date is yyyy-MM-dd", field: "$.date") }
                date = parsed
            }
            monday = Timetable.monday(of: date)
            let stag = DateFormatter()
            stag.locale = Locale(identifier: "en_US_POSIX")
            stag.timeZone = ISO.prague
            stag.dateFormat = "d.M.yyyy"
            from = stag.string(from: monday)
            to = stag.string(from: monday.addingTimeInterval(6 * 86400 + 3600))
            onlyDay = input.day == true ? date : nil
        }
    }

    /// The Monday starting the week that holds `date`.
    static func monday(of date: Date) -> Date {
        calendar.dateInterval(of: .weekOfYear, for: date)?.start ?? date
    }

    /// Minutes from `13:00` to `14:40` (100); `nil` if either is missing or unreadable.
    static func duration(from start: String?, to end: String?) -> Int? {
        func minutes(_ text: String?) -> Int? {
            let parts = (text ?? "").split(separator: ":").compactMap { Int($0) }
            return parts.count >= 2 ? parts[0] * 60 + parts[1] : nil
        }
        guard let from = minutes(start), let to = minutes(end), to >= from else { return nil }
        return to - from
    }

    /// The order of a day's classes (spec §5.1.4): by start, then name; classes at the same time
    /// by subject code, kind and IS/STAG's id, so the order never depends on the order IS/STAG sent.
    static func inOrder(_ a: JSONValue, _ b: JSONValue) -> Bool {
        func key(_ e: JSONValue) -> [String] {
            [e["date"]?.stringValue ?? "", e["start"]?.stringValue ?? "", e["subjectName"]?.stringValue ?? "", e["subject"]?.stringValue ?? "",
             e["kind"]?.stringValue ?? "", String(format: "%012lld", e["id"]?.integerValue ?? 0)]
        }
        return key(a).lexicographicallyPrecedes(key(b))
    }

    /// The ISO week number of `date` in Prague, and its parity (`odd`/`even`).
    static func weekAndParity(of date: Date) -> (Int, String) {
        let number = calendar.component(.weekOfYear, from: date)
        return (number, number % 2 == 0 ? "even" : "odd")
    }

    static func week(_ raw: JSONValue, monday: Date, onlyDay: Date?) -> JSONValue {
        let (number, parity) = weekAndParity(of: monday)
        var events: [JSONValue] = []
        for item in raw["rozvrhovaAkce"]?.arrayValue ?? [] {
            guard let offset = weekdays[item["denZkr"]?.stringValue ?? item["den"]?.stringValue ?? ""],
                  let date = calendar.date(byAdding: .day, value: offset, to: monday) else { continue }
            if let only = onlyDay, !calendar.isDate(only, inSameDayAs: date) { continue }
            switch item["tydenZkr"]?.stringValue {
            case "L" where parity != "odd", "S" where parity != "even": continue
            default: break
            }
            if let from = ISO.stag(item["datumOd"]), date < calendar.startOfDay(for: from) { continue }
            if let to = ISO.stag(item["datumDo"]), date > to { continue }
            if item["nekonaSe"]?.boolValue == true || item["nekonaSe"]?.stringValue == "A" { continue }
            let teacher = item["ucitel"].flatMap { $0 == .null ? nil : Mapping.person($0) }
            let start = item["hodinaSkutOd"]?["value"]?.stringValue, end = item["hodinaSkutDo"]?["value"]?.stringValue
            events.append(["date": .string(ISO.day(date)), "start": start.map(JSONValue.string) ?? .null, "end": end.map(JSONValue.string) ?? .null,
                           "durationMinutes": duration(from: start, to: end).map { .integer(Int64($0)) } ?? .null,
                           "id": item["roakIdno"] ?? .null,
                           "subject": .string(Mapping.subject(item, code: "predmet")), "subjectName": item["nazev"] ?? .null,
                           "kind": item["typAkce"] ?? .null, "kindShort": item["typAkceZkr"] ?? .null,
                           "room": .string("\(item["budova"]?.stringValue ?? "") \(item["mistnost"]?.stringValue ?? "")"),
                           "teacher": teacher.map(JSONValue.string) ?? .null, "weeks": item["tyden"] ?? .null])
        }
        events.sort(by: inOrder)
        return ["week": .integer(Int64(number)), "parity": .string(parity), "from": .string(ISO.day(monday)),
                "events": .array(events)]
    }
}
