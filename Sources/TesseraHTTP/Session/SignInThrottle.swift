import Foundation
import Synchronization

/// Slows down guessing of passwords: after five wrong passwords in a row for a name, that name
/// may not sign in for 30 seconds, and each further wrong one doubles the wait, up to 15 minutes.
/// A right password clears the count. Counted per name (in any case), whether or not an account
/// has it, so the refusals say nothing about which names exist. Kept in memory: a restart forgives.
final class SignInThrottle: Sendable {
    static let freeAttempts = 5
    static let firstWait: TimeInterval = 30
    static let longestWait: TimeInterval = 15 * 60

    private struct Record {
        var failures = 0
        var lockedUntil: Date?
    }
    private let records = Mutex<[String: Record]>([:])

    /// How long `name` must still wait before trying again; `nil` when it may try now.
    func wait(for name: String, now: Date) -> TimeInterval? {
        records.withLock { all in
            guard let until = all[name.lowercased()]?.lockedUntil, until > now else { return nil }
            return until.timeIntervalSince(now)
        }
    }

    /// Counts a wrong password for `name`.
    func failed(_ name: String, now: Date) {
        records.withLock { all in
            var record = all[name.lowercased(), default: Record()]
            record.failures += 1
            let over = record.failures - Self.freeAttempts
            if over >= 0 {
                record.lockedUntil = now.addingTimeInterval(min(Self.longestWait, Self.firstWait * pow(2, Double(min(over, 16)))))
            }
            all[name.lowercased()] = record
        }
    }

    /// Forgets the wrong passwords of `name` (it signed in).
    func succeeded(_ name: String) {
        _ = records.withLock { $0.removeValue(forKey: name.lowercased()) }
    }
}
