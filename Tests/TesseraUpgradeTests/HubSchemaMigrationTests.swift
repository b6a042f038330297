import Foundation
import Testing
@testable import TesseraHub
import TesseraHubPostgres
import TesseraSDK
import TesseraSQLite
import TesseraTestFixtures

/// The hub's tables through the host stores' migrator, on both of its databases: the same list
/// (`HubMigrations`) and the same rules, on a real SQLite file and a real PostgreSQL server.
@Suite struct HubSchemaMigrationTests {
    static let now: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_772_438_400) }  // 2026-03-02T08:00Z
    static var nowMillis: Int64 { Int64(now().timeIntervalSince1970 * 1000) }
    /// Every version this tessera knows, and the one after the last (a newer tessera's).
    static let known = HubMigrations.all.map(\.version)
    static var next: Int { known.last! + 1 }

    /// A fresh PostgreSQL database of the shared test server.
    static func postgres() async throws -> (PostgresHubDatabase, String) {
        let server = try await PostgresTestServer.shared()
        let name = try await server.createDatabase()
        return (PostgresHubDatabase(host: server.host, port: server.port, user: server.user, password: server.password,
                                    database: name, tls: .disable), name)
    }

    static func records(_ database: any HubDatabase) async throws -> [Int] {
        try await database.transaction { sql in
            try await sql.fetchAll("SELECT version FROM _tessera_schema WHERE store = 'hub' ORDER BY version", [])
                .map { Int($0[0].integer ?? 0) }
        }
    }

    static func tableExists(_ database: any HubDatabase, _ name: String) async throws -> Bool {
        try await database.transaction { sql in
            try await sql.fetchAll("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?",
                                   [.text(name)]).first?.first?.integer ?? 0 > 0
        }
    }

    // MARK: PostgreSQL

    @Test(.needs("initdb", "pg_ctl")) func aNewPostgresHubRunsEveryStepAndRecordsIt() async throws {
        let (database, _) = try await Self.postgres()
        defer { database.shutdown() }
        let hub = try await HubStore(database: database, now: Self.now)
        #expect(try await Self.records(database) == Self.known)
        _ = try await hub.createPerson(name: "ada", password: "correct horse")
        let login = try await hub.login(name: "ada", password: "correct horse", deviceName: "laptop")
        #expect(try await hub.device(forToken: login.token)?.id == login.deviceID)
        // Opening again runs nothing (v2's ADD COLUMN would fail twice) and keeps the rows.
        let again = try await HubStore(database: database, now: Self.now)
        #expect(try await again.people().map(\.name) == ["ada"])
    }

    /// What release d2dff17 (before the migrator) made in PostgreSQL, copied from its
    /// `PostgresHubSchema.script`: the tables with `last_used_ms` from the start, `hub_schema` at 1.
    static let releaseD2dff17Postgres: [String] = [
        "CREATE TABLE IF NOT EXISTS hub_schema(version BIGINT NOT NULL)",
        """
        CREATE TABLE IF NOT EXISTS hub_people(
            id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, password_hash TEXT NOT NULL, created_ms BIGINT NOT NULL)
        """,
        // `rowid` is named as SQLite's implicit one: devices are listed in the order they logged in.
        """
        CREATE TABLE IF NOT EXISTS hub_devices(
            rowid BIGINT GENERATED ALWAYS AS IDENTITY, id TEXT PRIMARY KEY, person TEXT NOT NULL REFERENCES hub_people(id),
            name TEXT NOT NULL, token_sha256 BYTEA NOT NULL UNIQUE, created_ms BIGINT NOT NULL, last_used_ms BIGINT)
        """,
        """
        CREATE TABLE IF NOT EXISTS hub_spaces(
            id TEXT PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('personal', 'shared')),
            deleted INTEGER NOT NULL DEFAULT 0, created_ms BIGINT NOT NULL)
        """,
        """
        CREATE TABLE IF NOT EXISTS hub_members(
            space TEXT NOT NULL REFERENCES hub_spaces(id), person TEXT NOT NULL REFERENCES hub_people(id),
            role TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')), PRIMARY KEY (space, person))
        """,
        "CREATE INDEX IF NOT EXISTS hub_members_person ON hub_members(person)",
        """
        CREATE TABLE IF NOT EXISTS hub_departures(
            space TEXT NOT NULL, person TEXT NOT NULL, reason TEXT NOT NULL, at_ms BIGINT NOT NULL, PRIMARY KEY (space, person))
        """,
        """
        CREATE TABLE IF NOT EXISTS hub_invitations(
            code_sha256 BYTEA PRIMARY KEY, space TEXT NOT NULL REFERENCES hub_spaces(id),
            role TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')), inviter TEXT NOT NULL,
            expires_ms BIGINT NOT NULL, accepted_by TEXT)
        """,
        // seq is the arrival order. A sequence never hands a number out twice; pushes of one plugin
        // hold its advisory lock until they commit, so numbers also commit in order.
        """
        CREATE TABLE IF NOT EXISTS hub_changes(
            seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, plugin TEXT NOT NULL, space TEXT NOT NULL,
            ts TEXT NOT NULL, col TEXT NOT NULL, record BYTEA NOT NULL, UNIQUE (plugin, space, ts, col))
        """,
        "CREATE INDEX IF NOT EXISTS hub_changes_pull ON hub_changes(plugin, seq)",
        """
        CREATE TABLE IF NOT EXISTS hub_merkle(
            plugin TEXT NOT NULL, space TEXT NOT NULL, prefix TEXT NOT NULL, hash BIGINT NOT NULL,
            PRIMARY KEY (plugin, space, prefix))
        """,
        "INSERT INTO hub_schema(version) VALUES (1)",
    ]

    @Test(.needs("initdb", "pg_ctl")) func aPostgresHubFromBeforeVersioningIsRecordedAtVersion2AndKeepsItsPeople() async throws {
        let (database, _) = try await Self.postgres()
        defer { database.shutdown() }
        let hash = try PasswordHash.make("correct horse")
        try await database.transaction { sql in
            for statement in Self.releaseD2dff17Postgres { try await sql.execute(statement, []) }
            try await sql.execute("INSERT INTO hub_people(id, name, password_hash, created_ms) VALUES ('p1', 'ada', ?, 1)", [.text(hash)])
        }
        let hub = try await HubStore(database: database, now: Self.now)
        #expect(try await Self.records(database) == Self.known)
        let login = try await hub.login(name: "ada", password: "correct horse", deviceName: "laptop")
        #expect(try await hub.device(forToken: login.token)?.person == "p1")
    }

    @Test(.needs("initdb", "pg_ctl")) func aPostgresHubAheadOfTheCodeIsRefusedNamingTheDatabaseAndBothVersions() async throws {
        let (database, name) = try await Self.postgres()
        defer { database.shutdown() }
        _ = try await HubStore(database: database, now: Self.now)
        try await database.transaction { sql in
            try await sql.execute("INSERT INTO _tessera_schema(store, version, sql, applied_ms) VALUES ('hub', ?, 'from a newer tessera', 0)", [.integer(Int64(Self.next))])
        }
        do {
            _ = try await HubStore(database: database, now: Self.now)
            Issue.record("a hub written by a newer tessera opened")
        } catch let error as StoreMigrationError {
            #expect(error.problem == .databaseAhead(applied: Self.next, known: Self.known.last!))
            #expect(error.description.contains("the hub store in PostgreSQL database \(name)"))
            #expect(error.description.contains("is at schema version \(Self.next), but this tessera knows versions up to \(Self.known.last!)"))
        }
    }

    @Test(.needs("initdb", "pg_ctl")) func aFailingPostgresStepIsRolledBackAndTheEarlierStepsStay() async throws {
        let (database, _) = try await Self.postgres()
        defer { database.shutdown() }
        let failing = HubMigration(version: Self.next, sqlite: [], postgres: ["CREATE TABLE hub_extra(x BIGINT)", "INSERT INTO no_such_table VALUES (1)"])
        do {
            try await HubSchemaMigrator.migrate(database, migrations: HubMigrations.all + [failing], nowMillis: Self.nowMillis)
            Issue.record("a failing step succeeded")
        } catch let error as StoreMigrationError {
            guard case .failed(let version, let message) = error.problem else { Issue.record("\(error)"); return }
            #expect(version == Self.next)
            #expect(message.contains("no_such_table"))
        }
        #expect(try await Self.records(database) == Self.known)
        #expect(try await !Self.tableExists(database, "hub_extra"))
        let fixed = HubMigration(version: Self.next, sqlite: [], postgres: ["CREATE TABLE hub_extra(x BIGINT)"])
        #expect(try await HubSchemaMigrator.migrate(database, migrations: HubMigrations.all + [fixed], nowMillis: Self.nowMillis) == Self.next)
        #expect(try await Self.tableExists(database, "hub_extra"))
    }

    @Test(.needs("initdb", "pg_ctl")) func replicasStartingTogetherApplyEachStepOnce() async throws {
        let (first, name) = try await Self.postgres()
        let server = try await PostgresTestServer.shared()
        let replicas = [first] + (0..<3).map { _ in
            PostgresHubDatabase(host: server.host, port: server.port, user: server.user, password: server.password, database: name, tls: .disable)
        }
        defer { replicas.forEach { $0.shutdown() } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for replica in replicas { group.addTask { _ = try await HubStore(database: replica, now: Self.now) } }
            try await group.waitForAll()
        }
        #expect(try await Self.records(first) == Self.known)
    }

    // MARK: SQLite

    @Test func aFirstReleaseSQLiteHubGetsVersion2AndItsDevicesCountAsUsedNow() async throws {
        let path = Fixtures.temporaryDirectory("hub-v1") + "/hub.sqlite"
        let hash = try PasswordHash.make("correct horse")
        do {
            // The first hub's tables (user_version 0, no last_used_ms), with a device.
            let old = try SQLiteConnection(path: path)
            for statement in HubMigrations.version1.sqlite { try old.execute(statement) }
            try old.execute("INSERT INTO hub_people VALUES ('p1', 'ada', ?, 1)", [.text(hash)])
            try old.execute("INSERT INTO hub_devices VALUES ('d1', 'p1', 'old laptop', x'00', 1)", [])
        }
        let hub = try await HubStore(path: path, now: Self.now)
        let check = try SQLiteConnection(path: path)
        #expect(try check.fetchAll("SELECT version FROM _tessera_schema WHERE store = 'hub' ORDER BY version", []) == Self.known.map { [.integer(Int64($0))] })
        #expect(try check.fetchOne("SELECT last_used_ms FROM hub_devices WHERE id = 'd1'") == [.integer(Self.nowMillis)])
        _ = try await hub.login(name: "ada", password: "correct horse", deviceName: "new laptop")
    }

    @Test func aSQLiteHubAheadOfTheCodeIsRefusedNamingTheFile() async throws {
        let path = Fixtures.temporaryDirectory("hub-ahead") + "/hub.sqlite"
        _ = try await HubStore(path: path, now: Self.now)
        try SQLiteConnection(path: path).execute("INSERT INTO _tessera_schema VALUES ('hub', \(Self.next), 'newer', 0)")
        await #expect(throws: StoreMigrationError(store: "hub", location: path, problem: .databaseAhead(applied: Self.next, known: Self.known.last!))) {
            _ = try await HubStore(path: path, now: Self.now)
        }
    }

    @Test func namedParametersBecomePlaceholdersButCastsStay() {
        let (text, arguments) = HubSchemaMigrator.bindNamed("UPDATE t SET a = :now_ms, b = x::bigint, c = ':other'", ["now_ms": .integer(7)])
        #expect(text == "UPDATE t SET a = ?, b = x::bigint, c = ':other'")
        #expect(arguments == [.integer(7)])
    }
}
