import Foundation
import TesseraSDK

/// What the kernel counts for one process (`/proc/PID/smaps_rollup` and `/proc/PID/smaps`), in bytes.
struct ProcessMemory {
    /// Resident: anonymous memory plus the pages of mapped files in memory (what `ps` shows).
    var rss = 0
    /// Proportional: each shared page divided by the processes mapping it.
    var pss = 0
    /// Heap, stacks and other anonymous pages: what only this process holds.
    var anonymous = 0
    /// Pages this process wrote (anonymous, and file pages it changed, such as relocated data).
    var privateDirty = 0
    /// Resident bytes per mapped file (and `[heap]`, `[anon]`, …), largest first.
    var byMapping: [(name: String, rss: Int)] = []

    /// The figures of process `pid` now.
    static func of(_ pid: Int32) -> ProcessMemory {
        var memory = ProcessMemory()
        let rollup = procFile("/proc/\(pid)/smaps_rollup")
        for line in rollup.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count >= 2, let kB = Int(parts[1]) else { continue }
            switch parts[0] {
            case "Rss:": memory.rss = kB * 1024
            case "Pss:": memory.pss = kB * 1024
            case "Anonymous:": memory.anonymous = kB * 1024
            case "Private_Dirty:": memory.privateDirty = kB * 1024
            default: break
            }
        }
        memory.byMapping = mappings(of: pid)
        return memory
    }

    /// Sums each mapping's `Rss:` under the file (or pseudo-name) it maps.
    private static func mappings(of pid: Int32) -> [(name: String, rss: Int)] {
        let smaps = procFile("/proc/\(pid)/smaps")
        var sums: [String: Int] = [:]
        var current = "[anon]"
        for line in smaps.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = parts.first, first.contains("-"), parts.count >= 5 {  // a mapping's header line
                current = parts.count >= 6 ? String(parts[5...].joined(separator: " ")) : "[anon]"
                if current.hasPrefix("/") { current = (current as NSString).lastPathComponent }
            } else if parts.first == "Rss:", parts.count >= 2, let kB = Int(parts[1]) {
                sums[current, default: 0] += kB * 1024
            }
        }
        return sums.map { ($0.key, $0.value) }.sorted { $0.rss > $1.rss }
    }
}

/// A file of `/proc`, read to its end (its size reads 0, and a read by size stops short).
private func procFile(_ path: String) -> String {
    guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
    defer { try? handle.close() }
    return String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
}

/// What `tessera serve` holds once it serves, against a bare Hummingbird server in a process of its
/// own (the plain route of the HTTP benchmark: `tessera-plain-server`), in the same run.
/// Both are measured after the same warm-up: 200 requests each (the edge's `echo`, the plain
/// route), so the figures include what a request path touches, not only what start-up maps.
struct ServeMemoryResult {
    let serve: ProcessMemory
    let plain: ProcessMemory
    /// `tessera serve` started again on the same data folder, after the same 200 requests: a
    /// restart, whose manifests passed before and whose databases exist.
    let restarted: ProcessMemory
    let modules: [String]
}

/// The default deployment (`manifests/deployments/default.json`: the shipped modules and their
/// grants) with a virtual clock, so no job runs during the measurement, and this build's libraries.
func memoryDeployment(root: String, buildDirectory: String) throws -> (text: String, modules: [String]) {
    let data = try Data(contentsOf: URL(fileURLWithPath: root + "/manifests/deployments/default.json"))
    guard case .object(var deployment) = try JSONValue(parsing: Array(data)) else {
        throw PluginError(.invalidInput, "manifests/deployments/default.json is not a JSON object")
    }
    deployment["name"] = "memory"
    deployment["dataDirectory"] = nil
    deployment["http"] = nil
    deployment["manifestDirectories"] = [.string(root + "/manifests")]
    deployment["libraryPaths"] = [.string(buildDirectory)]
    deployment["providers"] = ["storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": "2026-03-02T08:00:00Z"]]
    let modules = deployment["plugins"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
    return (JSONValue.object(deployment).serialized(), modules)
}

func serveMemoryBenchmark(buildDirectory: String, scratch: String) async throws -> ServeMemoryResult {
    let (text, modules) = try memoryDeployment(root: FileManager.default.currentDirectoryPath, buildDirectory: buildDirectory)
    let deployment = scratch + "/memory-deployment.json"
    try Data(text.utf8).write(to: URL(fileURLWithPath: deployment))

    let arguments = ["serve", "--deployment", deployment, "--data", scratch + "/memory-data", "--port", "0", "--rate-limit", "0"]
    let plain = try StartedServer.launch(buildDirectory + "/tessera-plain-server", [], until: "plain server at")
    defer { plain.stop() }
    let bare = BenchHTTPClient(port: plain.port)

    // The first start on a new data folder prints the admin token; the restart uses the same one.
    let serve = try StartedServer.launch(buildDirectory + "/tessera", arguments, until: "serving deployment")
    let token = serve.output.firstMatch(of: /tsr_[A-Za-z0-9_-]+/).map { String($0.output) } ?? ""
    let first: ProcessMemory
    do {
        defer { serve.stop() }
        try await warmUp(serve, token: token, bare: bare)
        first = .of(serve.process.processIdentifier)
    }
    let plainMemory = ProcessMemory.of(plain.process.processIdentifier)
    let again = try StartedServer.launch(buildDirectory + "/tessera", arguments, until: "serving deployment")
    defer { again.stop() }
    try await warmUp(again, token: token, bare: nil)
    return ServeMemoryResult(serve: first, plain: plainMemory, restarted: .of(again.process.processIdentifier), modules: modules)
}

/// 200 `echo` calls to `serve` (and as many to the bare server's route, when given), each answered.
private func warmUp(_ serve: StartedServer, token: String, bare: BenchHTTPClient?) async throws {
    let echo = Array(#"{"id":"3f2b8c1e-9a4d-4e2f-8b7a-1c2d3e4f5a6b","title":"Groceries","amount":12550,"date":"2026-03-02","tags":["food"],"note":"cash"}"#.utf8)
    let edge = BenchHTTPClient(port: serve.port)
    for _ in 0..<200 {
        let (a, _, _) = try await edge.send("POST", "/v1/plugins/dev.tessera.example/ops/echo", token: token, body: echo, contentType: "application/json")
        let b = try await bare?.send("POST", "/noop", body: echo, contentType: "application/json").0 ?? 200
        guard a == 200, b == 200 else { throw PluginError(.internal, "the warm-up requests answered \(a) (tessera serve) and \(b) (plain)") }
    }
}

/// A server started as a child process, its output read until it says it listens.
struct StartedServer {
    let process: Process
    let port: Int
    /// What it printed up to the line it was waited for (the admin token is on it for `tessera serve`).
    let output: String

    static func launch(_ executable: String, _ arguments: [String], until marker: String) throws -> StartedServer {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        while !text.contains(marker) || !text.hasSuffix("\n") {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }  // the process ended
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first(where: { $0.contains(marker) }),
              let match = line.firstMatch(of: /127\.0\.0\.1:(\d+)/), let port = Int(match.1) else {
            process.terminate()
            throw PluginError(.unavailable, "\(executable) did not start: \(text.suffix(2000))")
        }
        return StartedServer(process: process, port: port, output: text)
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
