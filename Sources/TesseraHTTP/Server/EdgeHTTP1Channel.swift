import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// The edge's HTTP/1 connections: Hummingbird's, with the host's own endpoints answered on the
/// connection's event loop (``HostEndpointsOnTheLoop``) and every other request in the
/// connection's task on Swift's shared pool.
///
/// The server accepts on the edge's own threads (``HTTPServer/edgeThreads``), which plugin code
/// never gets, so a connection is accepted and its pipeline set up while plugins hold every
/// thread of the shared pool. Its task would inherit those threads' preference; it is started
/// without one instead (an unstructured task inherits none), so its requests run where their
/// handlers run, on the shared pool, with no switch of thread and no executor preference looked
/// up at each suspension (docs/benchmarks.md, "The host's own endpoints on the loop, connections
/// on the pool").
struct EdgeHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let responder: EdgeResponder
    let maxBodyBytes: Int

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            // Last before the connection's task: after the decoder and the connection's state,
            // which then count the requests answered here too (idle time, a graceful stop).
            let handler = HostEndpointsOnTheLoop(responder: responder, logger: logger, maxBodyBytes: maxBodyBytes)
            let state = try channel.pipeline.syncOperations.handler(type: HTTPConnectionStateHandler.self)
            try channel.pipeline.syncOperations.addHandler(handler, position: .after(state))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        let connection = Task { await http1.handle(value: value, logger: logger) }
        await withTaskCancellationHandler { await connection.value } onCancel: { connection.cancel() }
    }
}

/// A task executor that runs each job on one NIO event loop.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

extension HTTPServerBuilder {
    /// The edge's HTTP/1 server (``EdgeHTTP1Channel``).
    static func edgeHTTP1(configuration: HTTP1Channel.Configuration, responder: EdgeResponder, maxBodyBytes: Int) -> HTTPServerBuilder {
        .init { hummingbirdResponder in
            EdgeHTTP1Channel(http1: HTTP1Channel(responder: hummingbirdResponder, configuration: configuration),
                             responder: responder, maxBodyBytes: maxBodyBytes)
        }
    }
}
