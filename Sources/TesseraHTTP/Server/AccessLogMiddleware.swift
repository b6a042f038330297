import HTTPTypes
import Synchronization
import Hummingbird
import TesseraRuntime

/// One line in the host's log per request, at info (issue 46): the method, the path without its
/// query (a link's token may ride in one), the status, the time it took and the request id —
/// the id every other line of that request carries (Hummingbird's `hb.request.id`, when its logger
/// has one) and the
/// response's `X-Request-Id`, so a person quoting it to the operator names the lines at once.
/// Outermost: the status is the one sent, refusals of the inner layers included.
struct AccessLogMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let log: HostLog

    static let requestID = HTTPField.Name("X-Request-Id")!
    private static let counter = Atomic<UInt64>(0)
    private static let prefix = String(UInt32.random(in: 0...UInt32.max), radix: 16)

    /// `3fa2c1d0-17`: this process's prefix and a count.
    static func fallbackID() -> String {
        "\(prefix)-\(counter.wrappingAdd(1, ordering: .relaxed).newValue)"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        var response = try await next(request, context)
        finish(&response, of: request, context: context, startedAt: started)
        return response
    }

    /// Gives `response` its request id and writes the request's line.
    func finish(_ response: inout Response, of request: Request, context: Context, startedAt started: ContinuousClock.Instant) {
        // Hummingbird puts its id in the request's logger metadata; without one (a logger
        // another test made), a number of our own.
        let id = context.logger[metadataKey: "hb.request.id"].map { "\($0)" } ?? Self.fallbackID()
        response.headers[Self.requestID] = id
        if log.writes(.info) {
            let elapsed = ContinuousClock.now - started
            let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            log(.info, "http", "\(request.method.rawValue) \(request.uri.path) \(response.status.code) "
                + "\((milliseconds * 100).rounded() / 100) ms request=\(id)")
        }
    }
}
