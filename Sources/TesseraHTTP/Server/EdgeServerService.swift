import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// The edge's HTTP server as one service: Hummingbird's server over the edge's responder, built
/// as Hummingbird's `Application` builds it, without the application's date-cache service.
///
/// Why not `Application`: the server's tasks (the loop that takes each accepted connection and
/// the connection's first task) run on the edge's threads (``HTTPServer/edgeThreads``) so that
/// connections keep being taken while in-process plugins hold every thread of Swift's shared
/// pool (issue 43). An executor preference is inherited by every child task, and `Application`
/// runs its server and its date cache in one service group: the date cache's timer, merged with
/// the graceful-shutdown signal (swift-async-algorithms' `merge`), then ran with that preference
/// too. Swift runs a cancellation handler under the task's status-record lock, a task with a
/// preference takes that lock at each switch of executor, and `merge` takes its own lock in both:
/// the two threads waited for each other when the group was cancelled at a stop, and the whole
/// process hung (seen twice in thirteen suite runs, 2026-12-01/02; the threads as gdb showed them
/// in docs/isolation.md, "Threads"). Here the preference covers the server's run only, and the
/// `Date` header comes from ``HTTPDate`` as the host's own endpoints take it.
enum EdgeServerService {
    /// The server for `responder`, listening at `configuration`'s address; its tasks prefer
    /// `executor` when given one.
    static func make(server builder: HTTPServerBuilder, responder: EdgeResponder, configuration: HTTPConfiguration,
                     executor: (any TaskExecutor)?, logger: Logger,
                     onServerRunning: @escaping @Sendable (any Channel) async -> Void) throws -> any Service {
        let server = try builder.buildServer(
            configuration: ServerConfiguration(address: .hostname(configuration.host, port: configuration.port)),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger,
            responder: { request, writer, channel in
                try await answer(request, with: responder, writer: writer, channel: channel, logger: logger)
            },
            onServerRunning: onServerRunning)
        guard let executor else { return server }
        return PreferringExecutor(base: server, executor: executor)
    }

    /// One request: the responder's answer (a 500 for an error no middleware turned into one),
    /// with its `Date` and the request's id in its logger, as `Application` answers.
    private static func answer(_ request: Request, with responder: EdgeResponder, writer: consuming ResponseWriter,
                               channel: any Channel, logger: Logger) async throws {
        var logger = logger
        let id = EdgeRequestID.next()
        logger[metadataKey: "hb.request.id"] = .stringConvertible(id)
        var context = APIRequestContext(source: ApplicationRequestContextSource(channel: channel, logger: logger))
        context.requestID = id
        var response: Response
        do {
            response = try await responder.respond(to: request, context: context)
        } catch let error as HTTPParserError {
            throw error
        } catch {
            logger.debug("an error no middleware answered: \(error)")
            response = Response(status: .internalServerError)
        }
        response.headers[.date] = HTTPDate.now()
        do {
            try await writer.write(response: response.head, body: response.body)
        } catch is HTTPParserError {
            // Thrown on, Hummingbird would write a 400 after the answer had begun: closing is all that is left.
            throw AnswerCutShort()
        }
    }

    /// A request's body turned out malformed while its answer was being written.
    struct AnswerCutShort: Error {}

    /// A service whose tasks prefer `executor`, and only its own (not its service group's).
    struct PreferringExecutor: Service {
        let base: any Service
        let executor: any TaskExecutor

        func run() async throws {
            try await withTaskExecutorPreference(executor) { try await base.run() }
        }
    }
}
