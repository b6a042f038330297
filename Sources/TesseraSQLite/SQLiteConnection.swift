import CSQLite
import CTesseraSQLiteSetup
import TesseraSDK

/// One connection to an SQLite database file (`sqlite3*`), closed when the last reference goes away.
///
/// The connection is opened with `SQLITE_OPEN_NOMUTEX`, so it is **not thread-safe**: use it from one
/// thread at a time. To share one between threads or tasks, wrap it in an ``SQLiteDatabase``.
///
/// A writable connection (``OpenMode/readWriteCreate``, ``OpenMode/readWrite``) is configured on open
/// for durability and integrity:
/// - `journal_mode=WAL`: a commit appends to the write-ahead log; readers are not blocked by the writer;
/// - `synchronous=FULL`: every commit fsyncs the log before it returns, so a committed transaction
///   survives a process kill and a power loss;
/// - `foreign_keys=ON`: declared foreign keys are enforced.
///
/// Every connection gets a busy timeout, so a lock held briefly by another connection is waited for
/// instead of failing with `SQLITE_BUSY` at once.
public final class SQLiteConnection {
    /// How to open the database file.
    public enum OpenMode: Sendable, Hashable {
        /// Read and write; create the file if it does not exist.
        case readWriteCreate
        /// Read and write an existing file.
        case readWrite
        /// Read only (`SQLITE_OPEN_READONLY`): every write fails with `SQLITE_READONLY`.
        case readOnly

        /// Whether connections in this mode may write.
        public var isWritable: Bool { self != .readOnly }
    }

    /// The kind of lock a transaction takes when it begins.
    public enum TransactionKind: String, Sendable {
        /// `BEGIN DEFERRED`: no lock until the first read or write.
        case deferred = "DEFERRED"
        /// `BEGIN IMMEDIATE`: take the write lock now, so the transaction cannot fail later with
        /// `SQLITE_BUSY` when it first writes. The right choice for read-modify-write.
        case immediate = "IMMEDIATE"
        /// `BEGIN EXCLUSIVE`: like immediate (in WAL mode).
        case exclusive = "EXCLUSIVE"
    }

    /// The path the connection was opened with.
    public let path: String
    /// The mode the connection was opened with.
    public let mode: OpenMode
    /// The `sqlite3*` handle, for calling the C API directly. Do not close it.
    public let handle: OpaquePointer

    private var cache: [String: CachedStatement] = [:]
    private var cacheClock: UInt64 = 0
    private let cacheCapacity: Int
    private var authorizer: AuthorizerBox?

    /// SQLite's process-wide settings, made once before the first connection opens: each
    /// connection's page cache grows page by page as it reads, instead of starting with 20 pages
    /// (about 86 KB) allocated. `tessera serve` holds a dozen databases, most of them idle, and those
    /// first pages were 0.9 MB of its heap (docs/benchmarks.md, "What a first start held").
    private static let processSettings: Void = { _ = tessera_sqlite_pages_on_demand() }()

    private struct CachedStatement {
        let statement: Statement
        var lastUse: UInt64
    }

    /// Opens (and for ``OpenMode/readWriteCreate`` creates) the database at `path`.
    ///
    /// - Parameters:
    ///   - path: a file path, or `":memory:"` for a private in-memory database.
    ///   - mode: read-write-create (default), read-write, or read-only.
    ///   - busyTimeout: how long a statement waits for a lock held by another connection before it
    ///     fails with `SQLITE_BUSY`.
    ///   - statementCacheCapacity: how many statements ``cachedStatement(_:)`` keeps; the least
    ///     recently used is finalized beyond that.
    /// - Throws: ``SQLiteError`` if the file cannot be opened or configured (for a writable database,
    ///   also if WAL mode cannot be enabled, e.g. on a file system without shared memory).
    public init(path: String, mode: OpenMode = .readWriteCreate, busyTimeout: Duration = .seconds(5),
                statementCacheCapacity: Int = 64) throws {
        self.path = path
        self.mode = mode
        self.cacheCapacity = max(1, statementCacheCapacity)
        var flags = SQLITE_OPEN_NOMUTEX
        switch mode {
        case .readWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        }
        _ = Self.processSettings
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let error = SQLiteError(connection: db, resultCode: rc, sql: nil)
            let described = SQLiteError(extendedCode: error.extendedCode,
                                        message: "cannot open \(path): \(error.message)")
            sqlite3_close_v2(db)
            throw described
        }
        self.handle = db
        sqlite3_extended_result_codes(db, 1)
        let milliseconds = max(0, min(Int64(Int32.max), Int64((busyTimeout.timeInterval * 1000).rounded())))
        sqlite3_busy_timeout(db, Int32(milliseconds))
        if mode.isWritable {
            // Checked: journal_mode answers the mode in force, which stays the old one if WAL is refused.
            let journal = try fetchOne("PRAGMA journal_mode=WAL")?.first?.text?.lowercased()
            guard journal == "wal" || (journal == "memory" && (path == ":memory:" || path.isEmpty)) else {
                throw SQLiteError(extendedCode: SQLITE_ERROR,
                                  message: "cannot enable WAL mode on \(path) (journal mode is \(journal ?? "unknown"))",
                                  sql: "PRAGMA journal_mode=WAL")
            }
            try execute("PRAGMA synchronous=FULL")
            try execute("PRAGMA foreign_keys=ON")
            // Keep the -wal and -shm files when the last connection closes (they are emptied, not
            // deleted): creating and sizing them again is most of the cost of the next open.
            var persist: Int32 = 1
            _ = sqlite3_file_control(handle, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
            // With a size limit set, the last connection to close empties the kept -wal file
            // (SQLite truncates it only then); without one it keeps every frame, and the next
            // open reads them all to rebuild the WAL index: up to the autocheckpoint's 4 MB on
            // every restart. The limit itself is above what a checkpoint lets the WAL reach.
            try execute("PRAGMA journal_size_limit=\(Self.walSizeLimit)")
        }
    }

