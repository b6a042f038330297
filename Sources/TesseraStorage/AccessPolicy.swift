import CSQLite
import Synchronization
import TesseraSQLite

/// What a plugin's SQL may do, enforced by SQLite authorizers on the storage's two connections.
///
/// - The read-only connection (``SQLitePluginStorage/query(_:_:)``) allows reading only: no write or
///   schema change, no `ATTACH`/`DETACH`, no transaction control, only reading pragmas.
/// - The writer runs the host's own statements, and the plugin's SQL only in migrations and through
///   triggers of its tables. While plugin SQL runs (``SQLGuard/asPlugin(_:)``) the writer refuses
///   `ATTACH`/`DETACH`, pragmas that set something, transaction control, and any change to the
///   host's `_tessera_*` tables. `ATTACH` is refused on both connections at all times.
enum AccessPolicy {
    /// Pragmas a plugin may run without an argument: they only report.
    static let readPragmas: Set<String> = [
        "application_id", "auto_vacuum", "collation_list", "compile_options", "data_version",
        "database_list", "encoding", "foreign_keys", "freelist_count", "function_list",
        "module_list", "page_count", "page_size", "pragma_list", "schema_version", "user_version",
    ]

    /// Pragmas a plugin may run with an argument, which names a table or index (or bounds a check).
    static let readPragmasWithArgument: Set<String> = [
        "foreign_key_check", "foreign_key_list", "index_info", "index_list", "index_xinfo",
        "integrity_check", "quick_check", "table_info", "table_list", "table_xinfo",
    ]

    /// SQL functions never allowed: they load code, or (fts3_tokenizer) take raw pointers.
    static let deniedFunctions: Set<String> = ["load_extension", "fts3_tokenizer", "readfile", "writefile", "edit"]

    /// Whether `name` is one of the host's own tables (or SQLite's), which the record API refuses.
    static func isInternal(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.hasPrefix("_tessera_") || lower.hasPrefix("sqlite_")
    }

    /// Whether `name` is one of the host's tables, which plugin SQL may read but never change.
    static func isHostTable(_ name: String?) -> Bool {
        guard let name else { return false }
        return name.lowercased().hasPrefix("_tessera_")
    }

    static func isSchemaTable(_ name: String?) -> Bool {
        guard let name = name?.lowercased() else { return false }
        return name == "sqlite_master" || name == "sqlite_temp_master" || name == "sqlite_schema"
    }

    static let attachDenied = "ATTACH and DETACH are not allowed: a plugin reads only its own database"

    /// The decision on a pragma, shared by both connections: reading pragmas only.
    static func pragma(_ request: SQLiteAuthorizerRequest) -> String? {
        let name = (request.argument1 ?? "").lowercased()
        if readPragmasWithArgument.contains(name) { return nil }
        if request.argument2 == nil, readPragmas.contains(name) { return nil }
        if readPragmas.contains(name) {
            return "PRAGMA \(name) with a value is not allowed: it changes a setting the host owns"
        }
        return "PRAGMA \(name) is not allowed: only pragmas that report (like table_info) may run"
    }

    static func function(_ request: SQLiteAuthorizerRequest) -> String? {
        let name = (request.argument2 ?? "").lowercased()
        return deniedFunctions.contains(name) ? "the SQL function \(name) is not allowed" : nil
    }

    /// The authorizer of the read-only connection.
    static func reader(_ guardState: SQLGuard) -> (SQLiteAuthorizerRequest) -> SQLiteAuthorizerDecision {
        { request in
            let refusal: String?
            switch request.action {
            case SQLITE_SELECT, SQLITE_READ, SQLITE_RECURSIVE:
                refusal = nil
            case SQLITE_FUNCTION:
                refusal = function(request)
            case SQLITE_PRAGMA:
                refusal = pragma(request)
            case SQLITE_ATTACH, SQLITE_DETACH:
                refusal = attachDenied
            case SQLITE_TRANSACTION, SQLITE_SAVEPOINT:
                refusal = "transaction control is not allowed in a query: each query reads one consistent snapshot"
            case SQLITE_UPDATE where isSchemaTable(request.argument1):
                // SQLite asks this while it sets up an eponymous virtual table such as
                // pragma_table_info(); no write can follow on a read-only connection whose statements
                // must all be read-only.
                refusal = nil
            default:
                refusal = "a query runs read-only SQL; write through the record API"
            }
            return guardState.decide(refusal)
        }
    }

    /// The authorizer of the writer connection.
    static func writer(_ guardState: SQLGuard) -> (SQLiteAuthorizerRequest) -> SQLiteAuthorizerDecision {
        { request in
            let refusal: String?
            switch request.action {
            case SQLITE_ATTACH, SQLITE_DETACH:
                refusal = attachDenied
            case SQLITE_FUNCTION:
                refusal = function(request)
            case _ where !guardState.runningPluginSQL:
                refusal = nil
            case SQLITE_SELECT, SQLITE_READ, SQLITE_RECURSIVE, SQLITE_SAVEPOINT:
                refusal = nil
            case SQLITE_PRAGMA:
                refusal = pragma(request)
            case SQLITE_TRANSACTION:
                refusal = "migration SQL must not begin or end transactions: the host runs each migration in its own"
            case SQLITE_UPDATE:
                // argument1 is the table, argument2 the column.
                refusal = isHostTable(request.argument1) ? hostTableRefusal(request.argument1) : nil
            case SQLITE_ALTER_TABLE:
                // argument1 is the schema, argument2 the table.
                refusal = isHostTable(request.argument2) ? hostTableRefusal(request.argument2) : nil
            default:
                // INSERT, DELETE, CREATE/DROP TABLE/INDEX/TRIGGER/VIEW…: a table or object name in
                // argument1, and for indexes and triggers the table in argument2.
                if isHostTable(request.argument1) {
                    refusal = hostTableRefusal(request.argument1)
                } else if isHostTable(request.argument2) {
                    refusal = hostTableRefusal(request.argument2)
                } else {
                    refusal = nil
                }
            }
            return guardState.decide(refusal)
        }
    }

    static func hostTableRefusal(_ name: String?) -> String {
        "\(name ?? "_tessera_*") belongs to the host: plugin SQL may read it but not change it"
    }
}

/// The state an authorizer shares with the storage: whether plugin SQL is running now, and why the
/// last statement was refused. Only touched while the connection's lock is held; atomic and locked
/// anyway so that the storage (which is `Sendable`) can keep it.
final class SQLGuard: Sendable {
    private let pluginSQL = Atomic<Bool>(false)
    private let lastRefusal = Mutex<String?>(nil)

    var runningPluginSQL: Bool { pluginSQL.load(ordering: .relaxed) }

    /// Runs `body` with the plugin's rules in force (compiling and stepping plugin SQL).
    func asPlugin<T>(_ body: () throws -> T) rethrows -> T {
        pluginSQL.store(true, ordering: .relaxed)
        defer { pluginSQL.store(false, ordering: .relaxed) }
        return try body()
    }

    func decide(_ refusal: String?) -> SQLiteAuthorizerDecision {
        guard let refusal else { return .allow }
        lastRefusal.withLock { $0 = refusal }
        return .deny
    }

    /// Why the last statement was refused, and forgets it.
    func takeRefusal() -> String? {
        lastRefusal.withLock { value in
            let refusal = value
            value = nil
            return refusal
        }
    }
}
