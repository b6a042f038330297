import Foundation
import TesseraSDK

/// Where a plugin's code runs and, in the process tier, how its child fares: what
/// `GET /v1/plugins`, `tessera plugins list --json` and the console show beside the state, so an
/// operator sees a crash loop coming before the quarantine (docs/isolation.md).
public struct IsolationStatus: Sendable, Equatable {
    /// `inProcess` or `process`.
    public var tier: String
    /// The serving child's process id; `nil` while none serves (crashed, waiting, quarantined).
    public var pid: Int32?
    /// Crashes counted in the policy's window (towards quarantine).
    public var recentCrashes: Int = 0
    /// The last crash, in words.
    public var lastCrash: String?
    /// When the next restart is due, while the plugin waits out a backoff.
    public var restartAt: Date?
    /// Why it is quarantined, while it is.
    public var quarantined: String?
    /// File writers the child holds open in the host.
    public var openFileWriters: Int = 0

    /// A plugin in the host's process: nothing more to say.
    public static let inProcess = IsolationStatus(tier: "inProcess")

    public var json: JSONValue {
        var o: [String: JSONValue] = ["tier": .string(tier)]
        guard tier == "process" else { return .object(o) }
        o["recentCrashes"] = .integer(Int64(recentCrashes))
        o["openFileWriters"] = .integer(Int64(openFileWriters))
        if let pid { o["pid"] = .integer(Int64(pid)) }
        if let lastCrash { o["lastCrash"] = .string(lastCrash) }
        if let restartAt { o["restartAt"] = .string(restartAt.ISO8601Format()) }
        if let quarantined { o["quarantined"] = .string(quarantined) }
        return .object(o)
    }

    public init(tier: String) { self.tier = tier }

    /// The status read back from its ``json``, or `nil` if it is not one.
    public init?(json: JSONValue?) {
        guard let tier = json?["tier"]?.stringValue else { return nil }
        self.tier = tier
        pid = json?["pid"]?.integerValue.map { Int32($0) }
        recentCrashes = Int(json?["recentCrashes"]?.integerValue ?? 0)
        lastCrash = json?["lastCrash"]?.stringValue
        restartAt = json?["restartAt"]?.stringValue.flatMap { try? Date($0, strategy: .iso8601) }
        quarantined = json?["quarantined"]?.stringValue
        openFileWriters = Int(json?["openFileWriters"]?.integerValue ?? 0)
    }
}

extension ProcessPlugin {
    /// The process tier's part of the plugin's status.
    var isolationStatus: IsolationStatus {
        state.withLock { s in
            var status = IsolationStatus(tier: "process")
            status.pid = s.child?.pid
            let now = clock.now()
            status.recentCrashes = s.crashes.filter { now.timeIntervalSince($0) < policy.crashWindow }.count
            status.lastCrash = s.lastCrash
            status.restartAt = s.child == nil && s.quarantined == nil ? s.restartAt : nil
            status.quarantined = s.quarantined
            status.openFileWriters = fileWriters.count
            return status
        }
    }
}
