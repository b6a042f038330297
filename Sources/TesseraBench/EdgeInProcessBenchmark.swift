import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import TesseraManifest
import TesseraRuntime
import TesseraSDK
@_spi(Benchmarks) import TesseraHTTP

/// The edge's own work per call, without sockets: the responder `tessera serve`'s connections hand
/// each request to (``HTTPServer``: the shortcut, the middlewares, the route, the call into the
/// example plugin's `echo`), against the kept-work route's responder on a plain Hummingbird router
/// (``KeptWorkRoute``: the token's SHA-256, the body parsed, validated, decoded, the answer
/// encoded), each called in turn from one task with the same request.
///
/// `tessera-bench http` measures the same through `wrk` and the kernel's sockets, where the two
/// cores are shared by the client, the server's event loops and its pool: its ratios move by a
/// tenth from run to run, more than the edge's own share does. Here only the two responders run,
/// one call at a time, so what is left between them is the runtime's share above the kept work.
///
/// `side` calls only one of the two (the other's figures are then empty): for counting what one
/// responder does per call under `perf stat` (docs/benchmarks.md, "The executor checks a call makes").
func edgeInProcessBenchmark(deploymentFile: String, scratch: String, calls: Int, side: EdgeBenchmarkSide = .both) async throws
    -> (edge: Summary, kept: Summary, edgeCPU: Double, keptCPU: Double)
{
    let host = try PluginHost(deployment: DeploymentReader.read(file: deploymentFile),
                              options: HostOptions(dataDirectory: scratch + "/edge-data", onlyPlugins: ["dev.tessera.example"]))
    await host.start()
    guard host.status(of: "dev.tessera.example")?.state == .active,
          let inputSchema = host.manifest(of: "dev.tessera.example")?.operation(named: "echo")?.inputSchema
    else { throw PluginError(.unavailable, "example plugin not active: \(host.status(of: "dev.tessera.example")?.reason ?? "?")") }
    let tokens = TokenStore(dataDirectory: scratch + "/edge-data")
    guard let token = try tokens.ensureAdminToken() else { throw PluginError(.internal, "no fresh token") }
    let server = HTTPServer(host: host, tokens: tokens, configuration: HTTPConfiguration(port: 0, rateLimit: nil))
    server.markReady()
    let edge = server.inProcessResponder()
    let router = Router(context: BasicRequestContext.self)
    KeptWorkRoute.add(to: router, token: token, inputSchema: inputSchema)
    let kept = router.buildResponder()

    let channel = EmbeddedChannel()
    let logger = Logger(label: "tessera-bench")
    let body = ByteBuffer(bytes: Array(echoInputJSON.utf8))
    let fields: HTTPFields = [.contentType: "application/json", .authorization: "Bearer \(token)"]
    func request(_ path: String) -> Request {
        Request(head: HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1", path: path, headerFields: fields),
                body: RequestBody(buffer: body))
    }
    let source = ApplicationRequestContextSource(channel: channel, logger: logger)
    func callEdge() async throws {
        guard side != .kept else { return }
        let response = try await edge.respond(to: request("/v1/plugins/dev.tessera.example/ops/echo"), context: APIRequestContext(source: source))
        guard response.status == .ok else { throw PluginError(.internal, "the edge answered \(response.status)") }
    }
    func callKept() async throws {
        guard side != .edge else { return }
        let response = try await kept.respond(to: request(KeptWorkRoute.path), context: BasicRequestContext(source: source))
        guard response.status == .ok else { throw PluginError(.internal, "the kept-work route answered \(response.status)") }
    }

    // Warm both, then blocks of 500 calls in turns; CPU is the process's over each side's blocks.
    for _ in 0..<500 { try await callEdge(); try await callKept() }
    var edgeTimes: [Double] = [], keptTimes: [Double] = []
    var edgeCPU = 0.0, keptCPU = 0.0
    let block = 500
    for _ in 0..<max(1, calls / block) {
        var cpu = processCPUSeconds()
        for _ in 0..<block {
            let t = monotonicNanoseconds()
            try await callEdge()
            edgeTimes.append(Double(monotonicNanoseconds() - t))
        }
        edgeCPU += processCPUSeconds() - cpu
        cpu = processCPUSeconds()
        for _ in 0..<block {
            let t = monotonicNanoseconds()
            try await callKept()
            keptTimes.append(Double(monotonicNanoseconds() - t))
        }
        keptCPU += processCPUSeconds() - cpu
    }
    await host.stop()
    let count = Double(edgeTimes.count)
    return (Summary(edgeTimes), Summary(keptTimes), edgeCPU / count * 1e6, keptCPU / count * 1e6)
}

/// Which responders `tessera-bench edge` calls.
enum EdgeBenchmarkSide: String {
    /// Both, in turns: the figures and their ratio.
    case both
    /// The edge's responder alone.
    case edge
    /// The kept-work route's alone.
    case kept
}
