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

    static func week(_ raw: JSONValue, monday: Date, onlyDay: Date?) -> JSONValue {
        let number = calendar.component(.weekOfYear, from: monday)
        let parity = number % 2 == 0 ? "even" : "odd"
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
            let teacher = item["ucitel"].map { "\($0["titulPred"]?.stringValue.map { $0 + " " } ?? "")\($0["jmeno"]?.stringValue ?? "") \($0["prijmeni"]?.stringValue ?? "")" }
            events.append(["date": .string(ISO.day(date)), "start": item["hodinaSkutOd"]?["value"] ?? .null,
                           "end": item["hodinaSkutDo"]?["value"] ?? .null,
                           "subject": .string(Mapping.subject(item, code: "predmet")), "subjectName": item["nazev"] ?? .null,
                           "kind": item["typAkce"] ?? .null, "room": .string("\(item["budova"]?.stringValue ?? "") \(item["mistnost"]?.stringValue ?? "")"),
                           "teacher": teacher.map(JSONValue.string) ?? .null, "weeks": item["tyden"] ?? .null])
        }
        events.sort { ($0["date"]?.stringValue ?? "", $0["start"]?.stringValue ?? "") < ($1["date"]?.stringValue ?? "", $1["start"]?.stringValue ?? "") }
        return ["week": .integer(Int64(number)), "parity": .string(parity), "from": .string(ISO.day(monday)),
                "events": .array(events)]
    }
}
