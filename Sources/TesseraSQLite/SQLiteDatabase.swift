import Synchronization

/// An ``SQLiteConnection`` behind a mutex: safe to share between threads and tasks.
///
/// Callers take turns: ``withConnection(_:)`` holds the lock for the whole closure, so a transaction
/// run inside it is not interleaved with anyone else's statements. The lock is a plain mutex; do not
/// `await` or call ``withConnection(_:)`` on the same database inside the closure.
///
/// For concurrent reads alongside a writer, open a second `SQLiteDatabase` on the same file with
/// ``SQLiteConnection/OpenMode/readOnly``; in WAL mode readers see the last committed state and never
/// block the writer.
public final class SQLiteDatabase: Sendable {
    /// The path the connection was opened with.
    public let path: String
    /// The mode the connection was opened with.
    public let mode: SQLiteConnection.OpenMode
    private let connection: Mutex<SQLiteConnection>

    /// Opens a connection (see ``SQLiteConnection/init(path:mode:busyTimeout:statementCacheCapacity:)``)
    /// and puts it behind a mutex.
    public convenience init(path: String, mode: SQLiteConnection.OpenMode = .readWriteCreate,
                            busyTimeout: Duration = .seconds(5), statementCacheCapacity: Int = 64) throws {
        let connection = try SQLiteConnection(path: path, mode: mode, busyTimeout: busyTimeout,
                                              statementCacheCapacity: statementCacheCapacity)
        self.init(connection)
    }

    /// Takes ownership of `connection`: after this, use it only through ``withConnection(_:)``.
    public init(_ connection: sending SQLiteConnection) {
        self.path = connection.path
        self.mode = connection.mode
        self.connection = Mutex(connection)
    }

    /// Runs `body` with the connection, holding the lock until it returns.
    public func withConnection<T, E: Error>(_ body: (SQLiteConnection) throws(E) -> sending T) throws(E) -> sending T {
        try connection.withLock { (connection: inout sending SQLiteConnection) throws(E) -> sending T in
            try body(connection)
        }
    }
}
