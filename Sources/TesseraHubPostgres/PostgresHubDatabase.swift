import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import Synchronization
import TesseraHub
import TesseraSDK

/// The hub's store in PostgreSQL (DESIGN.md §7): for a hub that has outgrown one machine and runs
/// as several stateless replicas over one database.
///
/// Every replica runs the same store code as the embedded SQLite hub (`HubStore`); this type only
/// carries its SQL to PostgreSQL. What differs:
/// - `?` placeholders become `$1`, `$2`, …;
/// - transactions run at PostgreSQL's default isolation (read committed), and the writers that must
///   not interleave across replicas take an advisory lock (``HubSQL/lock(_:)``): one plugin's
///   pushes, one space's member changes;
/// - the hub's migrations (`HubMigrations`, in PostgreSQL's types) run under an advisory lock, so
///   replicas starting together apply each step once.
///
/// The client keeps a pool of connections; ``run()`` must run while the store is used (the
/// hub's `serve` runs it beside the HTTP server), and ``shutdown()`` closes the pool.
public final class PostgresHubDatabase: HubDatabase {
    private let client: PostgresClient
    private let logger: Logger
    /// One connection's settings, for ``checkConnection()``.
    private let probeConfiguration: PostgresConnection.Configuration?
    private let runner: Task<Void, Never>
    /// The database and server, for messages (`PostgreSQL database tessera at 127.0.0.1:5432`).
    public let location: String
    /// Set as the pool's `run()` begins: a lease asked for before that works, but logs a warning.
    private let running: Flag

    /// Connects a pool to `configuration`'s database (lazily: the first transaction connects) and
    /// starts running it.
    public convenience init(configuration: PostgresClient.Configuration, logger: Logger = Logger(label: "tessera.hub.postgresql")) {
        self.init(configuration: configuration, probe: nil, location: "the PostgreSQL database", logger: logger)
    }

    private init(configuration: PostgresClient.Configuration, probe: PostgresConnection.Configuration?, location: String, logger: Logger) {
        probeConfiguration = probe
        self.location = location
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let running = Flag()
        self.client = client
        self.logger = logger
        self.running = running
        runner = Task {
            running.set()
            await client.run()
        }
    }

    /// Closes the pool's connections; transactions after this fail.
    public func shutdown() {
        runner.cancel()
    }

    /// Opens one connection and closes it: fails at once with the server's reason (a wrong
    /// password, an unknown database, a refused connection), where the pool would retry quietly.
    public func checkConnection() async throws {
        guard let probeConfiguration else { return }
        do {
            let connection = try await PostgresConnection.connect(
                on: PostgresClient.defaultEventLoopGroup.any(), configuration: probeConfiguration, id: 0, logger: logger).get()
            try await connection.close()
        } catch let error as PSQLError {
            throw PostgresStoreError(error)
        }
    }

    public var dialect: HubSQLDialect { .postgresql }

    public func transaction<T: Sendable>(_ body: (any HubSQL) async throws -> T) async throws -> T {
        while !running.isSet { await Task.yield() }
        do {
            return try await client.withTransaction(logger: logger) { connection in
                try await body(Transaction(connection: connection, logger: logger))
            }
        } catch let error as PostgresTransactionError {
            // The body's own refusal (a HubError) comes out as it went in.
            if let refusal = error.closureError, error.rollbackError == nil { throw refusal }
            throw PostgresStoreError(error)
        } catch let error as PSQLError {
            throw PostgresStoreError(error)
        }
    }

    /// A flag one task sets and others read.
    private final class Flag: Sendable {
        private let value = Mutex(false)
        var isSet: Bool { value.withLock { $0 } }
        func set() { value.withLock { $0 = true } }
    }

    /// One open transaction on a leased connection.
    struct Transaction: HubSQL {
        let connection: PostgresConnection
        let logger: Logger

        func execute(_ sql: String, _ arguments: [SQLValue]) async throws -> Int {
            try await run(sql, arguments).metadata.rows ?? 0
        }

        func fetchAll(_ sql: String, _ arguments: [SQLValue]) async throws -> [[SQLValue]] {
            try await run(sql, arguments).rows.map { row in try row.map(Self.value(of:)) }
        }

        func lock(_ key: String) async throws {
            // hashtext: a 32-bit hash of the key; a collision only makes two writers take turns.
            _ = try await execute("SELECT pg_advisory_xact_lock(hashtext(?))", [.text(key)])
        }

        func preferOrderedScans() async throws {
            // Until the transaction ends; with sorting off the arrival index is the only cheap plan.
            _ = try await execute("SET LOCAL enable_sort = off", [])
        }

