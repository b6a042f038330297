import TesseraSDK
import TesseraSQLite
import TesseraSystem

/// The hub's embedded store: one SQLite file (`<data>/hub.sqlite`, WAL, `synchronous=FULL`, so an
/// acknowledged push survives a crash), for a hub that runs as one process.
///
/// Transactions take turns on the one connection (`BEGIN IMMEDIATE`), so writers are serial and
/// ``HubSQL/lock(_:)`` has nothing to do.
public final class SQLiteHubDatabase: HubDatabase, @unchecked Sendable {
    /// The file's path.
    public let path: String
    // Used only by the transaction that holds `gate`: that is what makes this class Sendable.
    private let connection: SQLiteConnection
    private let gate = SerialGate()

    /// Opens (creating if needed) the file at `path`.
    public init(path: String) throws {
        self.path = path
        connection = try SQLiteConnection(path: path)
    }

    public var dialect: HubSQLDialect { .sqlite }
    public var location: String { path }

    public func transaction<T: Sendable>(_ body: (any HubSQL) async throws -> T) async throws -> T {
        try await gate.run {
            try connection.execute("BEGIN IMMEDIATE TRANSACTION")
            do {
                let result = try await body(Transaction(connection: connection))
                try connection.execute("COMMIT TRANSACTION")
                return result
            } catch {
                connection.rollback()
                throw error
            }
        }
    }

    /// The connection inside one transaction; statements are prepared once and cached.
    private struct Transaction: HubSQL {
        let connection: SQLiteConnection

        func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
            try connection.cachedStatement(sql).execute(arguments)
            return connection.changes
        }

        func fetchAll(_ sql: String, _ arguments: [SQLValue]) throws -> [[SQLValue]] {
            try connection.cachedStatement(sql).fetchAll(arguments)
        }

        func lock(_ key: String) {}
    }
}
