import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// HTTP/1 connections whose tasks run on the event loop that reads their socket.
///
/// A connection's task reads its requests from the channel and writes its answers to it; the event
/// loop produces those reads and takes those writes. Run anywhere else, every request crosses
/// threads twice more than it must (the loop wakes the task's thread, the task hands the answer
/// back): on the edge's own thread pool, 2.4–2.8 context switches per request against 0.5–0.7
/// here (docs/benchmarks.md, "The edge's connections on their event loops").
/// The loops are NIO's threads, never lent to plugin code, so the host's own endpoints still
/// answer while in-process plugins hold every thread of Swift's shared pool; every other request
/// is still handled back on that pool (``EdgeResponder``).
struct EventLoopHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        http1.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await http1.handle(value: value, logger: logger)
        }
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
    /// An HTTP/1 server whose connections' tasks run on their event loops (``EventLoopHTTP1Channel``).
    static func http1OnEventLoops(configuration: HTTP1Channel.Configuration) -> HTTPServerBuilder {
        .init { responder in EventLoopHTTP1Channel(http1: HTTP1Channel(responder: responder, configuration: configuration)) }
    }
}
