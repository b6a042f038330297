import CSQLite
import Foundation
import Synchronization
import TesseraSDK
import TesseraSQLite

/// The storage capability backed by SQLite: one database file per plugin.
///
/// - Writes go through the record API (``write(_:)``): a batch of puts, patches and deletes of rows
///   by id, validated first, then applied in one `BEGIN IMMEDIATE` transaction together with its
///   entry in the change log (one row per batch: `_tessera_change_batches`), all or nothing.
/// - Reads are one read-only SQL statement at a time (``query(_:_:)``) on a separate connection
///   opened with `SQLITE_OPEN_READONLY`, which cannot attach other databases, change settings, or
///   write; it sees every write acknowledged before it started.
/// - The schema is the plugin's migrations, applied by the host with ``migrate(_:)``.
/// - Durability: WAL with `synchronous=FULL`: when ``write(_:)`` returns, the batch is in the
///   fsynced log and survives `kill -9` and power loss.
///
/// The async methods run their SQLite work on the storage's own dispatch queues, so a commit's fsync
/// never blocks a thread of Swift's cooperative pool; the `…Blocking` variants run it on the caller's
/// thread. All methods are safe to call from any thread.
public final class SQLitePluginStorage: PluginStorage {
    /// The plugin whose database this is.
    public let pluginID: String
    /// The database file.
    public let path: String

    let writer: SQLiteDatabase
    let reader: LazyDatabase
    let sqlGuard = SQLGuard()
    let readerGuard = SQLGuard()
    let state = Mutex(State())
    let now: @Sendable () -> Date
    private let writeQueue: DispatchQueue
    private let readQueue: DispatchQueue
    /// The size of the last batch's change-log text: the next one reserves as much.
    private let lastLogBytes = Atomic<Int>(0)

    struct State {
        /// Table shapes by the name the plugin used, read on first write; cleared by migrations.
        var tables: [String: TableShape] = [:]
        var schemaVersion = 0
        /// The plugin's applied migrations (version: SQL), read when the database opens and
        /// forgotten when migrations run or a copy is put back: a start asks for them once, on
        /// its critical path, and the open runs beside the manifest's read and the library's load.
        var appliedMigrations: [Int: String]?
        /// The database's page size, read when it opens (``limitSize(toMegabytes:)``).
        var pageSize: Int64 = 4096
        /// The size cap from the grant's `quotaMB`, if any.
        var quotaMegabytes: Int?
        /// The events a batch may emit (the manifest's `emits`), or `nil` without the events grant.
        var emittable: Set<String>?
        /// Told after a commit that stored events in the outbox.
        var eventsCommitted: (@Sendable () -> Void)?
        /// Runs inside each write's transaction, after its changes (the host stamps sync changes).
        var stamp: (@Sendable (WriteBatch, SQLiteConnection) throws -> Void)?
    }

    /// The database the writes go to, for the host's own work on it in the same order (sync).
    public var database: SQLiteDatabase { writer }

    /// Runs `stamp` inside the transaction of every write with changes, after they are applied: a
    /// throw rolls the whole batch back. The host stamps record writes to synced tables as sync
    /// changes here, so a record and its sync metadata commit together or not at all.
    public func stampWrites(_ stamp: @escaping @Sendable (WriteBatch, SQLiteConnection) throws -> Void) {
        state.withLock { $0.stamp = stamp }
    }

    /// Lets batches emit the events in `names` (the plugin has the `events` grant); after each
    /// commit that stored events in the outbox, `committed` is called (the host then moves them to
    /// its event log with ``takeOutbox(_:)``).
    public func allowEvents(_ names: Set<String>, committed: @escaping @Sendable () -> Void) {
        state.withLock {
            $0.emittable = names
            $0.eventsCommitted = committed
        }
    }

    /// Hands the events waiting in the plugin's outbox (`_tessera_outbox`), oldest first, to
    /// `body`, then removes them. If `body` throws they stay for the next call; if the process
    /// dies between `body` and the removal, the next call hands them over again (the receiver
    /// dedupes by the row number).
    public func takeOutbox(_ body: ([(name: String, payload: JSONValue, origin: Int64)]) throws -> Void) throws {
        try writer.withConnection { connection in
            let rows = try connection.fetchAll("SELECT seq, name, payload FROM _tessera_outbox ORDER BY seq LIMIT 1000")
            guard !rows.isEmpty else { return }
            try body(rows.map { row in
                (row[1].text ?? "", (try? JSONValue(parsing: row[2].text ?? "null")) ?? .null, row[0].integer ?? 0)
            })
            try connection.execute("DELETE FROM _tessera_outbox WHERE seq <= ?", [rows.last![0]])
        }
    }

