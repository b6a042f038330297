import HTTPTypes
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

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        var response = try await next(request, context)
        finish(&response, of: request, context: context, startedAt: started)
        return response
    }

    /// Gives `response` its request id and writes the request's line.
    func finish(_ response: inout Response, of request: Request, context: Context, startedAt started: ContinuousClock.Instant) {
        // The edge's server gives each request its id (``EdgeRequestID``), and puts it in the
        // request's logger too. Hummingbird's own server puts its id only in the logger; without
        // either (a context another test made), a number of our own.
        let id = context.requestID?.description
            ?? context.logger[metadataKey: "hb.request.id"].map { "\($0)" } ?? EdgeRequestID.next().description
        response.headers[Self.requestID] = id
        if log.writes(.info) {
            let elapsed = ContinuousClock.now - started
            let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            log(.info, "http", "\(request.method.rawValue) \(request.uri.path) \(response.status.code) "
                + "\((milliseconds * 100).rounded() / 100) ms request=\(id)")
        }
    }
}
