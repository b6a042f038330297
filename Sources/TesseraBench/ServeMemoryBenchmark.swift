import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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
    let modules: [String]
}

/// The shipped modules, as the default deployment enables them (with a virtual clock, so no job
/// runs during the measurement).
let shippedModuleGrants: [(id: String, grants: String)] = [
    ("dev.tessera.example", #"{"storage": {}, "clock": {}, "notifications": {}}"#),
    ("cz.tessera.finance", #"{"storage": {}, "clock": {}, "notifications": {}, "http": {}, "secrets": {}, "events": {}}"#),
    ("cz.tessera.stress", #"{"storage": {}, "clock": {}, "notifications": {}}"#),
    ("cz.tessera.baby", #"{"storage": {}, "clock": {}, "notifications": {}, "files": {}}"#),
    ("cz.tessera.safetravel", #"{"storage": {}, "clock": {}, "notifications": {"spaces": true}, "location": {}, "sync": {}, "files": {}}"#),
    ("cz.tessera.stag", #"{"storage": {}, "clock": {}, "http": {"hosts": ["stag-demo.zcu.cz"]}, "secrets": {}, "notifications": {}, "events": {}}"#),
]

func serveMemoryBenchmark(buildDirectory: String, scratch: String) async throws -> ServeMemoryResult {
    let root = FileManager.default.currentDirectoryPath
    let deployment = scratch + "/memory-deployment.json"
    let plugins = shippedModuleGrants.map { #"{"id": "\#($0.id)", "grants": \#($0.grants)}"# }.joined(separator: ",\n  ")
    try Data("""
        {"name": "memory", "role": "device", "manifestDirectories": ["\(root)/manifests"],
         "libraryPaths": ["\(buildDirectory)"], "providers": {"clock": {"kind": "virtual", "start": "2026-03-02T08:00:00Z"}},
         "plugins": [\(plugins)]}
        """.utf8).write(to: URL(fileURLWithPath: deployment))

    let serve = try StartedServer.launch(buildDirectory + "/tessera",
                                         ["serve", "--deployment", deployment, "--data", scratch + "/memory-data", "--port", "0", "--rate-limit", "0"],
                                         until: "serving deployment")
    defer { serve.stop() }
    let plain = try StartedServer.launch(buildDirectory + "/tessera-plain-server", [], until: "plain server at")
    defer { plain.stop() }

    let echo = #"{"id":"3f2b8c1e-9a4d-4e2f-8b7a-1c2d3e4f5a6b","title":"Groceries","amount":12550,"date":"2026-03-02","tags":["food"],"note":"cash"}"#
    let token = serve.output.firstMatch(of: /tsr_[A-Za-z0-9_-]+/).map { String($0.output) } ?? ""
    for _ in 0..<200 {
        try await post("http://127.0.0.1:\(serve.port)/v1/plugins/dev.tessera.example/ops/echo", body: echo, token: token)
        try await post("http://127.0.0.1:\(plain.port)/noop", body: echo, token: nil)
    }
    return ServeMemoryResult(serve: .of(serve.process.processIdentifier), plain: .of(plain.process.processIdentifier),
                             modules: shippedModuleGrants.map(\.id))
}

/// One POST; throws unless the answer is 200.
private func post(_ url: String, body: String, token: String?) async throws {
    var request = URLRequest(url: URL(string: url)!)
    request.httpMethod = "POST"
    request.httpBody = Data(body.utf8)
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
    let (_, response) = try await URLSession.shared.data(for: request)
    guard (response as? HTTPURLResponse)?.statusCode == 200 else {
        throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "\(url) answered \((response as? HTTPURLResponse)?.statusCode ?? 0)"])
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
            throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "\(executable) did not start: \(text.suffix(2000))"])
        }
        return StartedServer(process: process, port: port, output: text)
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