    /// Caps the database's size at `megabytes` (the storage grant's `quotaMB`), with SQLite's own
    /// `max_page_count`: a batch that would grow the file past it fails as a whole with `forbidden`,
    /// naming the quota. Checked by SQLite on every page the database grows by. A connection that
    /// carries this quota already is left as it is: a host's start sets it while the database opens,
    /// off the start's path, and the commit then only confirms it.
    public func limitSize(toMegabytes megabytes: Int) throws {
        let (pageSize, current) = state.withLock { ($0.pageSize, $0.quotaMegabytes) }
        if current == megabytes { return }
        try writer.withConnection { connection in
            let pages = max(1, Int64(megabytes) * 1_048_576 / max(512, pageSize))
            _ = try connection.fetchOne("PRAGMA max_page_count = \(pages)")
        }
        state.withLock { $0.quotaMegabytes = megabytes }
    }

    /// Opens (creating it and its parent directories if needed) the database of plugin `pluginID`.
    ///
    /// - Parameters:
    ///   - pluginID: the plugin, for messages.
    ///   - path: the database file, one per plugin.
    ///   - now: the host's clock, which timestamps change-log entries and applied migrations.
    /// - Throws: ``SQLiteError`` if the file cannot be opened or put in WAL mode; a Foundation error if
    ///   the directory cannot be created.
    public init(pluginID: String, path: String, now: @escaping @Sendable () -> Date) throws {
        self.pluginID = pluginID
        self.path = path
        self.now = now
        let directory = (path as NSString).deletingLastPathComponent
        // A database that exists has its folder; only a new one may need it made (one `access`
        // instead of Foundation's walk of the path on every start).
        let isNew = access(path, F_OK) != 0
        if isNew, !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }

        let writerConnection = try SQLiteConnection(path: path, mode: .readWriteCreate, busyTimeout: .seconds(10),
                                                    statementCacheCapacity: 256)
        writerConnection.setLimit(SQLITE_LIMIT_ATTACHED, to: 0)
        try writerConnection.execute("PRAGMA trusted_schema=OFF")
        // The host's tables in the plugin's database; an up-to-date file is only read.
        try writerConnection.migrate(PluginStorageSchema.schema, nowMillis: Int64((now().timeIntervalSince1970 * 1000).rounded(.down)))
        let applied = try Self.appliedMigrations(writerConnection)
        let pageSize = try writerConnection.fetchOne("PRAGMA page_size")?.first?.integer ?? 4096
        writerConnection.setAuthorizer(AccessPolicy.writer(sqlGuard))
        if isNew, !directory.isEmpty { Self.syncDirectory(directory) }

