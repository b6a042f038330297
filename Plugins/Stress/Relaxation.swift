import Foundation
import TesseraSDK

/// Week 2 (F10): intro pages shown once, then technique pages and a stopwatch on the host's clock.
/// The first session stopped completes the week with its length in seconds (A3's
/// `relaxationDurationInSeconds`); later sessions are practice, logged without touching that
/// record (the week is repeatable, L1345). A session left running stops itself after an hour,
/// through a host timer, so that a forgotten stopwatch cannot count a day of relaxing.
extension Study {
    static let relaxationCapSeconds = 3600
    static let capTimer = "relaxation-cap"

    struct RelaxationContent: Encodable, Sendable {
        struct Page: Encodable, Sendable { var title: String; var text: String }
        var introRead: Bool
        var introPages: [Page]?
        var techniques: [Page]
        var runningSince: String?
    }

    func relaxationContent(_ s: Snapshot) -> RelaxationContent {
        let language = s.settings.language
        let pages = { (pages: [ContentPack.Page]) in pages.map { RelaxationContent.Page(title: $0.title.text(language), text: $0.text.text(language)) } }
        let introRead = s.progress["relaxationIntroRead"] != nil
        return RelaxationContent(introRead: introRead, introPages: introRead ? nil : pages(s.content.relaxation.intro),
                                 techniques: pages(s.content.relaxation.techniques), runningSince: s.progress["relaxationRunningSince"])
    }

    struct RelaxationStatus: Encodable, Sendable {
        var running: Bool
        var runningSince: String?
        var elapsedSeconds: Int?
        var completed: Bool
        var firstSeconds: Int?
        var practiceSessions: Int
        var practiceSeconds: Int
    }

    func relaxationStatus() async throws -> RelaxationStatus {
        let s = try await activeSnapshot()
        let since = s.progress["relaxationRunningSince"].flatMap(Date.init(iso:))
        let totals = try await relaxationTotals()
        return RelaxationStatus(running: since != nil, runningSince: since?.iso,
                                elapsedSeconds: since.map { Int(clock.now().timeIntervalSince($0)) },
                                completed: s.submissions["week-1"] != nil, firstSeconds: totals.relaxationDurationInSeconds,
                                practiceSessions: totals.practiceSessions, practiceSeconds: totals.practiceSeconds)
    }

    struct RelaxationTotals: Encodable, Sendable { var relaxationDurationInSeconds: Int?; var practiceSessions: Int; var practiceSeconds: Int }

    func relaxationTotals() async throws -> RelaxationTotals {
        let rows = try await storage.query("SELECT seconds, completes_week FROM relaxation_sessions")
        let first = rows.first { $0["completes_week"].integer == 1 }?["seconds"].integer.map(Int.init)
        let practice = rows.filter { $0["completes_week"].integer != 1 }.compactMap { $0["seconds"].integer.map(Int.init) }
        return RelaxationTotals(relaxationDurationInSeconds: first, practiceSessions: practice.count, practiceSeconds: practice.reduce(0, +))
    }

    func markIntroRead() async throws -> RelaxationStatus {
        let s = try await activeSnapshot()
        if s.submissions["week-1"] == nil { _ = try requireOpen(1, s) }
        let now = clock.now()
        try await storage.write { $0.put("progress", id: "relaxationIntroRead", ["value": .text(now.iso)]) }
        return try await relaxationStatus()
    }

    /// Starts the stopwatch: in the open week 2, or for practice once it is completed.
    func startRelaxation() async throws -> RelaxationStatus {
        let s = try await activeSnapshot()
        if s.submissions["week-1"] == nil { _ = try requireOpen(1, s) }
        guard s.progress["relaxationIntroRead"] != nil else {
            throw PluginError.refused(.introNotRead, "read the introduction first (relaxation-intro-read)")
        }
        guard s.progress["relaxationRunningSince"] == nil else { throw PluginError.refused(.timerRunning, "the stopwatch is already running") }
        let now = clock.now()
        try await storage.write { $0.put("progress", id: "relaxationRunningSince", ["value": .text(now.iso)]) }
        try await clock.schedule(TimerRequest(key: Self.capTimer, name: Self.capTimer,
                                              fireAt: now.addingTimeInterval(TimeInterval(Self.relaxationCapSeconds))))
        return try await relaxationStatus()
    }

    /// Stops the stopwatch. The first session completes week 2; later ones are practice.
    func stopRelaxation(capped: Bool = false) async throws -> Completion {
        let s = try await activeSnapshot()
        guard let since = s.progress["relaxationRunningSince"].flatMap(Date.init(iso:)) else {
            throw PluginError.refused(.noTimerRunning, "the stopwatch is not running (relaxation-start)")
        }
        let now = clock.now()
        let seconds = min(Self.relaxationCapSeconds, max(0, Int(now.timeIntervalSince(since))))
        let completes = s.submissions["week-1"] == nil
        let id = newID()
        try await storage.write { batch in
            batch.delete("progress", id: "relaxationRunningSince")
            batch.put("relaxation_sessions", id: id, ["started_at": .text(since.iso), "stopped_at": .text(now.iso), "seconds": .integer(Int64(seconds)),
                                                      "completes_week": .integer(completes ? 1 : 0), "capped": .integer(capped ? 1 : 0)])
            if completes { batch.put("submissions", id: "week-1", ["submitted_at": .text(now.iso)]) }
        }
        if !capped { try await clock.cancelTimer(key: Self.capTimer) }
        // A later session is practice: the week's completion stays the first session's.
        let completedAt = completes ? now : (s.submissions["week-1"]?.at ?? now)
        return try await completion(1, at: completedAt, seconds: seconds, completesWeek: completes)
    }

    /// The hour is up: the session stops itself (if the account still exists and it still runs).
    func relaxationCapReached() async throws {
        let s = try await snapshot()
        guard s.state == .active, s.progress["relaxationRunningSince"] != nil else { return }
        _ = try await stopRelaxation(capped: true)
    }
}
