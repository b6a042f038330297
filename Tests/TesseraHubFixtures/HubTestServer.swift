import Foundation
import Synchronization
import TesseraHTTP
import TesseraHub
import TesseraHubPostgres
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraSQLite
import TesseraSync
import TesseraSyncClient
import TesseraTestFixtures
import Testing

/// A settable clock: never the wall clock. What sleeps on it (``sleep(until:)``: the hub's
/// least answer time for a password reset) wakes when a test moves it past the deadline.
public final class TestClock: Sendable {
    private struct State {
        var time: Date
        var sleepers: [(deadline: Date, wake: CheckedContinuation<Void, Never>)] = []
    }
    private let state: Mutex<State>
    /// 2026-03-02T08:00:00Z.
    public static let epoch = Date(timeIntervalSince1970: 1_772_438_400)
    public init(_ start: Date = TestClock.epoch) { state = Mutex(State(time: start)) }
    public var now: @Sendable () -> Date { { [self] in state.withLock { $0.time } } }
    public func advance(_ seconds: Double) {
        let due = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.time = state.time.addingTimeInterval(seconds)
            let time = state.time
            defer { state.sleepers.removeAll { $0.deadline <= time } }
            return state.sleepers.filter { $0.deadline <= time }.map(\.wake)
        }
        due.forEach { $0.resume() }
    }
    public var millis: Int64 { Int64(state.withLock { $0.time }.timeIntervalSince1970 * 1000) }

    /// Returns once the clock reads `deadline` or later.
    public func sleep(until deadline: Date) async {
        await withCheckedContinuation { (wake: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.time >= deadline { return true }
                state.sleepers.append((deadline, wake))
                return false
            }
            if now { wake.resume() }
        }
    }

    /// How many are asleep on the clock now.
    public var sleeping: Int { state.withLock { $0.sleepers.count } }
}

/// A response as a test reads it.
public struct HubResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]
    public var json: JSONValue? { try? JSONValue(parsing: body) }
    public var text: String { String(decoding: body, as: UTF8.self) }
    public var errorCode: String? { json?["error"]?["code"]?.stringValue }
    public var errorMessage: String? { json?["error"]?["message"]?.stringValue }
    public func header(_ name: String) -> String? { headers.first { $0.key.lowercased() == name.lowercased() }?.value }
}

/// Which store a test hub keeps its data in.
public enum HubBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `<data>/hub.sqlite`.
    case sqlite
    /// A fresh database on the test process's PostgreSQL server (``PostgresTestServer``).
    case postgresql

    public var testDescription: String { rawValue }

    /// The stores this machine can test: PostgreSQL only where its server programs are installed.
    /// Where they are not, `TestToolsTests` fails once naming the package, rather than every
    /// PostgreSQL case failing on its own.
    public static var available: [HubBackend] {
        ExternalTools.isPresent("/usr/lib/postgresql/*/bin/initdb") ? allCases : [.sqlite]
    }
}

/// A real hub: a `hub` deployment's host with the hub's store on real SQLite files or a real
/// PostgreSQL database, served over real HTTP on a loopback port the system chose, on a settable
/// clock.
public final class HubTestServer: StoppableTestServer, @unchecked Sendable {
    /// How long a test's own hub client waits for an answer: two minutes, not the client's 30 s.
    /// The hub runs in the test process, on the two cores the whole suite shares; under that load
    /// a request to it has waited longer than 30 s (2026-12-01: "a forged token is refused with the
    /// hub's code" got no answer in time), as the hosts of `PluginTestHost` did before theirs got
    /// `providers.sync.timeout: 2m`.
    public static let clientTimeout: TimeInterval = 120

    /// A device's connection to this hub with `token` (through `port` instead, a proxy's), waiting
    /// ``clientTimeout`` for each answer.
    public func connection(_ token: String, port: Int? = nil) -> HubConnection {
        HubConnection(baseURL: "http://127.0.0.1:\(port ?? self.port)", token: token, timeout: Self.clientTimeout)
    }

    public let root: String
    public let dataDirectory: String
    public let host: PluginHost
    public let server: HTTPServer
    public let hub: HubStore
    /// The files through the hub: bytes under `<data>/hub-files`, with the policy the test gave.
    public let files: HubFiles
    public let clock: TestClock
    public let port: Int
    public let adminToken: String
    /// The PostgreSQL database, for `.postgresql`.
    public let postgres: (database: PostgresHubDatabase, name: String)?

    /// `mailSink`: whether the deployment names an SMTP server (`providers.mail`; nothing sends
    /// its mail unless a test runs a ``HubMailer``): e-mail channels need one.
    public static func start(_ backend: HubBackend = .sqlite, filePolicy: HubFilePolicy = HubFilePolicy(), mailSink: Bool = true) async throws -> HubTestServer {
        let ws = FixtureWorkspace("hub")
        switch backend {
        case .sqlite:
            return try await start(in: ws, clock: TestClock(), postgresDatabase: nil, filePolicy: filePolicy, mailSink: mailSink)
        case .postgresql:
            return try await start(in: ws, clock: TestClock(), postgresDatabase: try await PostgresTestServer.shared().createDatabase(),
                                   filePolicy: filePolicy, mailSink: mailSink)
        }
    }

