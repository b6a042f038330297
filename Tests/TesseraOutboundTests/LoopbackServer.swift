import Foundation
import Hummingbird
import Logging
import Synchronization

/// A real HTTP server on a loopback port for the outbound tests: echoes requests, redirects, and
/// answers a large body; counts the requests it saw.
final class LoopbackServer: Sendable {
    let port: Int
    let task: Task<Void, any Error>
    private let seen: RequestLog

    /// Every request's method and target (path and query), in arrival order.
    var requests: [String] { seen.lines.withLock { $0 } }

    private init(port: Int, task: Task<Void, any Error>, seen: RequestLog) {
        self.port = port
        self.task = task
        self.seen = seen
    }

    static func start() async throws -> LoopbackServer {
        let log = RequestLog()
        let router = Router()
        router.middlewares.add(Recorder(log: log))
        router.on("/echo", method: .post) { request, _ -> Response in
            var body = ByteBuffer()
            for try await chunk in request.body { var chunk = chunk; body.writeBuffer(&chunk) }
            let answer = #"{"method":"POST","probe":"\#(request.headers[.acceptLanguage] ?? "")","length":\#(body.readableBytes)}"#
            return Response(status: .created, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: answer)))
        }
        router.get("/v1/rest/{rest}") { request, _ -> Response in
            Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "got \(request.uri.path)?\(request.uri.query ?? "")")))
        }
        router.get("/redirect") { _, _ -> Response in
            Response(status: .found, headers: [.location: "http://not-granted.example/elsewhere"])
        }
        router.get("/big") { _, _ -> Response in
            Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(repeating: 0x61, count: 300_000)))
        }
        let (ports, sink) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: "loopback")
        logger.logLevel = .critical
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { sink.yield($0.localAddress?.port ?? 0); sink.finish() }, logger: logger)
        let task = Task { try await app.runService() }
        for await port in ports { return LoopbackServer(port: port, task: task, seen: log) }
        throw CancellationError()
    }

    func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}

/// Records each request's method and URI.
struct Recorder: RouterMiddleware {
    let log: RequestLog
    func handle(_ request: Request, context: BasicRequestContext,
                next: (Request, BasicRequestContext) async throws -> Response) async throws -> Response {
        log.lines.withLock { $0.append("\(request.method) \(request.uri)") }
        return try await next(request, context)
    }
}

/// The requests a ``LoopbackServer`` saw.
final class RequestLog: Sendable {
    let lines = Mutex<[String]>([])
}
