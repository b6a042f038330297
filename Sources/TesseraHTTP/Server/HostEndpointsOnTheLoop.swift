import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTPTypes
import Synchronization

/// Answers the host's own endpoints (``EdgeResponder/hostsOwn``) on the event loop that reads the
/// connection, in the connection's channel pipeline, so that they answer while in-process plugins
/// hold every thread of Swift's shared pool (issue 43), where the connection's task runs.
///
/// It sits last in the pipeline, after Hummingbird's HTTP/1 decoding and connection state, before
/// the connection's task. A `GET` or `HEAD` of one of those paths, arriving when no earlier request
/// of the connection is still being answered by the task, stops here: its answer comes from the
/// same responder through the same middlewares, in a task whose jobs run on this loop
/// (``EventLoopTaskExecutor``), never on the shared pool. Every other request goes on to the
/// connection's task. HTTP/1 answers in order: what arrives while this handler answers is held
/// (and the socket not read further) until its answer is written, then handled in turn; a host's
/// request that arrives behind one the task is still answering goes to the task after it.
///
/// Before, every connection's task ran on its event loop (2026-11-30): it kept the same promise but
/// every switch of every request paid for the task's executor preference, a tenth of the edge's
/// throughput on a shared two-core machine (docs/benchmarks.md, 2026-12-02).
final class HostEndpointsOnTheLoop: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let responder: EdgeResponder
    private let logger: Logger
    private let maxBodyBytes: Int

    /// Requests passed on to the connection's task whose answers have not ended yet.
    private var passedOn = 0
    /// The request this handler answers, from its head until its answer is written.
    private var own: OwnRequest?
    /// What arrived while this handler answered: handled in order once its answer is written.
    private var held: [Arrival] = []
    /// A read asked for while this handler answered: asked for once its answer is written.
    private var readWanted = false

    /// What the connection's task is told, in the order it arrived: a request's part, an error
    /// (a request the decoder could not parse: the task answers 400), an event (the client's
    /// half of the connection closed: the task finishes).
    private enum Arrival {
        case part(HTTPRequestPart)
        case error(any Error)
        case event(Any)
    }

    /// Whether this handler's own request has been read whole and its answer is being made.
    private var answering: Bool { own?.complete == true }

    private struct OwnRequest {
        var head: HTTPRequest
        var body = ByteBuffer()
        var complete = false
    }

    init(responder: EdgeResponder, logger: Logger, maxBodyBytes: Int) {
        self.responder = responder
        self.logger = logger
        self.maxBodyBytes = maxBodyBytes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        receive(unwrapInboundIn(data), as: data, context: context)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        abandonUnfinishedRequest()
        guard !answering, held.isEmpty else { held.append(.error(error)); return }
        context.fireErrorCaught(error)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        abandonUnfinishedRequest()
        guard !answering, held.isEmpty else { held.append(.event(event)); return }
        context.fireUserInboundEventTriggered(event)
    }

    /// An error or the end of the client's input in the middle of this handler's own request: it
    /// will never be finished, and what follows is the task's to answer.
    private func abandonUnfinishedRequest() {
        if let request = own, !request.complete { own = nil }
    }

    /// - Parameters:
    ///   - wrapped: the part as it came, passed on as it is (wrapping it again boxes a head anew).
    ///   - fromHeld: the part is one that was held, handled now in its turn.
    private func receive(_ part: HTTPRequestPart, as wrapped: NIOAny? = nil, context: ChannelHandlerContext, fromHeld: Bool = false) {
        if var request = own, !request.complete {
            // The rest of this handler's own request.
            own = nil
            switch part {
            case .head: break  // the decoder never sends a head before the last request's end
            case .body(var bytes):
                // A GET's body is nothing any of these endpoints reads; it is kept only up to the
                // edge's limit, so a client cannot make the loop hold more.
                if request.body.readableBytes + bytes.readableBytes <= maxBodyBytes { request.body.writeBuffer(&bytes) }
            case .end: request.complete = true
            }
            own = request
            if request.complete { answer(request, context: context) }
            return
        }
        guard own == nil, fromHeld || held.isEmpty else { held.append(.part(part)); return }
        if case .head(let head) = part {
            if passedOn == 0, Self.isHostsOwn(head) {
                own = OwnRequest(head: head)
                return
            }
            passedOn += 1
        }
        context.fireChannelRead(wrapped ?? wrapInboundOut(part))
    }

    /// Whether the request is one this handler answers: a `GET` or `HEAD` of the host's own endpoints.
    static func isHostsOwn(_ head: HTTPRequest) -> Bool {
        guard head.method == .get || head.method == .head, let target = head.path else { return false }
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? target
        return EdgeResponder.hostsOwn.contains(path)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // The connection's task answering one of the requests passed on to it (or refusing what
        // could not be parsed as one: never below none).
        if case .end = unwrapOutboundIn(data) { passedOn = max(0, passedOn - 1) }
        context.write(data, promise: promise)
    }

    func read(context: ChannelHandlerContext) {
        // While an answer of this handler's is being made, the socket is not read further: a
        // client cannot pile up requests in memory behind it.
        guard !answering, held.isEmpty else { readWanted = true; return }
        context.read()
    }

    /// Makes the answer in a task on this loop, then writes it and goes on with what was held.
    private func answer(_ request: OwnRequest, context: ChannelHandlerContext) {
        let loop = context.eventLoop
        let handler = NIOLoopBound(self, eventLoop: loop), boundContext = NIOLoopBound(context, eventLoop: loop)
        let closing = request.head.headerFields[.connection]?.lowercased() == "close"
        Self.makeAnswer(to: request, with: responder, channel: context.channel, logger: logger) { parts in
            loop.execute { handler.value.written(parts, closing: closing, context: boundContext.value) }
        }
    }

    private static func makeAnswer(to request: OwnRequest, with responder: EdgeResponder, channel: any Channel, logger: Logger,
                                   then write: @escaping @Sendable ([HTTPResponsePart]) -> Void) {
        Task(executorPreference: EventLoopTaskExecutor(channel.eventLoop)) {
            write(await respond(to: request, with: responder, channel: channel, logger: logger))
        }
    }

    private func written(_ parts: [HTTPResponsePart], closing: Bool, context: ChannelHandlerContext) {
        own = nil
        for part in parts { context.write(wrapOutboundOut(part), promise: nil) }
        context.flush()
        // As the connection's task does: a request that asked to close the connection is its last.
        if closing {
            held = []
            context.close(promise: nil)
            return
        }
        // What arrived meanwhile, in order, until it is all passed on or another answer begins here.
        var passed = false
        while !held.isEmpty, !answering {
            switch held.removeFirst() {
            case .part(let part): receive(part, context: context, fromHeld: true)
            case .error(let error): abandonUnfinishedRequest(); context.fireErrorCaught(error)
            case .event(let event): abandonUnfinishedRequest(); context.fireUserInboundEventTriggered(event)
            }
            passed = true
        }
        // The task's side of the channel takes what it was given when a read completes.
        if passed { context.fireChannelReadComplete() }
        if readWanted, !answering, held.isEmpty {
            readWanted = false
            context.read()
        }
    }

    /// What Hummingbird's application would write for the request: the responder's answer (a 500
    /// for an error no middleware turned into one) with its `Date`, its body gathered.
    private static func respond(to request: OwnRequest, with responder: EdgeResponder, channel: any Channel,
                                logger: Logger) async -> [HTTPResponsePart] {
        let context = APIRequestContext(source: ApplicationRequestContextSource(channel: channel, logger: logger))
        var response: Response
        do {
            response = try await responder.respond(to: Request(head: request.head, body: RequestBody(buffer: request.body)), context: context)
        } catch {
            response = Response(status: .internalServerError)
        }
        response.headers[.date] = HTTPDate.now()
        let body = GatheredBody()
        do {
            try await response.body.write(GatheringWriter(gathered: body))
        } catch {
            logger.debug("the answer's body could not be written: \(error)")
            return [.head(HTTPResponse(status: .internalServerError, headerFields: [.contentLength: "0"])), .end(nil)]
        }
        var head = response.head
        if head.headerFields[.contentLength] == nil, body.trailers == nil, request.head.method != .head {
            head.headerFields[.contentLength] = String(body.bytes.readableBytes)
        }
        return [.head(head)] + (body.bytes.readableBytes > 0 ? [.body(body.bytes)] : []) + [.end(body.trailers)]
    }
}

/// A response's body, gathered whole (the host's own endpoints answer a few kilobytes at most).
private final class GatheredBody: @unchecked Sendable {
    // Written by one task, read after it has finished.
    var bytes = ByteBuffer()
    var trailers: HTTPFields?
}

private struct GatheringWriter: ResponseBodyWriter {
    let gathered: GatheredBody

    mutating func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        gathered.bytes.writeBuffer(&buffer)
    }

    mutating func write(contentsOf buffers: some Sequence<ByteBuffer>) async throws {
        for buffer in buffers { try await write(buffer) }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        gathered.trailers = trailingHeaders
    }
}

/// The `Date` header's form (RFC 9110, "IMF-fixdate"): `Wed, 02 Dec 2026 02:43:15 GMT`.
enum HTTPDate {
    /// The last second formatted: every answer of that second carries the same text.
    private static let cached = Mutex<(second: time_t, text: String)>((0, ""))

    /// The current second's date, formatted once per second.
    static func now() -> String {
        let second = time(nil)
        return cached.withLock { cached in
            if cached.second != second { cached = (second, format(second)) }
            return cached.text
        }
    }

    static func format(_ seconds: time_t) -> String {
        var seconds = seconds
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
