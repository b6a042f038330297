import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import TesseraBenchAnchor
import TesseraHTTP
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraSchema

/// What one `wrk` run measured.
struct WrkResult {
    var requestsPerSecond: Double
    var p50: String
    var p99: String
    var non2xx: Int
    /// This process's CPU time (user + system, all threads) per request during the run, in µs.
    /// wrk is another process, so this is the server's own cost, and other load on the machine
    /// barely moves it: the steadier figure when the machine is shared.
    var cpuMicrosPerRequest: Double = 0
    /// This process's context switches per request during the run (voluntary: a thread went to
    /// sleep waiting for work; each one is a wake-up later, and wake-ups are what a machine like
    /// this charges most for).
    var contextSwitchesPerRequest: Double = 0
}

/// The HTTP edge against a plain Hummingbird route, in the same process and the same run, under
/// `wrk` at 64 and 256 connections: a no-op plugin operation (`echo` of the example plugin: body
/// read, bearer token checked, rate-limit layer off, schema validated, plugin called, JSON back)
/// against a route that reads the same body and answers the same small JSON with nothing between.
/// The ratio of their throughputs is the cost of the edge (issue 25: target ≥ 0.85). Each figure is the
/// median of three runs taken in turns.
///
/// The edge runs twice: as served (a plugin operation's call skips the router's look-up,
/// ``HTTPConfiguration/operationShortcut``) and with every request through the router, so what
/// the shortcut saves is read from the same run, and a third time on Hummingbird's plain HTTP/1
/// server (``HTTPConfiguration/ownThreads`` off: accepted on the shared pool, the host's own
/// endpoints not answered on the loop), so what the promise that they answer while plugins hold
/// that pool costs is read too. Another series runs ``KeptWorkRoute`` on the plain server: the
/// work any edge must do for the call, without Tessera's runtime.
func httpBenchmark(deploymentFile: String, scratch: String, seconds: Int) async throws
    -> [(connections: Int, edge: WrkResult, routed: WrkResult, pooled: WrkResult, plain: WrkResult, kept: WrkResult)]
{
    guard let wrk = ["/usr/bin/wrk", "/usr/local/bin/wrk"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        throw PluginError(.unavailable, "wrk is not installed: apt-get install wrk")
    }
    let host = try PluginHost(deployment: DeploymentReader.read(file: deploymentFile),
                              options: HostOptions(dataDirectory: scratch + "/http-data", onlyPlugins: ["dev.tessera.example"]))
    await host.start()
    // Measured against a plugin that is not active, the edge would only answer 503s.
    guard host.status(of: "dev.tessera.example")?.state == .active else {
        throw PluginError(.unavailable, "example plugin not active: \(host.status(of: "dev.tessera.example")?.reason ?? "?")")
    }
    let tokens = TokenStore(dataDirectory: scratch + "/http-data")
    guard let token = try tokens.ensureAdminToken() else { throw PluginError(.internal, "no fresh token") }
    let edge = HTTPServer(host: host, tokens: tokens, configuration: HTTPConfiguration(port: 0, rateLimit: nil))
    let edgePort = try await edge.start()
    edge.markReady()
    var routedConfiguration = HTTPConfiguration(port: 0, rateLimit: nil)
    routedConfiguration.operationShortcut = false
    let routed = HTTPServer(host: host, tokens: tokens, configuration: routedConfiguration)
    let routedPort = try await routed.start()
    routed.markReady()
    var pooledConfiguration = HTTPConfiguration(port: 0, rateLimit: nil)
    pooledConfiguration.ownThreads = false
    let pooled = HTTPServer(host: host, tokens: tokens, configuration: pooledConfiguration)
    let pooledPort = try await pooled.start()
    pooled.markReady()
    // The schema the edge validates `echo`'s input with: the host's compiled copy of the manifest's.
    guard let inputSchema = host.manifest(of: "dev.tessera.example")?.operation(named: "echo")?.inputSchema else {
        throw PluginError(.invalidInput, "the example plugin's manifest declares no echo operation")
    }
    let plain = try await PlainServer.start { KeptWorkRoute.add(to: $0, token: token, inputSchema: inputSchema) }

    let body = echoInputJSON
    let script = scratch + "/post.lua"
    try Data("""
        wrk.method = "POST"
        wrk.body = '\(body)'
        wrk.headers["Content-Type"] = "application/json"
        wrk.headers["Authorization"] = "Bearer \(token)"
        """.utf8).write(to: URL(fileURLWithPath: script))
    var results: [(Int, WrkResult, WrkResult, WrkResult, WrkResult, WrkResult)] = []
    for connections in [64, 256] {
        let edgeURL = "http://127.0.0.1:\(edgePort)/v1/plugins/dev.tessera.example/ops/echo"
        let routedURL = "http://127.0.0.1:\(routedPort)/v1/plugins/dev.tessera.example/ops/echo"
        let pooledURL = "http://127.0.0.1:\(pooledPort)/v1/plugins/dev.tessera.example/ops/echo"
        let plainURL = "http://127.0.0.1:\(plain.port)/noop"
        let keptURL = "http://127.0.0.1:\(plain.port)\(KeptWorkRoute.path)"
        // Warm both up, then take turns, three runs each: on a machine shared with other work, a
        // burst of load then hits both sides alike, and the median run of each is reported.
        _ = try await runWrk(wrk, url: edgeURL, script: script, connections: connections, seconds: 2)
        _ = try await runWrk(wrk, url: plainURL, script: script, connections: connections, seconds: 2)
        _ = try await runWrk(wrk, url: routedURL, script: script, connections: connections, seconds: 2)
        _ = try await runWrk(wrk, url: pooledURL, script: script, connections: connections, seconds: 2)
        _ = try await runWrk(wrk, url: keptURL, script: script, connections: connections, seconds: 2)
        var edgeRuns: [WrkResult] = [], routedRuns: [WrkResult] = [], pooledRuns: [WrkResult] = [], plainRuns: [WrkResult] = [],
            keptRuns: [WrkResult] = []
        for _ in 0..<3 {
            edgeRuns.append(try await ProfilerWindow.around("edge") {
                try await runWrk(wrk, url: edgeURL, script: script, connections: connections, seconds: seconds)
            })
            routedRuns.append(try await runWrk(wrk, url: routedURL, script: script, connections: connections, seconds: seconds))
            pooledRuns.append(try await runWrk(wrk, url: pooledURL, script: script, connections: connections, seconds: seconds))
            plainRuns.append(try await ProfilerWindow.around("plain") {
                try await runWrk(wrk, url: plainURL, script: script, connections: connections, seconds: seconds)
            })
            keptRuns.append(try await ProfilerWindow.around("kept") {
                try await runWrk(wrk, url: keptURL, script: script, connections: connections, seconds: seconds)
            })
        }
        func median(_ runs: [WrkResult]) -> WrkResult {
            var chosen = runs.sorted { $0.requestsPerSecond < $1.requestsPerSecond }[runs.count / 2]
            chosen.cpuMicrosPerRequest = runs.map(\.cpuMicrosPerRequest).sorted()[runs.count / 2]
            chosen.contextSwitchesPerRequest = runs.map(\.contextSwitchesPerRequest).sorted()[runs.count / 2]
            return chosen
        }
        results.append((connections, median(edgeRuns), median(routedRuns), median(pooledRuns), median(plainRuns), median(keptRuns)))
    }
    await routed.stop()
    await pooled.stop()
    await plain.stop()
    await edge.stop()
    await host.stop()
    return results
}

