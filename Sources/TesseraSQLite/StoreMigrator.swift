import CSQLite
import Foundation

extension SQLiteConnection {
    /// Brings one of the host's stores in this database up to date: applies, in order, each of
    /// `schema`'s migrations not yet recorded in `_tessera_schema`, and returns the store's version.
    ///
    /// - Each step runs in its own `BEGIN IMMEDIATE` transaction together with its record, so a
    ///   crash leaves it applied and recorded, or neither. The records are read again inside each
    ///   step's transaction: another process opening the same file meanwhile applies a step once.
    /// - An up-to-date store is only read: no transaction, no write lock.
    /// - As for plugins' migrations, foreign keys are off while a step runs (so a table rebuild
    ///   does not cascade) and `PRAGMA foreign_key_check` runs before its commit.
    /// - Named parameters in a step's SQL (`:now_ms`) are bound from `parameters`.
    ///
    /// - Throws: ``StoreMigrationError``: a malformed list, a database at a later version than the
    ///   list (written by a newer tessera), or an applied step whose SQL changed, before anything
    ///   runs; a failed step after rolling it back (the steps before it stay applied).
    @discardableResult
    public func migrate(_ schema: StoreSchema, parameters: [String: SQLiteValue] = [:],
                        nowMillis: Int64 = StoreMigrationClock.nowMillis()) throws -> Int {
        let store = schema.store, location = path
        func refuse(_ problem: StoreMigrationError.Problem) -> StoreMigrationError {
            StoreMigrationError(store: store, location: location, problem: problem)
        }
        try StoreMigrationRules.checkDeclared(schema.migrations, store: store, location: location)
        var applied = try appliedMigrations(of: store)
        if applied.isEmpty, let legacyVersion = schema.legacyVersion {
            let legacy = try legacyVersion(self)
            if legacy > schema.latestVersion { throw refuse(.databaseAhead(applied: legacy, known: schema.latestVersion)) }
            if legacy > 0 { applied = try adopt(schema, upTo: legacy, nowMillis: nowMillis) }
        }
        let pending = try StoreMigrationRules.pending(schema.migrations, applied: applied, store: store, location: location)
        guard !pending.isEmpty else { return schema.migrations.count - pending.count }
        // PRAGMA foreign_keys has no effect inside a transaction: it is set around the steps.
        let foreignKeys = try fetchOne("PRAGMA foreign_keys")?.first?.integer == 1
        if foreignKeys { try execute("PRAGMA foreign_keys=OFF") }
        var restored = !foreignKeys
        // On a failed step the error that stopped it is what the caller needs; the pragma is
        // put back as well as it can be. On success its failure is an error of its own: a
        // connection left without foreign keys would let later writes break them.
        defer { if !restored { try? execute("PRAGMA foreign_keys=ON") } }
        for migration in pending {
            try apply(migration, of: schema, parameters: parameters, nowMillis: nowMillis)
        }
        if foreignKeys { try execute("PRAGMA foreign_keys=ON"); restored = true }
        return schema.latestVersion
    }

    /// Applies one step in its own transaction, unless another connection applied it meanwhile.
    private func apply(_ migration: StoreMigration, of schema: StoreSchema,
                       parameters: [String: SQLiteValue], nowMillis: Int64) throws {
        let store = schema.store, location = path
        do {
            try transaction(.immediate) {
                try execute(StoreMigrationRules.createRecords)
                let current = try appliedMigrations(of: store)
                let pending = try StoreMigrationRules.pending(schema.migrations, applied: current, store: store, location: location)
                guard pending.first?.version == migration.version else { return }
                try execute(migration.sql, named: parameters)
                if let violation = try fetchOne("PRAGMA foreign_key_check") {
                    throw SQLiteError(extendedCode: SQLITE_CONSTRAINT,
                                      message: "it leaves a row of \(violation[0].text ?? "?") (rowid \(violation[1].integer.map(String.init) ?? "?")) "
                                          + "referring to a missing row of \(violation[2].text ?? "?")")
                }
                try execute(StoreMigrationRules.insertRecord,
                            [.text(store), .integer(Int64(migration.version)), .text(migration.sql), .integer(nowMillis)])
            }
        } catch let error as SQLiteError {
            var message = error.message
            if let sql = error.sql { message += " (in: \(SQLiteError.oneLine(sql, limit: 200)))" }
            throw StoreMigrationError(store: store, location: location, problem: .failed(version: migration.version, message: message))
        }
    }

    /// Records versions 1...`version` of a database written before versioning as applied, with
    /// the SQL declared now, without running them; returns the records.
    private func adopt(_ schema: StoreSchema, upTo version: Int, nowMillis: Int64) throws -> [Int: String] {
        try transaction(.immediate) {
            try execute(StoreMigrationRules.createRecords)
            let current = try appliedMigrations(of: schema.store)
            guard current.isEmpty else { return current }  // another connection got there first
            var adopted: [Int: String] = [:]
            for migration in schema.migrations.prefix(version) {
                try execute(StoreMigrationRules.insertRecord,
                            [.text(schema.store), .integer(Int64(migration.version)), .text(migration.sql), .integer(nowMillis)])
                adopted[migration.version] = migration.sql
            }
            return adopted
        }
    }

    /// The versions of `store` recorded in `_tessera_schema`, with their SQL; none if the table
    /// does not exist yet (a database written before versioning, or a new one).
    func appliedMigrations(of store: String) throws -> [Int: String] {
        guard try fetchOne("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = '_tessera_schema'") != nil else {
            return [:]
        }
        var applied: [Int: String] = [:]
        for row in try fetchAll(StoreMigrationRules.selectApplied, [.text(store)]) {
            applied[Int(row[0].integer ?? 0)] = row[1].text ?? ""
        }
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
