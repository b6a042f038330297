import Foundation
import TesseraSDK

/// The module's working parts, handed to every area's handlers: the granted capabilities, the
/// operator's config and the person using this device. Areas are extensions of it, one file each.
struct Diary: Sendable {
    let storage: any PluginStorage
    let clock: any HostClock
    let notifications: (any PluginNotifications)?
    let files: (any PluginFiles)?
    let sync: (any PluginSync)?
    /// Publishing to other modules (`Events.swift`); nil without the `events` grant.
    var events: (any PluginEvents)? = nil
    let config: BabyConfig
    /// Whether the old schema's photo lists were moved into rows (`RecordPhotos.swift`).
    let legacyPhotoLists = LegacyPhotoLists()

    /// Rows of a child go to the child's space when the module syncs; without sync there is one
    /// person on one device and everything is that person's own.
    var shares: Bool { sync != nil }

    var dates: LocalDates { LocalDates(timeZone: config.timeZone) }

    /// Writes `build`'s rows in `space` (a child's id) when the module syncs.
    func write(in space: String?, _ build: (inout WriteBatch) throws -> Void) async throws {
        try await storage.write { batch in
            if shares, let space { batch.inSpace(space) }
            try build(&batch)
        }
    }

    func query(_ sql: String, _ parameters: [SQLValue] = []) async throws -> [Row] {
        try await storage.query(sql, parameters)
    }

    /// A new record id, unique on every device without asking anyone: time-ordered, so the diary's
    /// new entries sit side by side at the end of every index keyed by id (``RecordID``).
    func newID() -> String { RecordID.timeOrdered(at: clock.now()) }

    /// Now, as stored in `created_at`: UTC with milliseconds.
    func stamp() -> String { clock.now().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)) }
}

/// The operator's settings (the manifest's `config`): the insurer list (UC13: only from a preset
/// list the operator edits when an insurer closes, is renamed or added), the allergen presets and
/// the time zone dates are read in.
struct BabyConfig: Sendable {
    struct Insurer: Sendable, Hashable { var code: String; var name: String }

    var insurers: [Insurer]
    var allergens: [String]
    var timeZone: TimeZone

    static let defaultInsurers = [
        Insurer(code: "111", name: "Všeobecná zdravotní pojišťovna ČR"),
        Insurer(code: "201", name: "Vojenská zdravotní pojišťovna ČR"),
        Insurer(code: "205", name: "Česká průmyslová zdravotní pojišťovna"),
        Insurer(code: "207", name: "Oborová zdravotní pojišťovna zaměstnanců bank, pojišťoven a stavebnictví"),
        Insurer(code: "209", name: "Zaměstnanecká pojišťovna Škoda"),
        Insurer(code: "211", name: "Zdravotní pojišťovna ministerstva vnitra ČR"),
        Insurer(code: "213", name: "RBP, zdravotní pojišťovna"),
    ]
    static let defaultAllergens = ["pyl", "roztoči", "mléko", "vejce", "arašídy", "ořechy", "lepek", "penicilin", "včelí bodnutí", "srst"]

    init(_ config: JSONValue) {
        insurers = config["insurers"]?.arrayValue?.compactMap { item in
            guard let code = item["code"]?.stringValue, let name = item["name"]?.stringValue else { return nil }
            return Insurer(code: code, name: name)
        } ?? Self.defaultInsurers
        allergens = config["allergens"]?.arrayValue?.compactMap(\.stringValue) ?? Self.defaultAllergens
        timeZone = config["timeZone"]?.stringValue.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "Europe/Prague")!
    }
}
