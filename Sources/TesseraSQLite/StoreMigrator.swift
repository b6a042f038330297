import CSQLite
import Foundation

/// Where a database records the migrations applied to one store: the host's stores share
/// `_tessera_schema` (a row per store and version); a plugin's database has its own
/// `_tessera_migrations`. The runner (``SQLiteConnection/migrate(_:of:in:legacyVersion:run:applied:)``)
/// is the same for both.
public struct MigrationLedger: Sendable {
    /// The records' table.
    public let table: String
    /// Creates the records if they do not exist yet; `nil` where the database always has them.
    public let create: String?
    /// The applied versions and their SQL: `SELECT version, sql …`.
    public let selectApplied: String
    public let selectArguments: [SQLiteValue]
    /// The statement and arguments that record one applied step.
    public let record: @Sendable (StoreMigration) -> (sql: String, arguments: [SQLiteValue])

    public init(table: String, create: String?, selectApplied: String, selectArguments: [SQLiteValue] = [],
                record: @escaping @Sendable (StoreMigration) -> (sql: String, arguments: [SQLiteValue])) {
        self.table = table
        self.create = create
        self.selectApplied = selectApplied
        self.selectArguments = selectArguments
        self.record = record
    }

    /// One of the host's stores, in `_tessera_schema`, its steps recorded at `nowMillis`.
    public static func hostStore(_ store: String, nowMillis: Int64) -> MigrationLedger {
        MigrationLedger(table: "_tessera_schema", create: StoreMigrationRules.createRecords, selectApplied: StoreMigrationRules.selectApplied,
                        selectArguments: [.text(store)]) { migration in
            (StoreMigrationRules.insertRecord, [.text(store), .integer(Int64(migration.version)), .text(migration.sql), .integer(nowMillis)])
        }
    }
}

extension SQLiteConnection {
    /// Brings one of the host's stores in this database up to date: applies, in order, each of
    /// `schema`'s migrations not yet recorded in `_tessera_schema`, and returns the store's version.
    /// Named parameters in a step's SQL (`:now_ms`) are bound from `parameters`. The steps run as
    /// ``migrate(_:of:in:legacyVersion:run:applied:)`` says.
    @discardableResult
    public func migrate(_ schema: StoreSchema, parameters: [String: SQLiteValue] = [:],
                        nowMillis: Int64 = StoreMigrationClock.nowMillis()) throws -> Int {
        try migrate(schema.migrations, of: StoreMigrationError.Subject(store: schema.store, location: path),
                    in: .hostStore(schema.store, nowMillis: nowMillis), legacyVersion: schema.legacyVersion) { connection, migration in
            try connection.execute(migration.sql, named: parameters)
        }
    }

    /// The one migration runner, for the host's stores and for plugins' databases: applies, in
    /// order, each of `migrations` not yet in `ledger`, and returns the version reached.
    ///
    /// - The declared list must be versions 1…n, in order, each once; a database ahead of the list,
    ///   or an applied step whose SQL changed, is refused before anything runs
    ///   (``MigrationPlan``, whose decisions this runner carries out).
    /// - Each step runs through `run` in its own `BEGIN IMMEDIATE` transaction together with its
    ///   record, so a crash leaves it applied and recorded, or neither. The records are read again
    ///   inside each step's transaction: another process opening the same file meanwhile applies a
    ///   step once. `applied` hears of each step after its commit.
    /// - An up-to-date database is only read: no transaction, no write lock.
    /// - Foreign keys are off while a step runs (so a table rebuild does not cascade), as SQLite's
    ///   procedure for schema changes says, and `PRAGMA foreign_key_check` runs before its commit.
    /// - `legacyVersion` (host stores only): the version of a database written before versioning,
    ///   whose steps up to it are recorded without running.
    ///
    /// - Throws: ``StoreMigrationError`` naming `subject`; a failed step after rolling it back (the
    ///   steps before it stay applied).
    @discardableResult
    public func migrate(_ migrations: [StoreMigration], of subject: StoreMigrationError.Subject, in ledger: MigrationLedger,
                        legacyVersion: (@Sendable (SQLiteConnection) throws -> Int)? = nil,
                        run: (SQLiteConnection, StoreMigration) throws -> Void,
                        applied: (Int) -> Void = { _ in }) throws -> Int {
        let plan = try MigrationPlan(migrations, of: subject)
        var recorded = try appliedMigrations(in: ledger)
        if recorded.isEmpty, let legacyVersion {
            let adopted = try plan.adopted(atLegacyVersion: try legacyVersion(self))
            if !adopted.isEmpty { recorded = try adopt(adopted, in: ledger) }
        }
        var next = try plan.next(applied: recorded)
        guard next != nil else { return plan.latest }
        // PRAGMA foreign_keys has no effect inside a transaction: it is set around the steps.
        let foreignKeys = try fetchOne("PRAGMA foreign_keys")?.first?.integer == 1
        if foreignKeys { try execute("PRAGMA foreign_keys=OFF") }
        var restored = !foreignKeys
        // On a failed step the error that stopped it is what the caller needs; the pragma is
        // put back as well as it can be. On success its failure is an error of its own: a
        // connection left without foreign keys would let later writes break them.
        defer { if !restored { try? execute("PRAGMA foreign_keys=ON") } }
        while let expected = next, let done = try applyNext(plan, expecting: expected, in: ledger, run: run) {
            applied(done.version)
            next = plan.migrations.dropFirst(done.version).first
        }
        if foreignKeys { try execute("PRAGMA foreign_keys=ON"); restored = true }
        // The pages the steps wrote (a new database's every table) are not what the store reads
        // next: its page cache gives them back, 0.5 MB over a first start's stores.
        sqlite3_db_release_memory(handle)
        return plan.latest
    }