        private func run(_ sql: String, _ arguments: [SQLValue]) async throws -> PostgresQueryResult {
            let query = PostgresQuery(unsafeSQL: Self.numberPlaceholders(sql), binds: try Self.bindings(arguments))
            let result: EventLoopFuture<PostgresQueryResult> = connection.query(query, logger: logger)
            do {
                return try await result.get()
            } catch let error as PSQLError {
                throw PostgresStoreError(error)
            }
        }

        /// `?` → `$1`, `$2`, …; the store's SQL has no `?` inside its string literals.
        static func numberPlaceholders(_ sql: String) -> String {
            var numbered = "", index = 0
            numbered.reserveCapacity(sql.utf8.count + 8)
            for character in sql {
                if character == "?" {
                    index += 1
                    numbered += "$\(index)"
                } else {
                    numbered.append(character)
                }
            }
            return numbered
        }

        static func bindings(_ arguments: [SQLValue]) throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: arguments.count)
            for argument in arguments {
                switch argument {
                case .null: bindings.appendNull()
                case .integer(let value): bindings.append(value)
                case .real(let value): bindings.append(value)
                case .text(let value): bindings.append(value)
                case .blob(let bytes): bindings.append(ByteBuffer(bytes: bytes))
                }
            }
            return bindings
        }

        /// A cell as the store reads it: integers of any width as `.integer`, `bytea` as `.blob`.
        static func value(of cell: PostgresCell) throws -> SQLValue {
            guard cell.bytes != nil else { return .null }
            switch cell.dataType {
            case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
            case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
            case .float4, .float8: return .real(try cell.decode(Double.self))
            case .bytea: return .blob(Array(try cell.decode(ByteBuffer.self).readableBytesView))
            default: return .text(try cell.decode(String.self))
            }
        }
    }
}

/// A failure of the PostgreSQL store, with PostgreSQL's own message and SQLSTATE (and never the
/// query's bound values: they may be token hashes).
public struct PostgresStoreError: Error, CustomStringConvertible {
    public let description: String

    init(_ error: PSQLError) {
        if let server = error.serverInfo {
            self.init(description: "PostgreSQL: \(server[.message] ?? "error") (SQLSTATE \(server[.sqlState] ?? "?"))")
        } else {
            self.init(description: "PostgreSQL: \(error.code)\(error.underlying.map { " (\($0))" } ?? "")")
        }
    }

    init(_ error: PostgresTransactionError) {
        let underlying = error.beginError ?? error.commitError ?? error.rollbackError ?? error.closureError
        if let psql = underlying as? PSQLError {
            self.init(psql)
        } else {
            self.init(description: "PostgreSQL transaction failed: \(underlying.map { "\($0)" } ?? "unknown")")
        }
    }

    private init(description: String) { self.description = description }
}

extension PostgresHubDatabase {
    /// How the connection uses TLS.
    public enum TLSMode: String, Sendable {
        /// Never (a database on loopback or a private network).
        case disable
        /// When the server offers it.
        case prefer
        /// Always, checking the server's certificate; refuse otherwise.
        case require
    }

    /// A pool to the database `database` on `host:port` as `user`.
    public convenience init(host: String, port: Int, user: String, password: String?, database: String, tls: TLSMode) {
        let tlsSetting: PostgresClient.Configuration.TLS
        switch tls {
        case .disable: tlsSetting = .disable
        case .prefer: tlsSetting = .prefer(.makeClientConfiguration())
        case .require: tlsSetting = .require(.makeClientConfiguration())
        }
        var configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password,
                                                         database: database, tls: tlsSetting)
        // A hub's requests are short transactions; a few connections per replica serve them.
        configuration.options.maximumConnections = 8
        // The probe's connection uses TLS as the pool's does; without a TLS context there is no
        // probe (never a weaker connection than the one asked for), and the pool reports instead.
        let probeTLS: PostgresConnection.Configuration.TLS?
        switch tls {
        case .disable: probeTLS = .disable
        case .prefer: probeTLS = (try? NIOSSLContext(configuration: .makeClientConfiguration())).map { .prefer($0) }
        case .require: probeTLS = (try? NIOSSLContext(configuration: .makeClientConfiguration())).map { .require($0) }
        }
        let probe = probeTLS.map {
            PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: $0)
        }
        self.init(configuration: configuration, probe: probe, location: "PostgreSQL database \(database) at \(host):\(port)",
                  logger: Logger(label: "tessera.hub.postgresql"))
    }
}
