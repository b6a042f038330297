import Foundation
import Logging
import Synchronization
import Testing
import TesseraIsolation
import TesseraManifest
@testable import TesseraRuntime
import TesseraSDK
import TesseraSecrets
import TesseraTestFixtures

/// The process tier's sandbox (docs/isolation.md, "The sandbox"): the same plugin code, trying
/// what a third-party author would around its capabilities, reaches another plugin's database, the
/// host's token and secrets files and a loopback TCP port in the host's process, and none of them
/// in its child.
@Suite(.hangWatchdog) struct ProcessSandboxTests {
    /// `fixture.isolated` in `isolation`, granted storage only, beside `fixture.good` whose
    /// database is the one it tries to read; the host's token file written where the host keeps it.
    func host(_ name: String, isolation: String, limits: [String: Any]? = nil, log: HostLog? = nil) async throws -> (PluginHost, FixtureWorkspace) {
        let ws = FixtureWorkspace(name)
        let anyOp: [String: Any] = ["type": "object"]
        ws.addManifest(id: "fixture.isolated", library: try await PluginBuilder.library(.isolated)) { m in
            m["requires"] = [["capability": "storage", "version": "^1.0"]]
            m["operations"] = ["echo", "pid", "open-file", "connect", "allocate", "spin", "fork", "say"].map { ["name": $0, "input": anyOp, "output": anyOp] }
        }
        ws.addManifest(id: "fixture.good", library: try await PluginBuilder.library(.good))
        var isolated = entry("fixture.isolated", extra: ["isolation": isolation])
        if let limits { isolated["limits"] = limits }
        ws.writeDeployment(plugins: [isolated, entry("fixture.good")])
        Fixtures.write(#"{"tokens": [{"name": "admin", "role": "admin", "sha256": "00", "created": "2026-03-02T08:00:00Z"}]}"#,
                       to: ws.dataDirectory + "/http-tokens.json")
        // A secret of the other plugin's, in the host's own store (the file exists once one is kept).
        try SecretStore(path: ws.dataDirectory + "/secrets.sqlite").set(plugin: "fixture.good", name: "api-key", value: "s3cret", at: Date())
        var options = HostOptions(dataDirectory: ws.dataDirectory)
        options.isolation = IsolationPolicy(callTimeout: 3600)
        if let log { options.log = log }
        let host = try PluginHost(deployment: DeploymentReader.read(file: ws.deploymentFile), options: options)
        await host.start()
        #expect(host.status(of: "fixture.isolated")?.state == .active, "\(host.status(of: "fixture.isolated")?.history ?? [])")
        return (host, ws)
    }

    /// A TCP listener on a loopback port: what the plugin tries to connect to.
    func loopbackListener() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { p in
            try p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                guard bind(fd, $0, length) == 0, listen(fd, 4) == 0, getsockname(fd, $0, &length) == 0 else {
                    throw PluginError(.internal, "listener: \(String(cString: strerror(errno)))")
                }
            }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    struct Attempts {
        var otherDatabase, tokenFile, secretsFile, networkDevices, hostEnvironment: JSONValue
        var connect: JSONValue
    }

    func attempts(_ host: PluginHost, _ ws: FixtureWorkspace, port: Int) async throws -> Attempts {
        func open(_ path: String) async throws -> JSONValue {
            try await host.call("fixture.isolated", "open-file", input: ["path": .string(path)], as: user)
        }
        #expect(FileManager.default.fileExists(atPath: host.storagePath("fixture.good")))
        #expect(FileManager.default.fileExists(atPath: ws.dataDirectory + "/secrets.sqlite"))
        return Attempts(otherDatabase: try await open(host.storagePath("fixture.good")),
                        tokenFile: try await open(ws.dataDirectory + "/http-tokens.json"),
                        secretsFile: try await open(ws.dataDirectory + "/secrets.sqlite"),
                        networkDevices: try await open("/proc/self/net/dev"),
                        hostEnvironment: try await open("/proc/\(getpid())/environ"),
                        connect: try await host.call("fixture.isolated", "connect", input: ["port": .integer(Int64(port))], as: user))
    }

    /// The interfaces named in a /proc/net/dev text.
    func interfaces(_ text: JSONValue?) -> [String] {
        (text?.stringValue ?? "").split(separator: "\n").dropFirst(2).compactMap { $0.split(separator: ":").first?.trimmingCharacters(in: .whitespaces) }
    }

