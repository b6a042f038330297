import Foundation
import TesseraTestFixtures

/// The hubs of one `tessera-bench hub-load` run: `tessera serve` processes of this build, each with
/// a hub deployment of its own (its own data folder and admin token), on a free loopback port.
final class HubProcesses: Sendable {
    /// "SQLite", "PostgreSQL, 1 replica", …
    let name: String
    /// One client per hub process, in the order they started.
    let clients: [BenchHTTPClient]
    /// The first hub's admin token (it makes the people).
    let adminToken: String
    private let processes: [Process]
    private let countsPostgres: Bool

    private init(name: String, clients: [BenchHTTPClient], adminToken: String, processes: [Process], countsPostgres: Bool) {
        self.name = name
        self.clients = clients
        self.adminToken = adminToken
        self.processes = processes
        self.countsPostgres = countsPostgres
    }

    /// One hub on its embedded SQLite store (`<data>/hub.sqlite`).
    static func sqlite(tessera: String, scratch: String) throws -> HubProcesses {
        let hub = try startHub(tessera: tessera, folder: scratch + "/sqlite-hub", store: nil, environment: [:])
        return HubProcesses(name: "SQLite", clients: [BenchHTTPClient(port: hub.port)], adminToken: hub.adminToken,
                            processes: [hub.process], countsPostgres: false)
    }

    /// `replicas` hubs over one new database on `server`.
    static func postgresql(tessera: String, scratch: String, server: PostgresTestServer, replicas: Int) async throws -> HubProcesses {
        let database = try await server.createDatabase()
        let store = #"{"kind": "postgresql", "host": "\#(server.host)", "port": \#(server.port), "user": "\#(server.user)", "database": "\#(database)", "passwordEnv": "TESSERA_BENCH_HUB_DB_PASSWORD", "tls": "disable"}"#
        var started: [(process: Process, port: Int, adminToken: String)] = []
        // One after another: the first applies the hub's migrations.
        for replica in 0..<replicas {
            started.append(try startHub(tessera: tessera, folder: scratch + "/\(database)-replica-\(replica)", store: store,
                                        environment: ["TESSERA_BENCH_HUB_DB_PASSWORD": server.password]))
        }
        return HubProcesses(name: "PostgreSQL, \(replicas) replica\(replicas == 1 ? "" : "s")", clients: started.map { BenchHTTPClient(port: $0.port) },
                            adminToken: started[0].adminToken, processes: started.map(\.process), countsPostgres: true)
    }

    /// The CPU the hub processes have used, user and system, in nanoseconds.
    func cpuNanoseconds() -> Double { processes.reduce(0) { $0 + childCPUNanoseconds($1.processIdentifier) } }

    /// The CPU every `postgres` process on the machine has used (the server this run started is the
    /// only one), or `nil` for a hub without PostgreSQL.
    func postgresCPUNanoseconds() -> Double? {
        guard countsPostgres else { return nil }
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { Int32($0) } ?? []
        return pids.reduce(0) { total, pid in
            guard let comm = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8), comm.hasPrefix("postgres") else { return total }
            return total + childCPUNanoseconds(pid)
        }
    }

    /// Stops every hub (SIGTERM) and waits for it.
    func stop() {
        for process in processes where process.isRunning { process.terminate() }
        for process in processes { process.waitUntilExit() }
    }
}

/// Starts `tessera serve` with a hub deployment in `folder` and reads, from what it prints, where it
/// listens and its admin token (printed on a first start).
private func startHub(tessera: String, folder: String, store: String?, environment: [String: String]) throws -> (process: Process, port: Int, adminToken: String) {
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let deployment = folder + "/hub.json"
    let providers = #"{"storage": {"kind": "sqlite"}, "clock": {"kind": "system"}\#(store.map { #", "hubStore": \#($0)"# } ?? "")}"#
    try Data(#"{"name": "load-hub", "role": "hub", "dataDirectory": "\#(folder)/data", "manifestDirectories": [], "providers": \#(providers), "plugins": []}"#.utf8)
        .write(to: URL(fileURLWithPath: deployment))
    // Its output goes to a file, read until it says it serves: a pipe nobody reads would fill and stop it.
    let output = folder + "/serve.log"
    _ = FileManager.default.createFile(atPath: output, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tessera)
    process.arguments = ["serve", "--deployment", deployment, "--port", "0"]
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
    process.standardError = process.standardOutput
    try process.run()
    for _ in 0..<3_000 {
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        if text.contains("Ctrl-C to stop") {
            guard let range = text.range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression),
                  let port = Int(text[range].split(separator: ":").last ?? ""),
                  let token = text.split(whereSeparator: \.isWhitespace).first(where: { $0.hasPrefix("tsr_") }) else {
                process.terminate()
                throw BenchError("tessera serve did not say where it listens or its admin token: \(text)")
            }
            return (process, port, String(token))
        }
        if !process.isRunning { throw BenchError("tessera serve ended: \(text)") }
        usleep(10_000)
    }
    process.terminate()
    throw BenchError("tessera serve did not start within 30 s (\(output))")
}