        self.writer = SQLiteDatabase(writerConnection)
        let readerGuard = self.readerGuard
        // The read-only connection opens on the first query: many starts never read, and opening a
        // connection costs about as much as the rest of starting a small plugin.
        self.reader = LazyDatabase {
            let connection = try SQLiteConnection(path: path, mode: .readOnly, busyTimeout: .seconds(10), statementCacheCapacity: 64)
            connection.setLimit(SQLITE_LIMIT_ATTACHED, to: 0)
            try connection.execute("PRAGMA query_only=ON; PRAGMA trusted_schema=OFF")
            connection.setAuthorizer(AccessPolicy.reader(readerGuard))
            return connection
        }
        self.writeQueue = DispatchQueue(label: "tessera.storage.\(pluginID).write")
        self.readQueue = DispatchQueue(label: "tessera.storage.\(pluginID).read")
        state.withLock {
            $0.schemaVersion = applied.keys.max() ?? 0
            $0.appliedMigrations = applied
            $0.pageSize = pageSize
        }
    }

    /// The plugin's migrations recorded as applied: version and SQL (the table is the host's
    /// `storage` schema's, there from the open on).
    static func appliedMigrations(_ connection: SQLiteConnection) throws -> [Int: String] {
        var applied: [Int: String] = [:]
        for row in try connection.fetchAll(selectApplied) {
            applied[Int(row[0].integer ?? 0)] = row[1].text ?? ""
        }
        return applied
    }

    /// The plugin's applied migrations, as the migration ledger and the open read them.
    static let selectApplied = "SELECT version, sql FROM _tessera_migrations"

    /// Opens the database at a file URL; see the `String` path initializer.
    public convenience init(pluginID: String, path: URL, now: @escaping @Sendable () -> Date) throws {
        try self.init(pluginID: pluginID, path: path.path, now: now)
    }

    /// The highest migration version applied to the database (0 before any).
    public var schemaVersion: Int { state.withLock { $0.schemaVersion } }

    /// Makes a newly created file's directory entry durable.
    private static func syncDirectory(_ directory: String) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    // MARK: PluginStorage

    /// Applies the batch in one transaction and returns once it is durable; see ``writeBlocking(_:)``.
    public func write(_ batch: WriteBatch) async throws {
        if batch.changes.isEmpty && batch.events.isEmpty { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            writeQueue.async {
                continuation.resume(with: Result { try self.writeBlocking(batch) })
            }
        }
    }

    /// Runs one read-only statement; see ``queryBlocking(_:_:)``.
    public func query(_ sql: String, _ parameters: [SQLValue]) async throws -> [Row] {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[Row], any Error>) in
            readQueue.async {
                continuation.resume(with: Result { try self.queryBlocking(sql, parameters) })
            }
        }
    }

    // MARK: Writing

    /// Applies the batch on the calling thread in one transaction, and returns once it is durable.
    ///
    /// Every change is validated before the database is touched: the table exists, is not the host's
    /// (`_tessera_*`, `sqlite_*`), and has a TEXT primary key column `id`; every column named exists.
    /// Then, in one `BEGIN IMMEDIATE` transaction: a put inserts the row or replaces it whole (columns
    /// not given take their defaults); a patch sets the given columns of an existing row; a delete
    /// removes the row if it exists. Each change is appended to the change log in the same
    /// transaction. An empty batch does nothing.
    ///
    /// - Throws: ``PluginError``, and then nothing of the batch is applied:
    ///   `invalidInput` naming the table or column (`field` is `table` or `table.column`);
    ///   `notFound` for a patch of a row that does not exist (`field` is `table.id`);
    ///   `invalidInput` for a NOT NULL, CHECK, type or foreign-key constraint, `conflict` for a UNIQUE
    ///   one; `forbidden` if one of the plugin's triggers touches the host's tables;
    ///   `unavailable` if the database is busy or the disk full; `internal` otherwise.
    public func writeBlocking(_ batch: WriteBatch) throws {
        var unused = WritePhases()
        try write(batch, phases: &unused, timed: false)
    }

    /// ``writeBlocking(_:)``, adding where its time went to `phases` (for the benchmark's breakdown
    /// of the record API's cost against raw SQLite).
    public func writeBlocking(_ batch: WriteBatch, phases: inout WritePhases) throws {
        try write(batch, phases: &phases, timed: true)
    }

    private func write(_ batch: WriteBatch, phases: inout WritePhases, timed: Bool) throws {
        if batch.changes.isEmpty && batch.events.isEmpty { return }
        var clock = PhaseClock(running: timed)
        let committed = try checkEvents(batch.events)
        try writer.withConnection { connection throws in
            let plan = try self.plan(batch, connection: connection)
            // Read under the lock, so that times in the log never go backwards as seq goes forwards.
            let at = ChangeLogCoding.text(of: now())
            clock.lap(into: &phases.validate)
            _ = sqlGuard.takeRefusal()
            do {
                let stamp = state.withLock { $0.stamp }
                var counted: UInt64 = 0  // rows, log and stamp of this batch
                try connection.transaction(.immediate) {
                    var body = PhaseClock(running: timed)
                    if !plan.changes.isEmpty {
                        try self.applyRows(plan, connection: connection)
                        counted += body.lap(into: &phases.rows)
                        try self.appendToLog(plan, at: at, connection: connection)
                        counted += body.lap(into: &phases.log)
                    }
                    if !plan.changes.isEmpty, let stamp {
                        try stamp(batch, connection)
                        counted += body.lap(into: &phases.stamp)
                    }
                    try self.storeEvents(batch.events, at: at, connection: connection)
                }
                // The rest of the transaction: BEGIN, the events, COMMIT with its fsync.
                var transaction: UInt64 = 0
                clock.lap(into: &transaction)
                phases.commit += transaction &- min(transaction, counted)
                phases.batches += 1
            } catch let error as SQLiteError {
                if error.code == SQLITE_FULL, let quota = state.withLock({ $0.quotaMegabytes }) {
                    throw PluginError(.forbidden, "plugin \(pluginID) has used its storage quota of \(quota) MB; nothing of this batch was written")
                }
                throw Self.writeError(error, refusal: sqlGuard.takeRefusal())
            }
        }
        committed?()
    }

    /// Checks a batch's events against the grant before anything is written; returns whom to tell
    /// after the commit.
    private func checkEvents(_ events: [EmittedEvent]) throws -> (@Sendable () -> Void)? {
        guard !events.isEmpty else { return nil }
        let (allowed, committed) = state.withLock { ($0.emittable, $0.eventsCommitted) }
        guard let allowed else {
            throw PluginError(.notGranted, "plugin \(pluginID) emits events in a write batch but is not granted 'events'; nothing of this batch was written")
        }
        for event in events where !allowed.contains(event.name) {
            throw PluginError(.forbidden, "plugin \(pluginID) emits '\(event.name)', which its manifest's emits does not declare; nothing of this batch was written",
                              field: "events.\(event.name)")
        }
        return committed
    }

    /// Appends the batch's events to the outbox inside the open transaction.
    private func storeEvents(_ events: [EmittedEvent], at: String, connection: SQLiteConnection) throws {
        guard !events.isEmpty else { return }
        let insert = try connection.cachedStatement("INSERT INTO _tessera_outbox(name, payload, at) VALUES (?, ?, ?)")
        for event in events {
            try insert.execute([.text(event.name), .text(event.payload.serialized()), .text(at)])
        }
    }

    enum Operation { case put, patch, delete }

    /// A column and the value written to it.
    struct Cell {
        let column: TableShape.Column
        let value: SQLValue
    }

    struct PlannedChange {
        let operation: Operation
        let table: TableShape
        let id: String
        /// Where the change's cells are in its plan's ``WritePlan/cells``: the columns given, in
        /// name order, with their values.
        let cells: Range<Int>
        /// The table name as the plugin wrote it, for error fields.
        let tableAsGiven: String
    }

    /// A batch validated and its names resolved: its changes in order, and their cells in one array
    /// (one allocation per batch, where an array per change was one per row).
    struct WritePlan {
        var changes: [PlannedChange] = []
        var cells: [Cell] = []

        /// The cells of `change`.
        func cells(of change: PlannedChange) -> ArraySlice<Cell> { cells[change.cells] }
    }

    /// Validates every change and resolves names, before anything is written.
    private func plan(_ batch: WriteBatch, connection: SQLiteConnection) throws -> WritePlan {
        var plan = WritePlan()
        plan.changes.reserveCapacity(batch.changes.count)
        var lastShape: (name: String, shape: TableShape)?
        for change in batch.changes {
            let operation: Operation
            let table: String, id: String, values: [String: SQLValue]
            switch change {
            case .put(let t, let i, let v): (operation, table, id, values) = (.put, t, i, v)
            case .patch(let t, let i, let v): (operation, table, id, values) = (.patch, t, i, v)
            case .delete(let t, let i): (operation, table, id, values) = (.delete, t, i, [:])
            @unknown default:
                throw PluginError(.invalidInput, "this host does not know the change \(change)")
            }
            // The previous change's columns, when it wrote the same table: a batch's rows mostly
            // name the same columns, and finding a name among a few is cheaper than hashing it.
            // (Their indices, not a slice: a slice would hold the cells' buffer, and each append
            // below would copy it.)
            let shape: TableShape, recent: Range<Int>
            if let lastShape, lastShape.name == table {
                (shape, recent) = (lastShape.shape, plan.changes.last?.cells ?? 0..<0)
            } else {
                (shape, recent) = (try self.shape(of: table, connection: connection), 0..<0)
                lastShape = (table, shape)
            }
            if id.isEmpty {
                throw PluginError(.invalidInput, "a row id must not be empty (table \(shape.name))", field: "\(table).id")
            }
            // Room for as many cells per change as the first one with any has; past that the array
            // grows as arrays do.
            if plan.cells.isEmpty { plan.cells.reserveCapacity(values.count * batch.changes.count) }
            let first = plan.cells.count
            for (name, value) in values {
                if let column = Self.column(named: name, among: recent, of: plan.cells) ?? shape.declaredColumns[name], !column.isGenerated {
                    plan.cells.append(Cell(column: column, value: value))
                    continue
                }
                let key = name.lowercased()
                if key == "id" {
                    if value == .text(id) { continue }
                    throw PluginError(.invalidInput,
                                      "values for row \(id) of \(shape.name) give a different id; the id of a row cannot change",
                                      field: "\(table).\(name)")
                }
                guard let column = shape.columns[key] else {
                    throw PluginError(.invalidInput, "table \(shape.name) has no column \(name)", field: "\(table).\(name)")
                }
                if column.isGenerated {
                    throw PluginError(.invalidInput, "column \(column.name) of \(shape.name) is generated and cannot be written",
                                      field: "\(table).\(name)")
                }
                plan.cells.append(Cell(column: column, value: value))
            }
            let cells = first..<plan.cells.count
            // Sorted where they lie (sorting `plan.cells[cells]` copies the slice out and back).
            plan.cells.withUnsafeMutableBufferPointer { all in
                var given = UnsafeMutableBufferPointer(rebasing: all[cells])
                given.sort { $0.column.order < $1.column.order }
            }
            for i in cells.dropFirst() where plan.cells[i].column === plan.cells[i - 1].column {
                throw PluginError(.invalidInput, "column \(plan.cells[i].column.name) of \(shape.name) is given twice",
                                  field: "\(table).\(plan.cells[i].column.name)")
            }
            plan.changes.append(PlannedChange(operation: operation, table: shape, id: id, cells: cells, tableAsGiven: table))
        }
        return plan
    }

    /// The column of `cells[range]` named exactly `name`, if there is one; lengths are compared
    /// first, so most names that differ cost no string comparison.
    private static func column(named name: String, among range: Range<Int>, of cells: [Cell]) -> TableShape.Column? {
        let length = name.utf8.count
        for i in range where cells[i].column.name.utf8.count == length && cells[i].column.name == name {
            return cells[i].column
        }
        return nil
    }

    /// The shape of a table, from the cache or the schema.
    private func shape(of table: String, connection: SQLiteConnection) throws -> TableShape {
        if let shape = state.withLock({ $0.tables[table] }) { return shape }
        let shape: TableShape
        do {
            shape = try TableShape.load(table, from: connection)
        } catch let error as SQLiteError {
            throw PluginError(.internal, "storage of plugin \(pluginID) could not read its schema: \(error.message)")
        }
        state.withLock { $0.tables[table] = shape }
        return shape
    }

    /// Applies a validated plan to the plugin's tables inside the open transaction.
    private func applyRows(_ plan: WritePlan, connection: SQLiteConnection) throws {
        var statement: Statement?
        try sqlGuard.asPlugin {
            // By index, each field read where it lies (see ChangeLogCoding.writeBatch).
            for i in plan.changes.indices {
                if statement == nil || !Self.sameStatement(plan, i - 1, i) {
                    statement = try connection.cachedStatement(Self.sql(for: plan.changes[i], in: plan))
                }
                guard let statement else { continue }
                let operation = plan.changes[i].operation
                var index = 1
                if operation == .put {
                    try statement.bind(plan.changes[i].id, at: index)
                    index += 1
                }
                for cell in plan.changes[i].cells {
                    try statement.bind(plan.cells[cell].value, at: index)
                    index += 1
                }
                if operation != .put { try statement.bind(plan.changes[i].id, at: index) }
                defer { statement.reset() }
                let hasRow = try statement.step()
                if operation == .patch, plan.changes[i].cells.isEmpty ? !hasRow : connection.changes == 0 {
                    let change = plan.changes[i]
                    throw PluginError(.notFound,
                                      "table \(change.table.name) has no row with id \(change.id); patch changes existing rows only",
                                      field: "\(change.tableAsGiven).id")
                }
            }
        }
    }

    /// Appends an applied plan to the change log, inside the open transaction: one row of
    /// `_tessera_change_batches` for the whole batch, its changes a JSON array of
    /// `[table, id, operation, cells]` in order (``ChangeLogCoding/writeBatch(_:into:)``). One
    /// B-tree insert per batch, where one per change was half of what a batch cost SQLite.
    private func appendToLog(_ plan: WritePlan, at: String, connection: SQLiteConnection) throws {
        // The batch's first change takes the sequence number after the last one ever given, in this
        // table or the one before it (whose high-water mark sqlite_sequence keeps).
        let next = try connection.cachedStatement("""
            SELECT max(coalesce((SELECT seq + count FROM _tessera_change_batches ORDER BY seq DESC LIMIT 1), 1),
                       coalesce((SELECT seq FROM sqlite_sequence WHERE name = '_tessera_changes'), 0) + 1)
            """)
        defer { next.reset() }
        guard try next.step() else { throw PluginError(.internal, "the change log's next sequence number could not be read") }
        let first = next.int64(at: 0)
        // Room for about as much as the last batch took: the text is built in one allocation
        // rather than in a dozen doublings of a growing array.
        var buffer: [UInt8] = []
        buffer.reserveCapacity(max(256, lastLogBytes.load(ordering: .relaxed)))
        ChangeLogCoding.writeBatch(plan, into: &buffer)
        lastLogBytes.store(buffer.count, ordering: .relaxed)
        let log = try connection.cachedStatement("INSERT INTO _tessera_change_batches(seq, count, at, changes) VALUES (?, ?, ?, ?)")
        defer { log.reset() }
        try log.bind(first, at: 1)
        try log.bind(Int64(plan.changes.count), at: 2)
        try log.bind(at, at: 3)
        try log.bind(utf8Text: buffer, at: 4)
        try log.step()
    }

    /// Whether changes `a` and `b` of `plan` run the same statement (`a` may be -1: no change).
    private static func sameStatement(_ plan: WritePlan, _ a: Int, _ b: Int) -> Bool {
        guard a >= 0 else { return false }
        return plan.changes.withUnsafeBufferPointer { changes in
            let x = changes[a].cells, y = changes[b].cells
            guard changes[a].operation == changes[b].operation, changes[a].table === changes[b].table,
                  x.count == y.count else { return false }
            return plan.cells.withUnsafeBufferPointer { cells in
                for offset in 0..<x.count where cells[x.lowerBound + offset].column !== cells[y.lowerBound + offset].column {
                    return false
                }
                return true
            }
        }
    }

    /// The statement of a change; parameters: for a put, id then values; otherwise values then id.
    static func sql(for change: PlannedChange, in plan: WritePlan) -> String {
        let cells = plan.cells(of: change)
        let key = TableShape.StatementKey(operation: change.operation, columns: cells.map(\.column.name))
        return change.table.sql(for: key) { makeSQL(for: change, cells: cells) }
    }

    /// The statement of a change, built (see ``sql(for:)``).
    private static func makeSQL(for change: PlannedChange, cells: ArraySlice<Cell>) -> String {
        let table = change.table.quoted
        let id = change.table.id.quoted
        switch change.operation {
        case .put:
            let names = ([id] + cells.map(\.column.quoted)).joined(separator: ", ")
            let marks = Array(repeating: "?", count: cells.count + 1).joined(separator: ", ")
            // An upsert on id rather than INSERT OR REPLACE: REPLACE would delete the old row first
            // (firing delete triggers and ON DELETE actions, and silently removing other rows that
            // clash on a UNIQUE column). Every column not given takes its default, as on insert.
            let given = Set(cells.map(\.column.name))
            let assignments = change.table.writableColumns.map { column in
                given.contains(column.name)
                    ? "\(column.quoted) = excluded.\(column.quoted)"
                    : "\(column.quoted) = \(column.defaultSQL.map { "(\($0))" } ?? "NULL")"
            }
            let update = assignments.isEmpty ? "NOTHING" : "UPDATE SET " + assignments.joined(separator: ", ")
            return "INSERT INTO \(table) (\(names)) VALUES (\(marks)) ON CONFLICT (\(id)) DO \(update)"
        case .patch:
            if cells.isEmpty { return "SELECT 1 FROM \(table) WHERE \(id) = ?" }
            let assignments = cells.map { "\($0.column.quoted) = ?" }.joined(separator: ", ")
            return "UPDATE \(table) SET \(assignments) WHERE \(id) = ?"
        case .delete:
            return "DELETE FROM \(table) WHERE \(id) = ?"
        }
    }

    /// The plugin-facing error for an SQLite error during a write.
    static func writeError(_ error: SQLiteError, refusal: String?) -> PluginError {
        if let refusal { return PluginError(.forbidden, refusal) }
        switch error.code {
        case SQLITE_CONSTRAINT:
            let field = constraintField(error.message)
            let unique = error.extendedCode == constraintUnique || error.extendedCode == constraintPrimaryKey
            return PluginError(unique ? .conflict : .invalidInput, error.message, field: field)
        case SQLITE_AUTH:
            return PluginError(.forbidden, refusal ?? error.message)
        case SQLITE_BUSY, SQLITE_LOCKED:
            return PluginError(.unavailable, "the database is busy: \(error.message)")
        case SQLITE_FULL:
            return PluginError(.unavailable, "the disk is full: \(error.message)")
        case SQLITE_TOOBIG, SQLITE_MISMATCH, SQLITE_RANGE, SQLITE_ERROR:
            return PluginError(.invalidInput, error.message)
        default:
            return PluginError(.internal, "storage write failed: \(error.description)")
        }
    }

    /// `SQLITE_CONSTRAINT_UNIQUE` and `SQLITE_CONSTRAINT_PRIMARYKEY` (C macros Swift does not import).
    static let constraintUnique: Int32 = 19 | (8 << 8)
    static let constraintPrimaryKey: Int32 = 19 | (6 << 8)

    /// `notes.title` from "NOT NULL constraint failed: notes.title" (the first column named).
    static func constraintField(_ message: String) -> String? {
        guard let range = message.range(of: "constraint failed: ") else { return nil }
        let rest = message[range.upperBound...]
        let first = rest.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return first.contains(".") && !first.contains(" ") ? first : nil
    }

    // MARK: Reading

    /// Runs one read-only SQL statement with `?` parameters on the calling thread.
    ///
    /// It runs on a connection opened read-only, under an authorizer that refuses anything but
    /// reading: writes and DDL, `ATTACH`/`DETACH`, transaction control, pragmas that set something
    /// (reading pragmas such as `table_info` are allowed), and loading extensions.
    ///
    /// - Throws: ``PluginError``: `forbidden` for a statement that would write (also any statement
    ///   `sqlite3_stmt_readonly` does not call read-only), attach or name another database, or change
    ///   a setting; `invalidInput` for SQL that does not compile (with SQLite's message), more than
    ///   one statement, or the wrong number of parameters; `unavailable` if the database is busy.
    public func queryBlocking(_ sql: String, _ parameters: [SQLValue]) throws -> [Row] {
        try reader.database().withConnection { connection throws -> [Row] in
            _ = readerGuard.takeRefusal()
            let statement: Statement
            do {
                statement = try connection.cachedStatement(sql)
            } catch let error as SQLiteError {
                throw Self.compileError(error, refusal: readerGuard.takeRefusal())
            }
            defer {
                statement.reset()
                statement.clearBindings()
                connection.rollback()
            }
            guard statement.isReadOnly else {
                throw PluginError(.forbidden, "a query runs read-only SQL; write through the record API")
            }
            guard parameters.count == statement.parameterCount else {
                throw PluginError(.invalidInput,
                                  "the query has \(statement.parameterCount) parameter(s) but \(parameters.count) value(s) were given")
            }
            do {
                for (i, value) in parameters.enumerated() { try statement.bind(value, at: i + 1) }
                let columns = statement.columnNames
                let count = columns.count
                var rows: [Row] = []
                while try statement.step() {
                    var values: [SQLValue] = []
                    values.reserveCapacity(count)
                    for i in 0..<count { values.append(statement.value(at: i)) }
                    rows.append(Row(columns: columns, values: values))
                }
                return rows
            } catch let error as SQLiteError {
                throw Self.queryError(error, refusal: readerGuard.takeRefusal())
            }
        }
    }

    /// The plugin-facing error for SQL that did not compile.
    static func compileError(_ error: SQLiteError, refusal: String?) -> PluginError {
        // Two statements: refused whatever the second one is (compiling it may have tripped the
        // authorizer, too).
        if error.code == SQLITE_MISUSE {
            return PluginError(.invalidInput, "a query is exactly one SQL statement: \(error.message)")
        }
        // The authorizer refused something (SQLite reports a refused function as SQLITE_ERROR).
        if let refusal { return PluginError(.forbidden, refusal) }
        switch error.code {
        case SQLITE_AUTH:
            return PluginError(.forbidden, refusal ?? error.message)
        case SQLITE_MISUSE:
            return PluginError(.invalidInput, "a query is exactly one SQL statement: \(error.message)")
        case SQLITE_BUSY, SQLITE_LOCKED:
            return PluginError(.unavailable, "the database is busy: \(error.message)")
        case SQLITE_ERROR:
            // A schema-qualified name that is not this database ("no such table: other.items").
            let prefix = "no such table: "
            if error.message.hasPrefix(prefix) {
                let name = error.message.dropFirst(prefix.count)
                if let dot = name.firstIndex(of: "."), !["main", "temp"].contains(name[..<dot].lowercased()) {
                    return PluginError(.forbidden,
                                       "\(name) is not in this plugin's database: a plugin reads only its own database")
                }
            }
            return PluginError(.invalidInput, error.message)
        default:
            return PluginError(.invalidInput, error.message)
        }
    }

    /// The plugin-facing error for a statement that failed while running.
    static func queryError(_ error: SQLiteError, refusal: String?) -> PluginError {
        switch error.code {
        case SQLITE_AUTH, SQLITE_READONLY:
            return PluginError(.forbidden, refusal ?? "a query runs read-only SQL: \(error.message)")
        case SQLITE_BUSY, SQLITE_LOCKED:
            return PluginError(.unavailable, "the database is busy: \(error.message)")
        case SQLITE_CORRUPT, SQLITE_IOERR, SQLITE_NOMEM, SQLITE_CANTOPEN, SQLITE_NOTADB, SQLITE_FULL:
            return PluginError(.internal, "storage read failed: \(error.description)")
        default:
            return PluginError(.invalidInput, error.message)
        }
    }

    // MARK: Change log

    /// Up to `limit` change-log entries with a sequence number greater than `seq`, oldest first.
    /// Pass 0 to start from the beginning, then the last ``ChangeLogEntry/seq`` seen.
    ///
    /// The log keeps one row per batch (`_tessera_change_batches`, since the storage schema's
    /// version 2); what was logged before, one row per change, is read first from
    /// `_tessera_changes`. Sequence numbers run on across the two.
    public func changes(after seq: Int64, limit: Int) throws -> [ChangeLogEntry] {
        guard limit > 0 else { return [] }
        return try reader.database().withConnection { connection throws -> [ChangeLogEntry] in
            defer { connection.rollback() }
            var entries = try Self.changesLoggedPerRow(after: seq, limit: limit, connection: connection)
            // The batch holding `seq + 1` (its first entry may be at or before `seq`), then those after it.
            let batches = try connection.cachedStatement("""
                SELECT seq, at, changes FROM _tessera_change_batches
                WHERE seq >= coalesce((SELECT max(seq) FROM _tessera_change_batches WHERE seq <= ?1 + 1), 0)
                ORDER BY seq
                """)
            defer { batches.reset() }
            try batches.bind(seq, at: 1)
            while entries.count < limit, try batches.step() {
                let at = try Self.loggedTime(batches.text(at: 1), seq: batches.int64(at: 0))
                entries += ChangeLogCoding.entries(ofBatch: batches.int64(at: 0), changes: batches.text(at: 2), at: at,
                                                   after: seq, limit: limit - entries.count)
            }
            return entries
        }
    }

    /// Entries logged one row per change, before the storage schema's version 2.
    private static func changesLoggedPerRow(after seq: Int64, limit: Int, connection: SQLiteConnection) throws -> [ChangeLogEntry] {
        let statement = try connection.cachedStatement(
            "SELECT seq, batch, tbl, row_id, op, cells, at FROM _tessera_changes WHERE seq > ? ORDER BY seq LIMIT ?")
        defer { statement.reset() }
        try statement.bind(seq, at: 1)
        try statement.bind(Int64(limit), at: 2)
        var entries: [ChangeLogEntry] = []
        while try statement.step() {
            let at = try loggedTime(statement.text(at: 6), seq: statement.int64(at: 0))
            entries.append(ChangeLogEntry(
                seq: statement.int64(at: 0),
                batch: statement.int64(at: 1),
                table: statement.text(at: 2),
                rowID: statement.text(at: 3),
                operation: ChangeLogEntry.Operation(rawValue: statement.text(at: 4)) ?? .put,
                cells: ChangeLogCoding.cells(statement.text(at: 5)),
                at: at))
        }
        return entries
    }

    /// The time a change was logged. An unreadable one is an error, never 1970: a change pushed
    /// with that time would lose every last-writer-wins comparison at the other devices, silently.
    private static func loggedTime(_ text: String, seq: Int64) throws -> Date {
        do { return try ChangeLogCoding.timestamp.parse(text) } catch {
            throw PluginError(.internal, "change-log entry \(seq) has the time '\(text.prefix(40))', which is not an ISO 8601 time: \(error)")
        }
    }
}

/// A database whose connection is opened on first use.
final class LazyDatabase: Sendable {
    private let open: @Sendable () throws -> SQLiteConnection
    private let opened = Mutex<SQLiteDatabase?>(nil)

    init(_ open: @escaping @Sendable () throws -> SQLiteConnection) { self.open = open }

    func database() throws -> SQLiteDatabase {
        try opened.withLock { slot in
            if let database = slot { return database }
            let database = SQLiteDatabase(try open())
            slot = database
            return database
        }
    }
}