    /// The `journal_size_limit` of writable connections, in bytes: twice what the default
    /// autocheckpoint (1,000 pages) lets the WAL reach between checkpoints.
    static let walSizeLimit = 8 * 1024 * 1024

    deinit {
        cache.removeAll()  // finalizes the statements nobody else holds
        // close_v2 defers the close until statements still held elsewhere are finalized.
        sqlite3_close_v2(handle)
    }

    private func check(_ rc: Int32, sql: String?) throws {
        guard rc == SQLITE_OK else { throw SQLiteError(connection: handle, resultCode: rc, sql: sql) }
    }

    // MARK: Statements

    /// Compiles exactly one SQL statement.
    ///
    /// - Throws: ``SQLiteError`` for SQL that does not compile (or that an authorizer denies,
    ///   `SQLITE_AUTH`); `SQLITE_MISUSE` if the text holds no statement or more than one (trailing
    ///   whitespace, semicolons and comments are fine).
    public func prepare(_ sql: String) throws -> Statement {
        var stmt: OpaquePointer?
        var extra = false
        let rc = sql.withCString { start -> Int32 in
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v3(handle, start, -1, 0, &stmt, &tail)
            guard rc == SQLITE_OK, let tail, tail.pointee != 0 else { return rc }
            // Something follows the first statement: compile it too, to tell comments from SQL.
            var next: OpaquePointer?
            let rc2 = sqlite3_prepare_v3(handle, tail, -1, 0, &next, nil)
            if next != nil || rc2 != SQLITE_OK { extra = true }
            sqlite3_finalize(next)
            return rc
        }
        guard rc == SQLITE_OK else {
            let error = SQLiteError(connection: handle, resultCode: rc, sql: sql)
            sqlite3_finalize(stmt)
            throw error
        }
        guard let stmt else { throw SQLiteError.misuse("the SQL text holds no statement", sql: sql) }
        if extra {
            sqlite3_finalize(stmt)
            throw SQLiteError.misuse("the SQL text holds more than one statement", sql: sql)
        }
        return Statement(handle: stmt, sql: sql)
    }