    /// Another hub replica over this one's PostgreSQL database: its own host, HTTP server, token
    /// file and connection pool, on the same clock.
    public func replica() async throws -> HubTestServer {
        guard let postgres else { throw Failure("only a PostgreSQL hub has replicas") }
        let replica = try await Self.start(in: FixtureWorkspace("hub-replica"), clock: clock, postgresDatabase: postgres.name)
        return replica
    }

    private static func start(in ws: FixtureWorkspace, clock: TestClock, postgresDatabase: String?,
                              filePolicy: HubFilePolicy = HubFilePolicy(), mailSink: Bool = true) async throws -> HubTestServer {
        var providers: [String: Any] = ["storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": "2026-03-02T08:00:00Z"]]
        if mailSink { providers["mail"] = ["kind": "smtp", "host": "127.0.0.1", "port": 25, "from": "hub@tessera.test"] }
        ws.writeDeployment(plugins: [], extra: ["role": "hub", "hub": ["registration": "open"], "providers": providers])
        let deployment = try DeploymentReader.read(file: ws.deploymentFile)
        precondition(deployment.role == .hub)
        let host = try PluginHost(deployment: deployment, options: HostOptions(dataDirectory: ws.dataDirectory))
        let tokens = TokenStore(dataDirectory: ws.dataDirectory)
        let admin = try tokens.ensureAdminToken()!
        var postgres: (database: PostgresHubDatabase, name: String)?
        let hub: HubStore
        if let postgresDatabase {
            let server = try await PostgresTestServer.shared()
            let database = PostgresHubDatabase(host: server.host, port: server.port, user: server.user, password: server.password,
                                               database: postgresDatabase, tls: .disable)
            postgres = (database, postgresDatabase)
            hub = try await HubStore(database: database, now: clock.now, sleepUntil: { await clock.sleep(until: $0) })
        } else {
            hub = try await HubStore(dataDirectory: ws.dataDirectory, now: clock.now, sleepUntil: { await clock.sleep(until: $0) })
        }
        let files = HubFiles(store: hub, blobs: HubBlobStore(directory: ws.dataDirectory + "/hub-files"), policy: filePolicy)
        let server = HTTPServer(host: host, tokens: tokens, configuration: HTTPConfiguration(host: "127.0.0.1", port: 0, rateLimit: nil),
                                hub: hub, hubFiles: files)
        let port = try await server.start()
        await host.start()
        server.markReady()
        return HubTestServer(root: ws.root, dataDirectory: ws.dataDirectory, host: host, server: server, hub: hub, files: files, clock: clock,
                             port: port, adminToken: admin, postgres: postgres)
    }

    private init(root: String, dataDirectory: String, host: PluginHost, server: HTTPServer, hub: HubStore, files: HubFiles, clock: TestClock,
                 port: Int, adminToken: String, postgres: (database: PostgresHubDatabase, name: String)?) {
        self.root = root
        self.dataDirectory = dataDirectory
        self.host = host
        self.server = server
        self.hub = hub
        self.files = files
        self.clock = clock
        self.port = port
        self.adminToken = adminToken
        self.postgres = postgres
    }

    public func stop() async {
        await server.stop()
        await host.stop()
        postgres?.database.shutdown()
    }

    /// Sends one request; `json` goes with `Content-Type: application/json`.
    /// `timeout`: seconds without data before the request fails (a 14 MB body parsed by a debug
    /// build while the whole suite runs needs more than the default).
    public func request(_ method: String, _ path: String, token: String? = nil, json: String? = nil,
                 body: [UInt8]? = nil, contentType: String? = nil, timeout: TimeInterval = 120) async throws -> HubResponse {
        try await HubClient(port: port).request(method, path, token: token, json: json, body: body, contentType: contentType, timeout: timeout)
    }

    /// Creates a person with the admin token; returns their id.
    @discardableResult
    public func addPerson(_ name: String, password: String = "correct horse battery") async throws -> String {
        let response = try await request("POST", "/v1/hub/people", token: adminToken, json: #"{"name":"\#(name)","password":"\#(password)"}"#)
        guard response.status == 201, let id = response.json?["id"]?.stringValue else {
            throw Failure("creating \(name): \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
        return id
    }

    /// Logs a device in; returns its token.
    /// Invites the holder of `token` into `space` with `role` (as the owner holding `ownerToken`)
    /// and accepts the invitation for them.
    public func share(_ space: String, owner ownerToken: String, with token: String, role: String) async throws {
        let invite = try await request("POST", "/v1/hub/spaces/\(space)/invitations", token: ownerToken, json: #"{"role":"\#(role)"}"#)
        guard let code = invite.json?["code"]?.stringValue else { throw Failure("no invitation: \(invite.status)") }
        let accepted = try await request("POST", "/v1/hub/invitations/accept", token: token, json: #"{"code":"\#(code)"}"#)
        guard accepted.status == 200 else { throw Failure("the invitation was not accepted: \(accepted.status)") }
    }

    public func login(_ name: String, device: String, password: String = "correct horse battery") async throws -> String {
        let response = try await request("POST", "/v1/hub/login", json: #"{"name":"\#(name)","password":"\#(password)","device":"\#(device)"}"#)
        guard response.status == 201, let token = response.json?["token"]?.stringValue else {
            throw Failure("login of \(name): \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
        return token
    }

    /// Pushes changes as SyncWire bytes.
    public func push(_ changes: [SyncChange], token: String, plugin: String = DeviceReplica.plugin) async throws -> HubResponse {
        try await request("POST", "/v1/hub/sync/\(plugin)/push", token: token, body: SyncWire.encode(changes),
                          contentType: "application/x-tessera-sync")
    }

    /// One pull page: the changes, the next cursor, whether more remain.
    public func pull(token: String, after: Int64, limit: Int? = nil, space: String? = nil,
              plugin: String = DeviceReplica.plugin) async throws -> (changes: [SyncChange], cursor: Int64, more: Bool, response: HubResponse) {
        var path = "/v1/hub/sync/\(plugin)/pull?after=\(after)"
        if let limit { path += "&limit=\(limit)" }
        if let space { path += "&space=\(space)" }
        let response = try await request("GET", path, token: token)
        guard response.status == 200 else { return ([], after, false, response) }
        return (try SyncWire.decode(response.body), Int64(response.header("Tessera-Sync-Cursor") ?? "") ?? -1,
                response.header("Tessera-Sync-More") == "true", response)
    }
}


/// Requests to a hub on a loopback port, each on a connection of its own (``RawHTTPClient``), so
/// tests can stop a hub and start another on the same port. The timeout (120 s) is a watchdog, not
/// a measurement: in the whole suite on two cores, with browsers and PostgreSQL busy, a push racing
/// three others through two replicas took over 30 s to be answered (the test alone: 5 s).
public struct HubClient {
    public let port: Int

    public init(port: Int) { self.port = port }

    /// Sends one request; `json` goes with `Content-Type: application/json`.
    public func request(_ method: String, _ path: String, token: String? = nil, json: String? = nil,
                 body: [UInt8]? = nil, contentType: String? = nil, timeout: TimeInterval = 120) async throws -> HubResponse {
        let response = try await RawHTTPClient.request(method, url: "http://127.0.0.1:\(port)\(path)", token: token, json: json, body: body,
                                                       contentType: contentType, timeout: Int(timeout.rounded(.up)))
        return HubResponse(status: response.status, headers: response.headers, body: response.body)
    }
}

public struct Failure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A device-like replica: a real `SyncStore` on its own SQLite file, with a `notes` table, that
/// pushes its log and pulls from the hub with a cursor, as a device client would.
public final class DeviceReplica: @unchecked Sendable {
    public static let plugin = "dev.tessera.notes"
    public let store: SyncStore
    public let token: String
    public let hub: HubTestServer
    public var cursor: Int64 = 0

    public init(hub: HubTestServer, token: String, node: UInt64, clock: @escaping @Sendable () -> Date) throws {
        let path = hub.root + "/device-\(node).sqlite"
        let database = try SQLiteDatabase(path: path, statementCacheCapacity: 256)
        try database.withConnection {
            try $0.execute("CREATE TABLE IF NOT EXISTS notes(id TEXT PRIMARY KEY, title TEXT NOT NULL DEFAULT '', body TEXT, stars INTEGER NOT NULL DEFAULT 0)")
        }
        store = try SyncStore(database: database, tables: [SyncedTable("notes", keepConflicts: ["body"])], node: HLCNode(node), now: clock)
        self.token = token
        self.hub = hub
    }

    /// Puts a note in `space`.
    @discardableResult
    public func put(_ id: String, title: String, stars: Int64 = 0, in space: String) throws -> [SyncChange] {
        try store.write([.put(table: "notes", id: id, values: ["title": .text(title), "stars": .integer(stars)])], in: space)
    }

    /// Pushes everything in its log for `spaces` (a device that keeps no send cursor: the hub's
    /// idempotence makes that safe); returns the hub's answer.
    public func pushAll(_ spaces: [String]) async throws -> HubResponse {
        try await hub.push(spaces.flatMap { (try? store.changes(in: $0)) ?? [] }, token: token)
    }

    /// Pulls until no more remain, applying each page.
    public func pullAll(limit: Int = 1000) async throws {
        while true {
            let page = try await hub.pull(token: token, after: cursor, limit: limit)
            guard page.response.status == 200 else { throw Failure("pull: \(page.response.status) \(page.response.errorCode ?? "")") }
            if !page.changes.isEmpty { try store.applyRemote(page.changes) }
            cursor = page.cursor
            if !page.more { break }
        }
    }

    /// Every note: id, title, body, stars.
    public func notes() throws -> [[SQLValue]] {
        try store.database.withConnection { try $0.fetchAll("SELECT id, title, body, stars FROM notes ORDER BY id") }
    }
}
