/// The one migrator's decisions, apart from any database: what the migrations of every store obey
/// — the host's stores, each plugin's database, the hub's on SQLite or PostgreSQL — and which step
/// comes next.
///
/// Its runners only carry out what it decides, each with its database's I/O: SQLite's
/// (``SQLiteConnection/migrate(_:of:in:legacyVersion:run:applied:)``, synchronous, for the host's
/// stores and plugins' databases) and the hub's (`HubSchemaMigrator`, asynchronous on SQLite or
/// PostgreSQL, the dialect choosing each step's SQL). Every rule is here once, so a store can
/// never be migrated by laxer rules than another; both runners loop the same way:
///
/// ```swift
/// let plan = try MigrationPlan(migrations, of: subject)      // refuses a malformed list
/// // once, for a database written before versioning:
/// for step in try plan.adopted(atLegacyVersion: legacy) { record(step) }
/// // then, each in its own transaction that reads the records again:
/// while let step = try plan.next(applied: records()) { run(step); record(step) }
/// ```
public struct MigrationPlan: Sendable {
    /// The declared steps: versions 1…n, in order, each once.
    public let migrations: [StoreMigration]
    /// Whose they are, for the errors.
    public let subject: StoreMigrationError.Subject

    /// The version an up-to-date database is at.
    public var latest: Int { migrations.count }

    /// A plan for `migrations`, after checking they are versions 1…n, in order, each once.
    public init(_ migrations: [StoreMigration], of subject: StoreMigrationError.Subject) throws(StoreMigrationError) {
        self.migrations = migrations
        self.subject = subject
        try checkDeclared()
    }

    /// The steps still to apply, given the versions `applied` (with their SQL), after refusing a
    /// database ahead of the code, a gap in the records, and an applied step whose SQL changed.
    public func pending(applied: [Int: String]) throws(StoreMigrationError) -> ArraySlice<StoreMigration> {
        let highestApplied = applied.keys.max() ?? 0
        if highestApplied > latest { throw refusal(.databaseAhead(applied: highestApplied, known: latest)) }
        for migration in migrations.prefix(highestApplied) {
            guard let appliedSQL = applied[migration.version] else {
                throw refusal(.recordMissing(version: migration.version, highestApplied: highestApplied))
            }
            if appliedSQL != migration.sql { throw refusal(.changedAfterApplied(version: migration.version)) }
        }
        return migrations.dropFirst(highestApplied)
    }

    /// The step to apply next, given the records; `nil` when the database is up to date.
    public func next(applied: [Int: String]) throws(StoreMigrationError) -> StoreMigration? {
        try pending(applied: applied).first
    }

    /// The steps a database written before versioning, found at `legacy`, records as applied
    /// without running them (the host's stores and the hub only; a plugin's database always had
    /// records). A database ahead of the code is refused.
    public func adopted(atLegacyVersion legacy: Int) throws(StoreMigrationError) -> ArraySlice<StoreMigration> {
        if legacy > latest { throw refusal(.databaseAhead(applied: legacy, known: latest)) }
        return migrations.prefix(max(0, legacy))
    }

    /// The error for `migration` failing with the database's `message` (after its rollback).
    public func failure(of migration: StoreMigration, _ message: String) -> StoreMigrationError {
        refusal(.failed(version: migration.version, message: message))
    }

    private func checkDeclared() throws(StoreMigrationError) {
        var seen = Set<Int>()
        for (position, migration) in migrations.enumerated() {
            if migration.version < 1 { throw refusal(.invalidVersion(version: migration.version, position: position)) }
            if !seen.insert(migration.version).inserted { throw refusal(.duplicateVersion(migration.version)) }
        }
        let highest = seen.max() ?? 0
        if highest > 0, let missing = (1...highest).first(where: { !seen.contains($0) }) {
            throw refusal(.missingVersion(missing, declaredUpTo: highest))
        }
        for (position, migration) in migrations.enumerated() where migration.version != position + 1 {
            throw refusal(.outOfOrder(version: migration.version, position: position))
        }
    }

    private func refusal(_ problem: StoreMigrationError.Problem) -> StoreMigrationError { StoreMigrationError(subject, problem) }
}