    /// The statement for `sql` from this connection's cache, compiled on first use; reset and with
    /// its bindings cleared.
    ///
    /// The cache is keyed by the exact SQL text. Do not use the same cached statement twice at once
    /// (e.g. run it again while stepping through its rows): both uses share one `sqlite3_stmt`.
    public func cachedStatement(_ sql: String) throws -> Statement {
        cacheClock &+= 1
        if var entry = cache[sql] {
            entry.lastUse = cacheClock
            cache[sql] = entry
            entry.statement.reset()
            entry.statement.clearBindings()
            return entry.statement
        }
        let statement = try prepare(sql)
        if cache.count >= cacheCapacity, let oldest = cache.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            cache.removeValue(forKey: oldest.key)
        }
        cache[sql] = CachedStatement(statement: statement, lastUse: cacheClock)
        return statement
    }

    /// Finalizes every cached statement (those still held elsewhere are finalized when released).
    public func clearStatementCache() {
        cache.removeAll()
    }

    /// The number of statements in the cache.
    public var cachedStatementCount: Int { cache.count }

    // MARK: Running SQL

    /// Runs a script of zero or more SQL statements separated by semicolons, in order, each to
    /// completion. Stops at the first failure, whose ``SQLiteError/sql`` is the failing statement.
    ///
    /// Named parameters (`:name`, `@name`, `$name`) take their value from `parameters`, keyed by
    /// the name without its sign; one without a value fails the statement (`SQLITE_RANGE`).
    public func execute(_ script: String, named parameters: [String: SQLiteValue] = [:]) throws {
        try script.withCString { start in
            var next: UnsafePointer<CChar>? = start
            while let current = next, current.pointee != 0 {
                var stmt: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let rc = sqlite3_prepare_v3(handle, current, -1, 0, &stmt, &tail)
                guard rc == SQLITE_OK else {
                    let error = SQLiteError(connection: handle, resultCode: rc, sql: Self.firstStatement(current))
                    sqlite3_finalize(stmt)
                    throw error
                }
                // The statement's text only names it in an error: made when one is thrown (making
                // it for every statement was a tenth of opening a database).
                let text = { Self.text(from: current, to: tail) }
                next = tail
                guard let stmt else { continue }  // whitespace or a comment
                do {
                    try Self.bindNamed(parameters, to: stmt, sql: text)
                } catch {
                    sqlite3_finalize(stmt)
                    throw error
                }
                var step = sqlite3_step(stmt)
                while step == SQLITE_ROW { step = sqlite3_step(stmt) }
                if step != SQLITE_DONE {
                    let error = SQLiteError(connection: handle, resultCode: step, sql: text())
                    sqlite3_finalize(stmt)
                    throw error
                }
                sqlite3_finalize(stmt)
            }
        }
    }

    /// Binds the statement's named parameters from `parameters`; `?` parameters stay `NULL`.
    private static func bindNamed(_ parameters: [String: SQLiteValue], to stmt: OpaquePointer, sql text: () -> String) throws {
        let count = sqlite3_bind_parameter_count(stmt)
        guard count > 0 else { return }
        let sql = text()
        let statement = Statement(unownedHandle: stmt, sql: sql)
        for index in 1...count {
            guard let name = sqlite3_bind_parameter_name(stmt, index).map({ String(String(cString: $0).dropFirst()) }) else { continue }
            guard let value = parameters[name] else {
                throw SQLiteError(extendedCode: SQLITE_RANGE, message: "no value for the parameter :\(name)", sql: sql)
            }
            try statement.bind(value, at: Int(index))
        }
    }

    /// The first complete statement of `text` (up to the first `;` that ends one, by
    /// `sqlite3_complete`), or all of it; used to name a statement that failed to compile.
    private static func firstStatement(_ start: UnsafePointer<CChar>) -> String {
        let all = String(cString: start)
        var prefix = ""
        for ch in all {
            prefix.append(ch)
            if ch == ";", sqlite3_complete(prefix) != 0 {
                return SQLiteError.oneLine(prefix, limit: Int.max)
            }
        }
        return SQLiteError.oneLine(all, limit: Int.max)
    }

    private static func text(from start: UnsafePointer<CChar>, to end: UnsafePointer<CChar>?) -> String {
        guard let end, end > start else { return String(cString: start) }
        let bytes = UnsafeRawPointer(start).assumingMemoryBound(to: UInt8.self)
        let text = String(decoding: UnsafeBufferPointer(start: bytes, count: end - start), as: UTF8.self)
        return SQLiteError.oneLine(text, limit: Int.max)
    }

    /// Runs one statement with `arguments` (through the statement cache) to completion.
    public func execute(_ sql: String, _ arguments: [SQLiteValue]) throws {
        try cachedStatement(sql).execute(arguments)
    }

    /// Runs one statement with `arguments` (through the statement cache) and returns all its rows.
    public func fetchAll(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        try cachedStatement(sql).fetchAll(arguments)
    }

    /// Runs one statement with `arguments` (through the statement cache) and returns its first row.
    public func fetchOne(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> [SQLiteValue]? {
        try cachedStatement(sql).fetchOne(arguments)
    }

    // MARK: Transactions

    /// Whether a transaction is open (the connection is not in autocommit mode).
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in a transaction: `BEGIN IMMEDIATE` (by default) before, `COMMIT` after. If `body`
    /// or the commit throws, the transaction is rolled back and the error rethrown.
    ///
    /// With a writable connection's `synchronous=FULL`, the commit is durable when this returns.
    /// - Throws: `SQLITE_MISUSE` if a transaction is already open on this connection (use savepoints
    ///   inside `body` for nesting).
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        guard !isInTransaction else {
            throw SQLiteError.misuse("a transaction is already open on this connection")
        }
        try cachedStatement("BEGIN \(kind.rawValue) TRANSACTION").execute()
        do {
            let result = try body()
            try cachedStatement("COMMIT TRANSACTION").execute()
            return result
        } catch {
            rollback()
            throw error
        }
    }

    /// Rolls back the open transaction, if any. Errors are ignored: after a failed rollback SQLite
    /// has already rolled back (e.g. after `SQLITE_FULL`), or the connection is unusable anyway.
    public func rollback() {
        guard isInTransaction else { return }
        if (try? cachedStatement("ROLLBACK TRANSACTION").execute()) == nil {
            _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
        }
    }

    // MARK: Facts

    /// The rowid of the most recent successful insert on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The number of rows changed by the most recent INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes64(handle)) }

    /// Whether the connection is read-only (opened so, or its file is not writable).
    public var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    // MARK: Guards

    /// Sets a run-time limit (`sqlite3_limit`, e.g. `SQLITE_LIMIT_ATTACHED`) and returns the old one.
    @discardableResult
    public func setLimit(_ limit: Int32, to value: Int32) -> Int32 {
        sqlite3_limit(handle, limit, value)
    }

    /// Installs (or with `nil` removes) an authorizer (`sqlite3_set_authorizer`): called while each
    /// statement is compiled, once per action, it decides whether the action is allowed. A statement
    /// with a denied action fails to compile with `SQLITE_AUTH` ("not authorized").
    ///
    /// Already-prepared statements are recompiled (and so re-authorized) on their next step. Keep the
    /// closure fast and free of calls on this connection.
    public func setAuthorizer(_ authorizer: ((SQLiteAuthorizerRequest) -> SQLiteAuthorizerDecision)?) {
        guard let authorizer else {
            sqlite3_set_authorizer(handle, nil, nil)
            self.authorizer = nil
            return
        }
        let box = AuthorizerBox(authorizer)
        self.authorizer = box  // keeps the box alive as long as SQLite may call it
        sqlite3_set_authorizer(handle, { userData, action, a1, a2, a3, a4 in
            guard let userData else { return SQLITE_DENY }
            let box = Unmanaged<AuthorizerBox>.fromOpaque(userData).takeUnretainedValue()
            let request = SQLiteAuthorizerRequest(
                action: action,
                argument1: a1.map { String(cString: $0) },
                argument2: a2.map { String(cString: $0) },
                database: a3.map { String(cString: $0) },
                trigger: a4.map { String(cString: $0) })
            switch box.body(request) {
            case .allow: return SQLITE_OK
            case .deny: return SQLITE_DENY
            case .ignore: return SQLITE_IGNORE
            }
        }, Unmanaged.passUnretained(box).toOpaque())
    }
}

