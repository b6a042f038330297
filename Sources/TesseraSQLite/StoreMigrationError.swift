/// Why a database's schema could not be brought up to date: one of the host's stores, the hub's, or
/// a plugin's database. The ``description`` names the store, its file (or database), and the
/// versions involved, for the operator; ``problem`` is the rule that refused, for code and tests.
public struct StoreMigrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Whose migrations they are: a store of the host's (`clock`, `notifications`, `hub`, …) or a
    /// plugin's database, and where it is.
    public struct Subject: Sendable, Hashable {
        /// The store's name, or the plugin's id.
        public let store: String
        /// The database file, or for PostgreSQL the database.
        public let location: String
        /// A plugin's database: its migrations are the plugin's, and a newer plugin (not a newer
        /// tessera) is what writes a later version.
        public let isPlugin: Bool

        public init(store: String, location: String, isPlugin: Bool = false) {
            self.store = store
            self.location = location
            self.isPlugin = isPlugin
        }

        /// Plugin `id`'s database at `path`.
        public static func plugin(_ id: String, path: String) -> Subject { Subject(store: id, location: path, isPlugin: true) }
    }

    /// What went wrong.
    public enum Problem: Sendable, Hashable, CustomStringConvertible {
        /// A version below 1, at this position (from 0) of the declared list.
        case invalidVersion(version: Int, position: Int)
        /// The same version declared more than once.
        case duplicateVersion(Int)
        /// A gap: this version is missing below the highest declared one.
        case missingVersion(Int, declaredUpTo: Int)
        /// The list is not in version order: this version is at this position (from 0).
        case outOfOrder(version: Int, position: Int)
        /// The database is at a later version than this code knows: a newer tessera wrote it.
        case databaseAhead(applied: Int, known: Int)
        /// This version was applied with other SQL than the code now declares.
        case changedAfterApplied(version: Int)
        /// The records say a later version was applied, but not this one.
        case recordMissing(version: Int, highestApplied: Int)
        /// Applying this version failed (with the database's message); that step was rolled back,
        /// the steps before it stay applied.
        case failed(version: Int, message: String)

        /// The version at fault (for a database ahead, the version it is at).
        public var version: Int {
            switch self {
            case .invalidVersion(let v, _), .duplicateVersion(let v), .missingVersion(let v, _), .outOfOrder(let v, _),
                 .changedAfterApplied(let v), .recordMissing(let v, _), .failed(let v, _):
                v
            case .databaseAhead(let applied, _):
                applied
            }
        }

        /// The problem in one sentence, without naming the store (a plugin's own tests read it).
        public var description: String {
            switch self {
            case .invalidVersion(let v, let p): "migration at position \(p) has version \(v); versions start at 1"
            case .duplicateVersion(let v): "migration version \(v) is declared more than once"
            case .missingVersion(let v, let n): "migration version \(v) is missing; versions must run 1...\(n) without gaps"
            case .outOfOrder(let v, let p): "migration version \(v) is listed at position \(p); list migrations in version order 1...n"
            case .databaseAhead(let applied, let known):
                "the database is at schema version \(applied) but migrations are declared only up to \(known); a newer version wrote it"
            case .changedAfterApplied(let v):
                "migration \(v) was already applied to this database but its SQL has changed since; never edit a shipped migration, add a new one"
            case .recordMissing(let v, let highest): "the database records version \(highest) applied but not version \(v)"
            case .failed(let v, let message): "migration \(v) failed and was rolled back: \(message)"
            }
        }
    }

    /// The store (`clock`, `notifications`, `hub`, …), or the plugin's id.
    public var store: String { subject.store }
    /// The database file, or for PostgreSQL the database.
    public var location: String { subject.location }
    public let subject: Subject
    public let problem: Problem

    public init(store: String, location: String, problem: Problem) {
        self.init(Subject(store: store, location: location), problem)
    }

    public init(_ subject: Subject, _ problem: Problem) {
        self.subject = subject
        self.problem = problem
    }

    public var description: String {
        if subject.isPlugin { return pluginDescription }
        let subject = "the \(store) store in \(location)"
        switch problem {
        case .invalidVersion(let v, let p):
            return "\(subject): migration at position \(p) has version \(v); versions start at 1"
        case .duplicateVersion(let v):
            return "\(subject): migration version \(v) is declared more than once"
        case .missingVersion(let v, let n):
            return "\(subject): migration version \(v) is missing; versions must run 1...\(n) without gaps"
        case .outOfOrder(let v, let p):
            return "\(subject): migration version \(v) is listed at position \(p); list migrations in version order 1...n"
        case .databaseAhead(let applied, let known):
            return "\(subject) is at schema version \(applied), but this tessera knows versions up to \(known): "
                + "a newer tessera wrote it; run that version (or a later one), or restore a backup this one wrote"
        case .changedAfterApplied(let v):
            return "\(subject): migration \(v) was applied with other SQL than this tessera declares; "
                + "a shipped migration is never edited (add a new one)"
        case .recordMissing(let v, let highest):
            return "\(subject): the database records version \(highest) applied but not version \(v)"
        case .failed(let v, let message):
            return "\(subject): migration \(v) failed and was rolled back: \(message)"
        }
    }

    /// A plugin's database: the plugin's migrations, which a newer plugin may be ahead of.
    private var pluginDescription: String {
        switch problem {
        case .databaseAhead(let applied, let known):
            "the database of plugin '\(store)' (\(location)) is at schema version \(applied) but the plugin declares migrations only up to "
                + "\(known); it was written by a newer version of the plugin"
        default:
            "the database of plugin '\(store)' (\(location)): \(problem)"
        }
    }
}

/// The records table of the host's stores and the hub: the same statements in SQLite and
/// PostgreSQL. The rules every migration follows are ``MigrationPlan``'s.
public enum StoreMigrationRules {
    /// The records: one row per store and applied version, with the SQL applied (to refuse one
    /// edited later) and when (milliseconds since 1970). The same statement in SQLite and
    /// PostgreSQL; the current version of a store is its highest row.
    public static let createRecords = """
        CREATE TABLE IF NOT EXISTS _tessera_schema(
            store TEXT NOT NULL, version INTEGER NOT NULL, sql TEXT NOT NULL, applied_ms BIGINT NOT NULL,
            PRIMARY KEY (store, version))
        """
    /// A store's records (`?` is the store).
    public static let selectApplied = "SELECT version, sql FROM _tessera_schema WHERE store = ?"
    /// One record: store, version, SQL, milliseconds.
    public static let insertRecord = "INSERT INTO _tessera_schema(store, version, sql, applied_ms) VALUES (?, ?, ?, ?)"
}
