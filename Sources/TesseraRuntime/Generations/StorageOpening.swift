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
///
/// The grant's storage quota, once the start knows it, is set by the opening thread too, before it
/// hands the database over (``limitSizeWhenOpened(toMegabytes:)``): the commit then finds it set.
/// Its `PRAGMA` took 26–45 µs of a restart's path.
final class StorageOpening: Sendable {
    private enum State {
        case opening(waiter: CheckedContinuation<SQLitePluginStorage?, Never>?, quotaMegabytes: Int?)
        case opened(SQLitePluginStorage?)
    }

    private let state: Mutex<State>

    /// A database still being opened; ``opened(_:)`` gives it.
    init() { state = Mutex(.opening(waiter: nil, quotaMegabytes: nil)) }

    /// A database open already (a reload keeping the one a plugin had).
    init(_ storage: SQLitePluginStorage?) { state = Mutex(.opened(storage)) }

    /// Gives the opened database (`nil`: it could not be opened) to the start waiting for it, or
    /// keeps it for the start to come. Called once.
    func opened(_ storage: SQLitePluginStorage?) {
        let quota = state.withLock { state -> Int? in
            if case .opening(_, let quota) = state { return quota } else { return nil }
        }
        // A quota that fails here is set, or refused, by the commit.
        if let storage, let quota { try? storage.limitSize(toMegabytes: quota) }
        let waiter = state.withLock { state -> CheckedContinuation<SQLitePluginStorage?, Never>? in
            guard case .opening(let waiter, _) = state else { preconditionFailure("a database opening was given twice") }
            state = .opened(storage)
            return waiter
        }
        waiter?.resume(returning: storage)
    }

    /// Asks the opening thread to cap the database at `megabytes` (the grant's `quotaMB`) before
    /// handing it over. A database handed over already is left as it is: the commit sets the quota.
    func limitSizeWhenOpened(toMegabytes megabytes: Int) {
        state.withLock { state in
            if case .opening(let waiter, _) = state { state = .opening(waiter: waiter, quotaMegabytes: megabytes) }
        }
    }

    /// Whether a start waits for the database now (for tests).
    var isAwaited: Bool {
        state.withLock { if case .opening(let waiter, _) = $0 { return waiter != nil } else { return false } }
    }

    /// The database, once opened; at once if it is.
    var value: SQLitePluginStorage? {
        get async {
            if case .opened(let storage) = state.withLock({ $0 }) { return storage }
            return await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> SQLitePluginStorage?? in
                    switch state {
                    case .opened(let storage): return .some(storage)
                    case .opening(let waiter, let quota):
                        precondition(waiter == nil, "a database opening is awaited twice")
                        state = .opening(waiter: continuation, quotaMegabytes: quota)
                        return .none
                    }
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}
