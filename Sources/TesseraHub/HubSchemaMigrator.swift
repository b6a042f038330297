import TesseraSDK
import TesseraSQLite

/// Brings the hub's tables up to date on a ``HubDatabase`` — SQLite or PostgreSQL — with the
/// same list (``HubMigrations``) and the same rules as every host store
/// (`StoreMigrationRules`): versions 1…n in order, each step in its own transaction with its
/// record in `_tessera_schema`, an applied step never edited, a database ahead of the code refused.
///
/// Every transaction first takes the `schema` lock (an advisory lock in PostgreSQL), so hub
/// replicas that start together apply each step once: the one that waited reads the records
/// again and finds it done.
enum HubSchemaMigrator {
    /// Applies the pending steps of `migrations`; returns the version the hub is at.
    /// `nowMillis` is the hub's clock, bound to `:now_ms` and recorded with each step.
    @discardableResult
    static func migrate(_ database: any HubDatabase, migrations: [HubMigration] = HubMigrations.all,
                        nowMillis: Int64) async throws -> Int {
        let store = HubMigrations.store, location = database.location, dialect = database.dialect
        let declared = migrations.map { $0.storeMigration(for: dialect) }
        try StoreMigrationRules.checkDeclared(declared, StoreMigrationError.Subject(store: store, location: location))
        try await database.transaction { sql in
            try await sql.lock("schema")
            try await sql.execute(StoreMigrationRules.createRecords, [])
            try await adoptLegacy(on: sql, declared: declared, dialect: dialect, location: location, nowMillis: nowMillis)
        }
        while try await applyNext(on: database, migrations: migrations, declared: declared, nowMillis: nowMillis) != nil {}
        return declared.count
    }

    /// Applies the first pending step in its own transaction; returns its version, or `nil` when
    /// none is pending.
    private static func applyNext(on database: any HubDatabase, migrations: [HubMigration], declared: [StoreMigration],
                                  nowMillis: Int64) async throws -> Int? {
        let store = HubMigrations.store, location = database.location, dialect = database.dialect
        return try await database.transaction { sql -> Int? in
            try await sql.lock("schema")
            let applied = try await appliedMigrations(on: sql)
            guard let next = try StoreMigrationRules.pending(declared, applied: applied, StoreMigrationError.Subject(store: store, location: location)).first else {
                return nil
            }
            do {
                for statement in migrations[next.version - 1].statements(for: dialect) {
                    let (text, arguments) = bindNamed(statement, ["now_ms": .integer(nowMillis)])
                    try await sql.execute(text, arguments)
                }
            } catch {
                throw StoreMigrationError(store: store, location: location,
                                          problem: .failed(version: next.version, message: "\(error)"))
            }
            try await sql.execute(StoreMigrationRules.insertRecord,
                                  [.text(store), .integer(Int64(next.version)), .text(next.sql), .integer(nowMillis)])
            return next.version
        }
    }

    /// Records the steps a hub written before `_tessera_schema` already has, without running them.
    private static func adoptLegacy(on sql: any HubSQL, declared: [StoreMigration], dialect: HubSQLDialect,
                                    location: String, nowMillis: Int64) async throws {
        guard try await appliedMigrations(on: sql).isEmpty else { return }
        let legacy = try await HubMigrations.legacyVersion(on: sql, dialect: dialect)
        if legacy > declared.count {
            throw StoreMigrationError(store: HubMigrations.store, location: location,
                                      problem: .databaseAhead(applied: legacy, known: declared.count))
        }
        for migration in declared.prefix(legacy) {
            try await sql.execute(StoreMigrationRules.insertRecord,
                                  [.text(HubMigrations.store), .integer(Int64(migration.version)), .text(migration.sql), .integer(nowMillis)])
        }
    }

    private static func appliedMigrations(on sql: any HubSQL) async throws -> [Int: String] {
        var applied: [Int: String] = [:]
        for row in try await sql.fetchAll(StoreMigrationRules.selectApplied, [.text(HubMigrations.store)]) {
            applied[Int(row[0].integer ?? 0)] = row[1].text ?? ""
        }
        return applied
    }

    /// `statement` with each `:name` of `values` turned into a `?` placeholder, and the values in
    /// placeholder order (the hub's databases both take `?`; PostgreSQL's `::` casts are left alone).
    static func bindNamed(_ statement: String, _ values: [String: SQLValue]) -> (String, [SQLValue]) {
        var text = "", arguments: [SQLValue] = []
        var characters = statement[...]
        while let colon = characters.firstIndex(of: ":") {
            text += characters[..<colon]
            let afterColon = characters.index(after: colon)
            let nameEnd = characters[afterColon...].firstIndex { !($0.isLetter || $0.isNumber || $0 == "_") } ?? characters.endIndex
            let name = String(characters[afterColon..<nameEnd])
            let isCast = text.last == ":" || characters[afterColon...].first == ":"
            if !isCast, let value = values[name] {
                text += "?"
                arguments.append(value)
            } else {
                text += characters[colon..<nameEnd]
            }
            characters = characters[nameEnd...]
        }
        text += characters
        return (text, arguments)
    }
}
