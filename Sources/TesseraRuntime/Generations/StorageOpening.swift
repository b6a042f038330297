import Synchronization
import TesseraStorage

/// A plugin database being opened on a thread of its own while the plugin's manifest is read and
/// its library loaded, and taken by the start that needs it.
///
/// Not a `Task`: a task that waits on the opening thread is finished, and its awaiter resumed, by
/// jobs on Swift's shared pool; in a restart, timestamps put 24 µs (the median of 25 restarts)
/// between the start asking for a database open long before and holding it (docs/benchmarks.md, "A
/// restart's critical path"). Here the opening thread leaves the database in a box: a start that
/// comes after it takes it at once, and one that comes before waits on a continuation that the
/// opening thread resumes.
final class StorageOpening: Sendable {
    private enum State {
        case opening(waiter: CheckedContinuation<SQLitePluginStorage?, Never>?)
        case opened(SQLitePluginStorage?)
    }

    private let state: Mutex<State>

    /// A database still being opened; ``opened(_:)`` gives it.
    init() { state = Mutex(.opening(waiter: nil)) }

    /// A database open already (a reload keeping the one a plugin had).
    init(_ storage: SQLitePluginStorage?) { state = Mutex(.opened(storage)) }

    /// Gives the opened database (`nil`: it could not be opened) to the start waiting for it, or
    /// keeps it for the start to come. Called once.
    func opened(_ storage: SQLitePluginStorage?) {
        let waiter = state.withLock { state -> CheckedContinuation<SQLitePluginStorage?, Never>? in
            guard case .opening(let waiter) = state else { preconditionFailure("a database opening was given twice") }
            state = .opened(storage)
            return waiter
        }
        waiter?.resume(returning: storage)
    }

    /// Whether a start waits for the database now (for tests).
    var isAwaited: Bool {
        state.withLock { if case .opening(let waiter) = $0 { return waiter != nil } else { return false } }
    }

    /// The database, once opened; at once if it is.
    var value: SQLitePluginStorage? {
        get async {
            if case .opened(let storage) = state.withLock({ $0 }) { return storage }
            return await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> SQLitePluginStorage?? in
                    switch state {
                    case .opened(let storage): return .some(storage)
                    case .opening(let waiter):
                        precondition(waiter == nil, "a database opening is awaited twice")
                        state = .opening(waiter: continuation)
                        return .none
                    }
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}
