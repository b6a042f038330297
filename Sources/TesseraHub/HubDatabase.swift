import TesseraSDK

/// The database the hub's store runs on (DESIGN.md §7): its embedded SQLite file
/// (``SQLiteHubDatabase``), or a PostgreSQL database that several hub replicas share
/// (`TesseraHubPostgres`).
///
/// The store writes SQL both understand: `?` placeholders, `ON CONFLICT` upserts, integers, text
/// and blobs. What differs between them — how writers are serialised — lives behind this protocol;
/// the tables' types differ per ``dialect`` in the hub's migrations (`HubMigrations`).
public protocol HubDatabase: Sendable {
    /// Which SQL the database speaks: the hub's migrations are written in each.
    var dialect: HubSQLDialect { get }

    /// The database, for messages: a file's path, or PostgreSQL's database and server.
    var location: String { get }

    /// Runs `body` in one transaction: everything it wrote commits when it returns, nothing when
    /// it throws (the error is rethrown as it is).
    func transaction<T: Sendable>(_ body: (any HubSQL) async throws -> T) async throws -> T
}

/// The SQL a ``HubDatabase`` speaks.
public enum HubSQLDialect: Sendable, Hashable {
    case sqlite
    case postgresql
}

/// One open transaction of a ``HubDatabase``.
public protocol HubSQL {
    /// Runs one statement with `arguments` bound to its `?` placeholders, in order; returns the
    /// number of rows it inserted, updated or deleted.
    @discardableResult
    func execute(_ sql: String, _ arguments: [SQLValue]) async throws -> Int

    /// Runs one query and returns all its rows.
    func fetchAll(_ sql: String, _ arguments: [SQLValue]) async throws -> [[SQLValue]]

    /// Holds the lock named `key` until the transaction ends, waiting for any other transaction
    /// that holds it. Writers that must not interleave take the same key: pushes of one plugin
    /// (so that arrival numbers commit in the order they are handed out, and a pull's cursor never
    /// skips a change that committed late). The embedded store's writers are serial already.
    func lock(_ key: String) async throws

    /// Asks the database to read the rest of this transaction's pages in index order rather than
    /// sort them: keyset pages (`seq > ? ORDER BY seq LIMIT ?`) must cost a page, not the whole
    /// log. PostgreSQL's planner sorts every matching change when a freshly filled table has no
    /// statistics yet; SQLite's already walks the index (the default does nothing).
    func preferOrderedScans() async throws
}

extension HubSQL {
    public func preferOrderedScans() async throws {}

    /// The first row of a query, or `nil`.
    func fetchOne(_ sql: String, _ arguments: [SQLValue] = []) async throws -> [SQLValue]? {
        try await fetchAll(sql, arguments).first
    }
}
