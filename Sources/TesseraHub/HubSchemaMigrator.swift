import TesseraSDK
import TesseraSQLite

/// Brings the hub's tables up to date on a ``HubDatabase`` — SQLite or PostgreSQL — with the
/// list ``HubMigrations`` (each step's SQL in the database's dialect): the runner of the one
/// migrator (``MigrationPlan``) on the hub's asynchronous databases, doing what it decides as the
/// SQLite runner does for the host's stores — versions 1…n in order, each step in its own
/// transaction with its record in `_tessera_schema`, an applied step never edited, a database
/// ahead of the code refused.
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
        let dialect = database.dialect
        let plan = try MigrationPlan(migrations.map { $0.storeMigration(for: dialect) },
                                     of: StoreMigrationError.Subject(store: HubMigrations.store, location: database.location))
        try await database.transaction { sql in
            try await sql.lock("schema")
            try await sql.execute(StoreMigrationRules.createRecords, [])
            try await adoptLegacy(on: sql, plan: plan, dialect: dialect, nowMillis: nowMillis)
        }
        while try await applyNext(plan, on: database, migrations: migrations, nowMillis: nowMillis) != nil {}
        return plan.latest
    }

    /// Applies the step the plan says comes next, in its own transaction; returns its version, or
    /// `nil` when none is pending.
    private static func applyNext(_ plan: MigrationPlan, on database: any HubDatabase, migrations: [HubMigration],
                                  nowMillis: Int64) async throws -> Int? {
        let dialect = database.dialect
        return try await database.transaction { sql -> Int? in
            try await sql.lock("schema")
            guard let next = try plan.next(applied: try await appliedMigrations(on: sql)) else { return nil }
            do {
                for statement in migrations[next.version - 1].statements(for: dialect) {
                    let (text, arguments) = bindNamed(statement, ["now_ms": .integer(nowMillis)])
                    try await sql.execute(text, arguments)
                }
            } catch {
                throw plan.failure(of: next, "\(error)")
            }
            try await record(next, on: sql, nowMillis: nowMillis)
            return next.version
        }
    }

    /// Records the steps a hub written before `_tessera_schema` already has, without running them.
    private static func adoptLegacy(on sql: any HubSQL, plan: MigrationPlan, dialect: HubSQLDialect, nowMillis: Int64) async throws {
        guard try await appliedMigrations(on: sql).isEmpty else { return }
        let legacy = try await HubMigrations.legacyVersion(on: sql, dialect: dialect)
        for migration in try plan.adopted(atLegacyVersion: legacy) {
            try await record(migration, on: sql, nowMillis: nowMillis)
        }
    }

    private static func record(_ migration: StoreMigration, on sql: any HubSQL, nowMillis: Int64) async throws {
        try await sql.execute(StoreMigrationRules.insertRecord,
                              [.text(HubMigrations.store), .integer(Int64(migration.version)), .text(migration.sql), .integer(nowMillis)])
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