/// Runs `wrk --latency` (two threads: the machine has two cores, shared with the server) and
/// reads its summary. It waits on a thread of its own: blocking one of the few threads of Swift
/// concurrency would starve the server being measured (it did: the edge looked 40% slower).
func runWrk(_ wrk: String, url: String, script: String, connections: Int, seconds: Int) async throws -> WrkResult {
    let cpuBefore = processCPUSeconds()
    let switchesBefore = processContextSwitches()
    var result = try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try runWrkBlocking(wrk, url: url, script: script, connections: connections, seconds: seconds) }) }.start()
    }
    let requests = result.requestsPerSecond * Double(seconds)
    if requests > 0 {
        result.cpuMicrosPerRequest = (processCPUSeconds() - cpuBefore) / requests * 1e6
        result.contextSwitchesPerRequest = Double(processContextSwitches() - switchesBefore) / requests
    }
    return result
}

/// User plus system CPU time of this process so far, in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Voluntary plus involuntary context switches of this process so far (all threads).
func processContextSwitches() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_nvcsw + usage.ru_nivcsw
}

func runWrkBlocking(_ wrk: String, url: String, script: String, connections: Int, seconds: Int) throws -> WrkResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: wrk)
    process.arguments = ["-t2", "-c\(connections)", "-d\(seconds)s", "--latency", "-s", script, url]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    func field(_ prefix: String) -> String? {
        text.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(prefix) }
            .map { $0.trimmingCharacters(in: .whitespaces).dropFirst(prefix.count).trimmingCharacters(in: .whitespaces) }
    }
    guard let rps = field("Requests/sec:").flatMap(Double.init) else { throw PluginError(.internal, "wrk said: \(text)") }
    let non2xx = field("Non-2xx or 3xx responses:").flatMap { Int($0) } ?? 0
    return WrkResult(requestsPerSecond: rps, p50: field("50%") ?? "?", p99: field("99%") ?? "?", non2xx: non2xx)
}

