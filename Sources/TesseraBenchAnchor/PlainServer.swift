import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// A Hummingbird server with one route, `POST /noop`, that reads the body and answers a small JSON
/// object: the anchor the HTTP edge is compared with (`tessera-bench http`, in the benchmark's own
/// process) and the floor of what a server process holds (`tessera-bench memory`, in a process of
/// its own: `tessera-plain-server`). It depends on Hummingbird and nothing of Tessera.
public struct PlainServer: Sendable {
    /// The loopback port it listens on.
    public let port: Int
    let group: ServiceGroup
    let task: Task<Void, any Error>

    /// Why the server could not start.
    public struct StartFailure: Error, CustomStringConvertible {
        public var description: String { "the plain Hummingbird server did not start" }
    }

    /// Starts the server on a free loopback port and returns once it listens. `addRoutes` may
    /// register more routes beside `/noop` (the HTTP benchmark's route that does the edge's kept
    /// work with Tessera's pieces but without its runtime).
    public static func start(addRoutes: (Router<BasicRequestContext>) -> Void = { _ in }) async throws -> PlainServer {
        let router = Router()
        addRoutes(router)
        router.post("/noop") { request, _ -> Response in
            var length = 0
            for try await chunk in request.body { length += chunk.readableBytes }
            return Response(status: .ok, headers: [.contentType: "application/json"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"ok":true,"count":\#(length > 0 ? 3 : 0)}"#)))
        }
        let (ports, sink) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: "plain")
        logger.logLevel = .warning  // no "server started" line in the report
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { sink.yield($0.localAddress?.port ?? 0); sink.finish() }, logger: logger)
        let group = ServiceGroup(services: [app], logger: app.logger)
        let task = Task { try await group.run() }
        for await port in ports { return PlainServer(port: port, group: group, task: task) }
        throw StartFailure()
    }

    /// Shuts the server down and waits until it has.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}
