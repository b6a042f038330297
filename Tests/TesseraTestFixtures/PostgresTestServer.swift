import Foundation
import Glibc
import Synchronization

/// A real PostgreSQL server for the tests of the hub's PostgreSQL store: one cluster per test
/// process, made by `initdb` in a temporary folder and started by `pg_ctl` on a free loopback
/// port, with password (SCRAM) authentication. It is stopped when the test process exits.
///
/// Each test takes a database of its own (``createDatabase()``), so tests never see each other's
/// rows. The server's programs come from Debian's `postgresql` package (`scripts/setup.sh test` installs it);
/// as root they run as the `postgres` user, since PostgreSQL refuses to run as root.
///
/// Starting takes a few seconds of waiting on programs: call it through ``onOwnThread(_:)``
/// (``PostgresTestServer/shared()`` does), never on one of Swift concurrency's threads.
public final class PostgresTestServer: Sendable {
    /// The superuser the tests connect as.
    public let user = "tessera"
    /// Its password (random per run).
    public let password: String
    public let host = "127.0.0.1"
    public let port: Int
    /// The cluster's folder (the server's log is `server.log` in it).
    public let directory: String
    private let binaries: String

    private static let started = Mutex<Result<PostgresTestServer, any Error>?>(nil)

    /// The test process's server, started on first use.
    public static func shared() async throws -> PostgresTestServer {
        try await onOwnThread {
            try started.withLock { state in
                if state == nil { state = Result { try PostgresTestServer() } }
                return try state!.get()
            }
        }
    }

    private init() throws {
        binaries = try Self.findBinaries()
        password = UUID().uuidString
        directory = NSTemporaryDirectory() + "tessera-postgres-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let passwordFile = directory + "/password"
        try Data(password.utf8).write(to: URL(fileURLWithPath: passwordFile))
        if getuid() == 0 { try Self.run(["/bin/chown", "-R", "postgres:postgres", directory], asServerUser: false) }
        try Self.run([binaries + "/initdb", "-D", directory + "/data", "-U", user, "--pwfile=" + passwordFile,
                      "--auth=scram-sha-256", "--encoding=UTF8", "--no-instructions"])
        var lastFailure = ""
        for _ in 0..<5 {
            let port = try freeLoopbackPort()
            let options = "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c max_connections=200"
                // A small WAL: the default keeps up to 1 GB of it, a third of a whole test run's files.
                + " -c max_wal_size=64MB -c min_wal_size=32MB"
            let start = try Self.runAsServerUser([binaries + "/pg_ctl", "-D", directory + "/data", "-l", directory + "/server.log",
                                                     "-o", options, "-w", "-t", "60", "start"])
            if start.status == 0 {
                self.port = port
                Self.stopAtExit(pgCtl: binaries + "/pg_ctl", data: directory + "/data")
                return
            }
            // Another process took the port between our look and the server's bind: try another.
            lastFailure = start.stdout + start.stderr
        }
        throw SpawnFailure("PostgreSQL did not start: \(lastFailure)")
    }

    /// Creates an empty database and returns its name.
    public func createDatabase() async throws -> String {
        let name = "hub_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        let result = try await runDetached(binaries + "/createdb", ["-h", host, "-p", String(port), "-U", user, name],
                                           environment: ["PGPASSWORD": password, "PATH": "/usr/bin:/bin"])
        guard result.status == 0 else { throw SpawnFailure("createdb \(name): \(result.stderr)") }
        return name
    }

    // MARK: Starting

    /// Where `initdb`, `pg_ctl` and `createdb` are: the folder `initdb` on `PATH` links to, or
    /// Debian's versioned folder.
    private static func findBinaries() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        var candidates = path.split(separator: ":").map(String.init)
        let debian = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: debian)) ?? []).sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
        candidates += versions.map { "\(debian)/\($0)/bin" }
        for folder in candidates where FileManager.default.isExecutableFile(atPath: folder + "/initdb")
            && FileManager.default.isExecutableFile(atPath: folder + "/pg_ctl") {
            return URL(fileURLWithPath: folder + "/initdb").resolvingSymlinksInPath().deletingLastPathComponent().path
        }
        throw SpawnFailure("no PostgreSQL server programs (initdb, pg_ctl): install Debian's postgresql package (scripts/setup.sh test does)")
    }

    @discardableResult
    private static func run(_ command: [String], asServerUser: Bool = true) throws -> ProcessResult {
        let result = try asServerUser ? runAsServerUser(command) : TesseraTestFixtures.run(command[0], Array(command.dropFirst()))
        guard result.status == 0 else { throw SpawnFailure("\(command[0]) failed: \(result.stdout)\(result.stderr)") }
        return result
    }

    private static let stopCommand = Mutex<(pgCtl: String, data: String)?>(nil)

    /// Stops the server when the test process exits normally (`pg_ctl stop -m immediate`).
    private static func stopAtExit(pgCtl: String, data: String) {
        stopCommand.withLock { $0 = (pgCtl, data) }
        atexit {
            guard let command = PostgresTestServer.stopCommand.withLock({ $0 }) else { return }
            _ = try? PostgresTestServer.runAsServerUser([command.pgCtl, "-D", command.data, "-m", "immediate", "-w", "stop"])
        }
    }

    /// Runs a PostgreSQL server program: as the `postgres` user when the tests run as root.
    static func runAsServerUser(_ command: [String]) throws -> ProcessResult {
        if getuid() == 0 {
            return try TesseraTestFixtures.run("/usr/sbin/runuser", ["-u", "postgres", "--"] + command, directory: "/")
        }
        return try TesseraTestFixtures.run(command[0], Array(command.dropFirst()))
    }
}
