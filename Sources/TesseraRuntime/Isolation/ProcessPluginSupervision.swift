import Foundation
import Synchronization
import TesseraIsolation
import TesseraSDK

/// Crash containment for ``ProcessPlugin``: what a child's end does, when the plugin restarts,
/// quarantine and the operator's restart (docs/isolation.md, "Restart policy").
extension ProcessPlugin {
    /// The serving child; starts a new one if a crash's backoff has passed. Throws `unavailable`
    /// while the plugin waits out its backoff, or is quarantined.
    func serving() async throws -> PluginChild {
        while true {
            enum Next { case child(PluginChild), wait(Task<PluginChild, any Error>), refuse(PluginError) }
            let next = state.withLock { s -> Next in
                if let reason = s.quarantined {
                    return .refuse(PluginError(.unavailable, "plugin '\(manifest.id)' is quarantined: \(reason)"))
                }
                if let child = s.child { return .child(child) }
                if let restarting = s.restarting { return .wait(restarting) }
                if s.stopping { return .refuse(PluginError(.unavailable, "plugin '\(manifest.id)' is stopping")) }
                if let at = s.restartAt, clock.now() < at {
                    return .refuse(PluginError(.unavailable, "plugin '\(manifest.id)' crashed (\(s.lastCrash ?? "")); it restarts at \(at.ISO8601Format())"))
                }
                let task = Task { try await self.respawn() }
                s.restarting = task
                return .wait(task)
            }
            switch next {
            case .child(let child): return child
            case .refuse(let error): throw error
            case .wait(let task):
                do {
                    _ = try await task.value
                    state.withLock { if $0.restarting == task { $0.restarting = nil } }
                } catch {
                    // A restart that fails is a crash like any other: it counts towards quarantine.
                    let reason = "restart failed: \(error)"
                    let ended = state.withLock { s -> Bool in
                        guard s.restarting == task else { return false }
                        s.restarting = nil
                        return true
                    }
                    if ended { _ = recordCrash(reason) }
                    throw PluginError(.unavailable, "plugin '\(manifest.id)' could not restart: \(error)")
                }
            }
        }
    }

    /// The child's socket closed and it was reaped (on its reader thread). Returns the error the
    /// calls still waiting for it fail with.
    func childExited(_ child: PluginChild, _ exit: ChildExit) -> any Error {
        let current = state.withLock { s -> Bool in
            guard s.child === child else { return false }
            s.child = nil
            return !s.stopping
        }
        if current { fileWriters.cancelAll() }
        let what = "its process \(child.pid) \(sandbox.describe(exit))"
        // A child the host stopped, or killed at a deadline (counted there), is no new crash.
        guard current else { return PluginError(.pluginCrashed, "plugin '\(manifest.id)': \(what)") }
        let next = recordCrash(what)
        return PluginError(.pluginCrashed, "plugin '\(manifest.id)' crashed while answering: \(what); \(next)")
    }

    /// Counts a crash in the window; schedules the restart after its backoff, or quarantines.
    /// Returns what happens next, in words.
    func recordCrash(_ reason: String) -> String {
        let now = clock.now()
        let (count, quarantined, restartAt) = state.withLock { s -> (Int, Bool, Date?) in
            s.crashes = s.crashes.filter { now.timeIntervalSince($0) < policy.crashWindow } + [now]
            s.lastCrash = reason
            if s.crashes.count >= policy.quarantineAfter {
                s.quarantined = "\(s.crashes.count) crashes within \(Self.seconds(policy.crashWindow)); last: \(reason)"
                return (s.crashes.count, true, nil)
            }
            let at = now.addingTimeInterval(policy.backoff(afterCrash: s.crashes.count))
            s.restartAt = at
            return (s.crashes.count, false, at)
        }
        hostLog(.error, manifest.id, "process tier: \(reason) (crash \(count) within \(Self.seconds(policy.crashWindow)))")
        if quarantined {
            let why = state.withLock { $0.quarantined } ?? reason
            onQuarantine(why)
            return "quarantined until an operator restarts it"
        }
        guard let restartAt else { return "" }
        // Restart eagerly once the backoff has passed on the host's clock; a call that comes
        // first starts it instead (``serving()``), and either waits for the other.
        Task { [weak self, clock] in
            try? await clock.sleep(until: restartAt)
            _ = try? await self?.serving()  // a restart that fails is a crash of its own, handled there
        }
        return "it restarts in \(Self.seconds(restartAt.timeIntervalSince(now)))"
    }

    /// The operator's restart of a quarantined (or crashed) plugin: the crash record is cleared
    /// and a new child started now.
    func operatorRestart() async throws {
        state.withLock { s in
            s.quarantined = nil
            s.crashes = []
            s.restartAt = nil
            s.lastCrash = nil
        }
        _ = try await serving()
    }

    /// The process id of the serving child, if one serves.
    var childPID: pid_t? { state.withLock { $0.child?.pid } }

    /// How many calls of the serving child outlasted their brief wait on a lane and were handed to
    /// the reader thread (``PeerConnection/callsHandedToReader``).
    var callsHandedToReader: Int? { state.withLock { $0.child?.peer.callsHandedToReader } }

    /// Whether the host's callers' polls on the child's lanes have been paying (``PollingPayoff``).
    var callersPollingPayoff: PollingPayoff? { state.withLock { $0.child?.peer.callersPollingPayoff } }

    /// What the latest child's sandbox enforces.
    var sandboxReport: SandboxReport { state.withLock { $0.sandboxReport } }

    /// What the status shows of the process tier: the child, crashes, the next restart.
    var isolationNote: String {
        state.withLock { s in
            var parts = ["process tier"]
            if let child = s.child { parts.append("pid \(child.pid)") }
            if !s.crashes.isEmpty { parts.append("\(s.crashes.count) recent crashes") }
            if let at = s.restartAt, s.child == nil, s.quarantined == nil { parts.append("restarts at \(at.ISO8601Format())") }
            return parts.joined(separator: ", ")
        }
    }
}