    /// Applies the next step in its own transaction, reading the records again inside it (another
    /// connection may have applied `expected` meanwhile); returns the step, or `nil` once none is
    /// pending. A failure before the step is known is told as `expected`'s.
    private func applyNext(_ plan: MigrationPlan, expecting expected: StoreMigration, in ledger: MigrationLedger,
                           run: (SQLiteConnection, StoreMigration) throws -> Void) throws -> StoreMigration? {
        var step: StoreMigration?
        do {
            return try transaction(.immediate) { () throws -> StoreMigration? in
                if let create = ledger.create { try execute(create) }
                step = try plan.next(applied: try appliedMigrations(in: ledger))
                guard let migration = step else { return nil }
                try run(self, migration)
                if let violation = try fetchOne("PRAGMA foreign_key_check") {
                    throw SQLiteError(extendedCode: SQLITE_CONSTRAINT,
                                      message: "it leaves a row of \(violation[0].text ?? "?") (rowid \(violation[1].integer.map(String.init) ?? "?")) "
                                          + "referring to a missing row of \(violation[2].text ?? "?")")
                }
                let record = ledger.record(migration)
                try execute(record.sql, record.arguments)
                return migration
            }
        } catch let error as SQLiteError {
            var message = error.message
            if let sql = error.sql { message += " (in: \(SQLiteError.oneLine(sql, limit: 200)))" }
            throw plan.failure(of: step ?? expected, message)
        }
    }

    /// Records `migrations` (the first steps) of a database written before versioning as applied,
    /// with the SQL declared now, without running them; returns the records.
    private func adopt(_ migrations: ArraySlice<StoreMigration>, in ledger: MigrationLedger) throws -> [Int: String] {
        try transaction(.immediate) {
            if let create = ledger.create { try execute(create) }
            let current = try appliedMigrations(in: ledger)
            guard current.isEmpty else { return current }  // another connection got there first
            var adopted: [Int: String] = [:]
            for migration in migrations {
                let record = ledger.record(migration)
                try execute(record.sql, record.arguments)
                adopted[migration.version] = migration.sql
            }
            return adopted
        }
    }

    /// The versions recorded in `ledger`, with their SQL; none if its table does not exist yet (a
    /// database written before versioning, or a new one).
    func appliedMigrations(in ledger: MigrationLedger) throws -> [Int: String] {
        guard try tableExists(ledger.table) else { return [:] }
        var applied: [Int: String] = [:]
        for row in try fetchAll(ledger.selectApplied, ledger.selectArguments) { applied[Int(row[0].integer ?? 0)] = row[1].text ?? "" }
        return applied
    }

    /// Whether the table `name` exists in this database (for ``StoreSchema/legacyVersion``).
    public func tableExists(_ name: String) throws -> Bool {
        try fetchOne("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?", [.text(name)]) != nil
    }
}

extension SQLiteDatabase {
    /// Brings one of the host's stores up to date; see ``SQLiteConnection/migrate(_:parameters:nowMillis:)``.
    @discardableResult
    public func migrate(_ schema: StoreSchema, parameters: [String: SQLiteValue] = [:],
                        nowMillis: Int64 = StoreMigrationClock.nowMillis()) throws -> Int {
        try withConnection { connection in
            try connection.migrate(schema, parameters: parameters, nowMillis: nowMillis)
        }
    }
}

/// When a migration is recorded as applied, by default.
public enum StoreMigrationClock {
    /// The wall clock in milliseconds since 1970: a record of when a file was upgraded, which no
    /// behaviour depends on (a store with a clock of its own passes that instead).
    public static func nowMillis() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }
}