private final class AuthorizerBox {
    let body: (SQLiteAuthorizerRequest) -> SQLiteAuthorizerDecision
    init(_ body: @escaping (SQLiteAuthorizerRequest) -> SQLiteAuthorizerDecision) { self.body = body }
}

/// One action SQLite asks an authorizer about while compiling a statement.
///
/// The meaning of the arguments depends on ``action`` (see "Authorizer Action Codes" in SQLite's
/// documentation): for `SQLITE_INSERT` ``argument1`` is the table; for `SQLITE_PRAGMA` it is the
/// pragma's name and ``argument2`` its argument, if any; for `SQLITE_FUNCTION` ``argument2`` is the
/// function's name; for `SQLITE_ATTACH` ``argument1`` is the file name.
public struct SQLiteAuthorizerRequest: Sendable, Hashable {
    /// The action code (`SQLITE_INSERT`, `SQLITE_PRAGMA`, `SQLITE_ATTACH`, …).
    public let action: Int32
    /// The first argument, depending on the action.
    public let argument1: String?
    /// The second argument, depending on the action.
    public let argument2: String?
    /// The schema ("main", "temp", …) the action concerns, if any.
    public let database: String?
    /// The innermost trigger or view that causes the action, if any.
    public let trigger: String?

    /// Creates a request (for testing an authorizer policy).
    public init(action: Int32, argument1: String?, argument2: String?, database: String?, trigger: String?) {
        self.action = action
        self.argument1 = argument1
        self.argument2 = argument2
        self.database = database
        self.trigger = trigger
    }
}

/// An authorizer's answer.
public enum SQLiteAuthorizerDecision: Sendable, Hashable {
    /// `SQLITE_OK`: allow the action.
    case allow
    /// `SQLITE_DENY`: fail the whole statement with `SQLITE_AUTH`.
    case deny
    /// `SQLITE_IGNORE`: compile the statement, but read `NULL` for a column, or skip the action.
    case ignore
}
