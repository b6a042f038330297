import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import TesseraManifest
@_spi(Benchmarks) import TesseraRuntime
import TesseraSDK
@_spi(Benchmarks) import TesseraHTTP

/// The edge's own work per call, without sockets: the responder `tessera serve`'s connections hand
/// each request to (``HTTPServer``: the shortcut, the middlewares, the route, the call into the
/// example plugin's `echo`), against the kept-work route's responder on a plain Hummingbird router
/// (``KeptWorkRoute``: the token's SHA-256, the body parsed, validated, decoded, the answer
/// encoded), each called in turn from one task with the same request.
///
/// The edge is called twice: with its host's log discarded, as the other benchmarks run it, and
/// as `tessera serve` runs it, logging at info: each request's access line written to a pipe that
/// a thread of this process reads, as a service manager's journal reads the host's stderr.
///
/// `tessera-bench http` measures the same through `wrk` and the kernel's sockets, where the two
/// cores are shared by the client, the server's event loops and its pool: its ratios move by a
/// tenth from run to run, more than the edge's own share does. Here only the responders run,
/// one call at a time, so what is left between them is the runtime's share above the kept work.
///
/// `side` calls only one of them (the others' figures are then empty): for counting what one
/// responder does per call under `perf stat` (docs/benchmarks.md, "The executor checks a call makes").
func edgeInProcessBenchmark(deploymentFile: String, scratch: String, calls: Int, side: EdgeBenchmarkSide = .both) async throws
    -> (edge: Summary, served: Summary, kept: Summary, edgeCPU: Double, servedCPU: Double, keptCPU: Double, logBytes: Int)
{
    let journal = try PipeDrain()
    let host = try await startedExampleHost(deploymentFile, data: scratch + "/edge-data", log: .discarding)
    let servedHost = try await startedExampleHost(deploymentFile, data: scratch + "/edge-served-data",
                                                  log: .lines(level: .info, format: .text, descriptor: journal.writeEnd))
    guard let inputSchema = host.manifest(of: "dev.tessera.example")?.operation(named: "echo")?.inputSchema else {
        throw PluginError(.unavailable, "the example plugin declares no echo operation")
    }
    let tokens = TokenStore(dataDirectory: scratch + "/edge-data")
    guard let token = try tokens.ensureAdminToken() else { throw PluginError(.internal, "no fresh token") }
    let server = HTTPServer(host: host, tokens: tokens, configuration: HTTPConfiguration(port: 0, rateLimit: nil))
    server.markReady()
    let edge = server.inProcessResponder()
    let servedServer = HTTPServer(host: servedHost, tokens: tokens, configuration: HTTPConfiguration(port: 0, rateLimit: nil))
    servedServer.markReady()
    let served = servedServer.inProcessResponder()
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
    let operationPath = "/v1/plugins/dev.tessera.example/ops/echo"
    func callEdge() async throws {
        guard side == .both || side == .edge else { return }
        let response = try await edge.respond(to: request(operationPath), context: APIRequestContext(source: source))
        guard response.status == .ok else { throw PluginError(.internal, "the edge answered \(response.status)") }
    }
    func callServed() async throws {
        guard side == .both || side == .served else { return }
        let response = try await served.respond(to: request(operationPath), context: APIRequestContext(source: source))
        guard response.status == .ok else { throw PluginError(.internal, "the edge as served answered \(response.status)") }
    }
    func callKept() async throws {
        guard side == .both || side == .kept else { return }
        let response = try await kept.respond(to: request(KeptWorkRoute.path), context: BasicRequestContext(source: source))
        guard response.status == .ok else { throw PluginError(.internal, "the kept-work route answered \(response.status)") }
    }

    // Warm all three, then blocks of 500 calls in turns; CPU is the process's over each side's blocks.
    for _ in 0..<500 { try await callEdge(); try await callServed(); try await callKept() }
    var times: [[Double]] = [[], [], []]
    var cpu = [0.0, 0.0, 0.0]
    let block = 500
    let sides = [callEdge, callServed, callKept]
    for _ in 0..<max(1, calls / block) {
        for (index, call) in sides.enumerated() {
            let before = processCPUSeconds()
            for _ in 0..<block {
                let t = monotonicNanoseconds()
                try await call()
                times[index].append(Double(monotonicNanoseconds() - t))
            }
            cpu[index] += processCPUSeconds() - before
        }
    }
    await host.stop()
    await servedHost.stop()
    HostLog.flush()
    let count = Double(max(1, calls / block) * block)
    return (Summary(times[0]), Summary(times[1]), Summary(times[2]), cpu[0] / count * 1e6, cpu[1] / count * 1e6, cpu[2] / count * 1e6,
            journal.finish())
}

/// A host of the example plugin alone, started, its plugin active.
private func startedExampleHost(_ deploymentFile: String, data: String, log: HostLog) async throws -> PluginHost {
    let host = try PluginHost(deployment: DeploymentReader.read(file: deploymentFile),
                              options: HostOptions(dataDirectory: data, log: log, onlyPlugins: ["dev.tessera.example"]))
    await host.start()
    guard host.status(of: "dev.tessera.example")?.state == .active else {
        throw PluginError(.unavailable, "example plugin not active: \(host.status(of: "dev.tessera.example")?.reason ?? "?")")
    }
    return host
}

/// A pipe whose read end a thread of its own drains, as a service manager's journal reads what
/// a service writes to stderr: the host's log lines go to ``writeEnd``.
final class PipeDrain: @unchecked Sendable {
    let writeEnd: Int32
    private let readEnd: Int32
    private let done = DispatchSemaphore(value: 0)
    private var bytes = 0

    init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw PluginError(.internal, "pipe: errno \(errno)") }
        readEnd = ends[0]
        writeEnd = ends[1]
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = read(readEnd, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                bytes += n
            }
            done.signal()
        }.start()
    }

    /// Closes the write end, waits for the reader to see the end, and says how many bytes it read.
    func finish() -> Int {
        close(writeEnd)
        done.wait()
        close(readEnd)
        return bytes
    }
}

/// Which responders `tessera-bench edge` calls.
enum EdgeBenchmarkSide: String {
    /// Both, in turns: the figures and their ratio.
    case both
    /// The edge's responder alone.
    case edge
    /// The kept-work route's alone.
    case kept
    /// The edge's responder, logging as `tessera serve` does, alone.
    case served
}
