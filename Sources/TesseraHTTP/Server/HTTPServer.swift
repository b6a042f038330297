import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import TesseraHub
import TesseraRuntime
import TesseraSystem

/// The HTTP edge of a host: serves the API (docs/http.md) for one host (any ``HostAPI``; a deployment runs a ``PluginHost``) until stopped.
///
/// ```swift
/// let server = HTTPServer(host: host, tokens: TokenStore(dataDirectory: data), configuration: .init(port: 0))
/// let port = try await server.start()   // listening; /healthz answers, /readyz says 503
/// await host.start()
/// server.markReady()                    // /readyz says 200
/// …
/// await server.stop()                   // in-flight requests finish, then the socket closes
/// ```
public final class HTTPServer: Sendable {
    public let configuration: HTTPConfiguration
    let host: any HostAPI
    let tokens: TokenStore
    /// The hub's store when the deployment's role is `hub`: the `/v1/hub/…` routes serve it (docs/hub.md).
    let hub: HubStore?
    /// The files that pass through the hub (`/v1/hub/files/…`), when the deployment's role is `hub`.
    let hubFiles: HubFiles?
    let metrics = HTTPMetrics()
    let readiness = Readiness()
    let streams = StreamHub()
    private let running = Mutex<(group: ServiceGroup, task: Task<Void, any Error>)?>(nil)
    /// The threads every server of this process accepts its connections on, one per core and at
    /// least two: never lent to plugin code, so connections are accepted while in-process plugins
    /// hold every thread of Swift's shared pool. The host's own endpoints are then answered on
    /// the event loop that reads the connection (``HostEndpointsOnTheLoop``), every other request
    /// in the connection's task on the shared pool (``EdgeHTTP1Channel``).
    static let edgeThreads = ThreadPoolExecutor(name: "tessera-edge", threads: max(2, ProcessInfo.processInfo.activeProcessorCount))

    public init(host: any HostAPI, tokens: TokenStore, configuration: HTTPConfiguration, hub: HubStore? = nil, hubFiles: HubFiles? = nil) {
        self.host = host
        self.tokens = tokens
        self.hub = hub
        self.hubFiles = hubFiles
        self.configuration = configuration
        // New notifications and events wake the open SSE streams, which then read them.
        let streams = self.streams
        host.onNotificationDelivered { _ in streams.wakeAll() }
        host.onEventPublished { streams.wakeAll() }
    }

    /// Binds the listener and starts serving in the background. Returns the bound port (the one the
    /// system chose, for port 0) once the socket is listening; throws ``HTTPServerError`` if it
    /// cannot bind.
    public func start() async throws -> Int {
        // The host's own logger: Hummingbird's lines, each with its request id, go where the
        // host's go, at the level the host set (warnings and worse unless verbose).
        let logger = host.options.log.logger
        let (ports, portSink) = AsyncStream<Int>.makeStream()
        // An idle keep-alive connection is closed after a minute, so idle clients cannot hold sockets forever.
        let http1 = HTTP1Channel.Configuration(idleTimeout: .seconds(60))
        let responder = responder()
        let server = try EdgeServerService.make(
            server: configuration.ownThreads
                ? .edgeHTTP1(configuration: http1, responder: responder, maxBodyBytes: configuration.maxBodyBytes)
                : .http1(configuration: http1),
            responder: responder, configuration: configuration, executor: configuration.ownThreads ? Self.edgeThreads : nil,
            logger: logger,
            onServerRunning: { channel in
                portSink.yield(channel.localAddress?.port ?? 0)
                portSink.finish()
            })
        // No signal handling here: whoever runs the server decides when it stops (``stop()``).
        // The group's own tasks take no executor preference: only the server's (EdgeServerService).
        let group = ServiceGroup(services: [server], logger: logger)
        let task = Task {
            defer { portSink.finish() }
            try await group.run()
        }
        running.withLock { $0 = (group, task) }
        for await port in ports { return port }
        // The stream ended without a port: the group stopped before listening.
        do { try await task.value } catch {
            throw HTTPServerError.cannotListen(host: configuration.host, port: configuration.port, reason: "\(error)")
        }
        throw HTTPServerError.cannotListen(host: configuration.host, port: configuration.port, reason: "the server stopped at once")
    }

    /// What ``start()`` serves: the routes and middlewares over this server's host, tokens,
    /// metrics, readiness and streams. A test sends requests to it without a socket
    /// (Hummingbird's `.router` test mode) and sees what a client on the wire would.
    func responder() -> EdgeResponder {
        APIRouter.make(host: host, tokens: tokens, configuration: configuration, metrics: metrics, readiness: readiness,
                       streams: streams, hub: hub, hubFiles: hubFiles)
    }

    /// The responder a connection hands each request to, for `tessera-bench edge`, which calls it
    /// in process, without a socket, to measure the edge's own work per call.
    @_spi(Benchmarks) public func inProcessResponder() -> some HTTPResponder<APIRequestContext> { responder() }

    /// Says the host has finished starting: `/readyz` answers 200 from now on.
    public func markReady() { readiness.markReady() }

    /// Stops accepting connections, lets requests in flight finish, and returns once the server
    /// has stopped. `/readyz` answers 503 meanwhile. Open SSE streams end first: they would
    /// otherwise never finish, and a graceful stop waits for every response.
    public func stop() async {
        readiness.markStopping()
        streams.close()
        // A hub's waiting devices are answered now, not when their 25-second waits run out.
        hub?.endWaits()
        guard let (group, task) = running.withLock({ $0 }) else { return }
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        running.withLock { $0 = nil }
    }
}

/// Why the server could not start.
public enum HTTPServerError: Error, CustomStringConvertible {
    case cannotListen(host: String, port: Int, reason: String)

    public var description: String {
        switch self {
        case .cannotListen(let host, let port, let reason): "cannot listen on \(host):\(port): \(reason)"
        }
    }
}
