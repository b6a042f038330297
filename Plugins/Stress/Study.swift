import Foundation
import TesseraSDK

/// The participant's study over the module's capabilities: account and consent, the programme,
/// the questionnaires, the diary, the content and the reminders, each in its own file as an
/// extension. Every operation reads one ``Snapshot`` of the participant's records, checks its rules
/// against it, and writes in one batch, so a refused call writes nothing.
struct Study: Sendable {
    let storage: any PluginStorage
    let clock: any HostClock
    let notifications: (any PluginNotifications)?
    let config: StudyConfig
    /// The installed pack, decoded once per version.
    let contentCache = ContentCache()

    /// The participant's records that the rules depend on, read together.
    struct Snapshot: Sendable {
        var state: AccountState
        var consentAt: Date?
        var submissions: [String: Submission]
        var evaluated: Set<Int>
        var settings: Settings
        var progress: [String: String]
        var content: ContentPack

        func submittedAt(_ form: String) -> Date? { submissions[form]?.at }
    }

    struct Submission: Sendable { var at: Date; var data: JSONValue }

    enum AccountState: String, Sendable { case registered, active, revoked }

    func snapshot() async throws -> Snapshot {
        let participant = try await storage.query("SELECT state, consent_at FROM participant WHERE id = 'me'").first
        var submissions: [String: Submission] = [:]
        for row in try await storage.query("SELECT id, submitted_at, data FROM submissions") {
            guard let id = row["id"].text, let at = row["submitted_at"].text.flatMap(Date.init(iso:)) else { continue }
            submissions[id] = Submission(at: at, data: (try? JSONValue(parsing: row["data"].text ?? "{}")) ?? [:])
        }
        let evaluated = Set(try await storage.query("SELECT week FROM evaluations").compactMap { $0["week"].integer.map(Int.init) })
        var progress: [String: String] = [:]
        for row in try await storage.query("SELECT id, value FROM progress") { progress[row["id"].text ?? ""] = row["value"].text ?? "" }
        return Snapshot(state: AccountState(rawValue: participant?["state"].text ?? "") ?? .registered,
                        consentAt: participant?["consent_at"].text.flatMap(Date.init(iso:)),
                        submissions: submissions, evaluated: evaluated, settings: try await settings(),
                        progress: progress, content: try await content())
    }

    /// The snapshot of an active participant: refuses a cancelled account and one without consent.
    func activeSnapshot() async throws -> Snapshot {
        let snapshot = try await snapshot()
        switch snapshot.state {
        case .active: return snapshot
        case .revoked: throw PluginError.refused(.accountRevoked, "the account was cancelled and its data deleted; it cannot be used again")
        case .registered: throw PluginError.refused(.consentRequired, "give informed consent first (consent-give)")
        }
    }

    /// The programme as it stands now for `snapshot`.
    func programme(_ snapshot: Snapshot) -> Programme {
        Programme(snapshot: snapshot, now: clock.now(), config: config, calendar: LocalCalendar(timeZone: snapshot.settings.timeZone))
    }

    func calendar(_ snapshot: Snapshot) -> LocalCalendar { LocalCalendar(timeZone: snapshot.settings.timeZone) }

    /// A new record id: time-ordered, so that rows sort by creation.
    func newID() -> String {
        let millis = UInt64(max(0, clock.now().timeIntervalSince1970 * 1000))
        return String(millis, radix: 16).leftPadded(to: 12) + "-" + UUID().uuidString.lowercased().prefix(8)
    }
}

/// The operator's settings for the study (the deployment's `config` for this module).
struct StudyConfig: Sendable {
    /// Days between weeks (§3.2: 6 by default).
    var unlockDelayDays = 6
    /// What the delay counts from: the day the previous week started (`start`, the spec's
    /// proposal) or the moment it was completed (`completion`).
    var unlockAnchor = "start"
    /// The last day of the study (`YYYY-MM-DD`), as the research server's deadline (F17).
    var deadline: String?
    /// Without a deadline: the study lasts this many days from the entry questionnaires.
    var studyLengthDays = 42

    init(_ config: JSONValue) {
        if let days = config["unlockDelayDays"]?.integerValue { unlockDelayDays = Int(days) }
        if let anchor = config["unlockAnchor"]?.stringValue { unlockAnchor = anchor }
        deadline = config["deadline"]?.stringValue
        if let days = config["studyLengthDays"]?.integerValue { studyLengthDays = Int(days) }
    }
}

extension String {
    func leftPadded(to length: Int) -> String { count >= length ? self : String(repeating: "0", count: length - count) + self }
}