    @Test func inTheHostsProcessTheSamePluginReachesEverything() async throws {
        let (host, ws) = try await host("sandbox-in-process", isolation: "inProcess")
        try await withCleanup({ await host.stop() }) {
            let listener = try loopbackListener()
            defer { close(listener.fd) }
            let tried = try await attempts(host, ws, port: listener.port)
            // Grants are guard rails here: plain file calls and sockets reach what the SDK would refuse.
            #expect(tried.otherDatabase["opened"] == true)
            #expect(tried.otherDatabase["text"]?.stringValue?.hasPrefix("SQLite format 3") == true)
            #expect(tried.tokenFile["opened"] == true)
            #expect(tried.tokenFile["text"]?.stringValue?.contains("tokens") == true)
            #expect(tried.secretsFile["opened"] == true)
            #expect(tried.hostEnvironment["opened"] == true)
            #expect(tried.secretsFile["text"]?.stringValue?.hasPrefix("SQLite format 3") == true)
            #expect(tried.connect["connected"] == true, "\(tried.connect)")
            #expect(interfaces(tried.networkDevices["text"]).count > 1, "\(tried.networkDevices)")
            #expect(try await host.call("fixture.isolated", "fork", input: [:], as: user)["forked"] == true, "in the host's process a fork is not refused")
        }
    }

    @Test func inTheProcessTierTheSandboxRefusesItAll() async throws {
        let (host, ws) = try await host("sandbox-process", isolation: "process")
        try await withCleanup({ await host.stop() }) {
            let report = try #require(host.isolatedSandbox("fixture.isolated"))
            #expect(report.applied)
            let listener = try loopbackListener()
            defer { close(listener.fd) }
            let tried = try await attempts(host, ws, port: listener.port)
            // Landlock: no file of the host's data directory but the staged library.
            #expect(report.mechanisms["landlock.files"] == .enforced, "\(report)")
            #expect(tried.otherDatabase["opened"] == false, "\(tried.otherDatabase)")
            #expect(tried.otherDatabase["error"] == "Permission denied")
            #expect(tried.tokenFile["opened"] == false, "\(tried.tokenFile)")
            #expect(tried.secretsFile["opened"] == false, "\(tried.secretsFile)")
            // /proc is readable (libdispatch needs it), but the host's environment is not: the host is
            // non-dumpable and the child holds no capability (CAP_SYS_PTRACE) to read it anyway.
            #expect(report.mechanisms["capabilities"] == .enforced, "\(report)")
            #expect(tried.hostEnvironment["opened"] == false, "\(tried.hostEnvironment)")
            // seccomp: no socket of any family but AF_UNIX.
            #expect(report.mechanisms["seccomp"] == .enforced, "\(report)")
            #expect(tried.connect["connected"] == false, "\(tried.connect)")
            #expect(tried.connect["step"] == "socket")
            #expect(tried.connect["error"] == "Address family not supported by protocol")
            // A network namespace of its own: only its loopback device, no route to the host's.
            #expect(report.mechanisms["networkNamespace"] == .enforced, "\(report)")
            #expect(interfaces(tried.networkDevices["text"]) == ["lo"], "\(tried.networkDevices)")
            // No new process (issue 43): fork is refused, so no child can keep the host socket.
            let forked = try await host.call("fixture.isolated", "fork", input: [:], as: user)
            #expect(forked == ["forked": false, "error": "Operation not permitted"], "\(forked)")
            // And the plugin still works: its own code loaded, its capability calls answered, on the
            // threads the child made after the filter was in place (clone with CLONE_THREAD).
            #expect(try await host.call("fixture.isolated", "echo", input: ["a": 1], as: user) == ["a": 1])
        }
    }

    /// Issue 43: what the plugin's process writes to stdout or stderr reaches the host's log line
    /// by line under the plugin's id, and cannot start a line of its own nor carry escape codes.
    @Test func aPluginsOutputIsLabelledAndCannotForgeAHostLine() async throws {
        let captured = CapturedLog()
        let (host, _) = try await host("sandbox-output", isolation: "process", log: captured.hostLog)
        try await withCleanup({ await host.stop() }) {
            _ = try await host.call("fixture.isolated", "say", input: ["text": "first\n[error] host: forged\u{1b}[31m red\nlast"], as: user)
            await host.stop()
            let lines = captured.lines.filter { $0.source == "fixture.isolated" && $0.message.hasPrefix("output: ") }.map(\.message)
            #expect(lines == ["output: first", "output: [error] host: forged\u{FFFD}[31m red", "output: last"], "\(lines)")
            #expect(!captured.lines.contains { $0.source == "host" && $0.message.contains("forged") })
        }
    }
}

/// The host's log lines, kept for a test to read (source and message).
final class CapturedLog: Sendable {
    struct Line: Sendable { let source: String; let message: String }
    private let kept = Mutex<[Line]>([])
    var lines: [Line] { kept.withLock { $0 } }

    var hostLog: HostLog {
        HostLog(Logger(label: "test") { _ in Handler(sink: self) })
    }

    struct Handler: LogHandler {
        let sink: CapturedLog
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let source = event.metadata?["source"].map { "\($0)" } ?? event.source
            sink.kept.withLock { $0.append(Line(source: source, message: "\(event.message)")) }
        }
    }
}
