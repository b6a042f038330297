import Hummingbird
import Logging
import NIOHTTP1
import TesseraRuntime
import TesseraSDK

/// Turns whatever a route or an inner middleware throws into an ``APIError`` response, so that every
/// error a client sees has the same JSON shape — including Hummingbird's own 404 for an unknown path.
/// It is the outermost layer that can fail: nothing thrown gets past it as a bare 500.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return try response(to: error, request: request, context: context)
        }
    }

    /// The JSON error response for what was thrown.
    func response(to error: any Error, request: Request, context: Context) throws -> Response {
        try apiError(for: error, request: request, logger: context.logger).response(from: request, context: context)
    }

    /// The response for `error`. An error that is the edge's or the plugin's own fault is logged
    /// through the request's logger, so its line carries the request id.
    func apiError(for error: any Error, request: Request, logger: Logger) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as PluginError:
            if APIError.status(for: error.code) == nil {
                logger.error("\(request.method.rawValue) \(request.uri.path): \(error)", metadata: ["source": "http"])
            }
            return APIError(error)
        case let error as HTTPError where error.status == .notFound:
            return .noRoute(request.method, request.uri.path)
        case let error as HTTPError:
            return APIError(error.status, code: Self.code(for: error.status), error.body ?? error.status.reasonPhrase, headers: error.headers)
        case let error as HTTPParserError:
            // The client's fault, not the edge's: a body cut off before its Content-Length (a
            // dropped connection mid-upload) or malformed framing. Nothing of it was applied.
            return APIError(.badRequest, code: "invalid_input", "the request could not be read whole: \(error.debugDescription)")
        default:
            // A bug in the edge itself: say so in the log, and nothing of it to the client.
            logger.error("\(request.method.rawValue) \(request.uri.path): unexpected error: \(error)", metadata: ["source": "http"])
            return APIError(PluginError(.internal, ""))
        }
    }

    /// A code for an HTTP status Hummingbird chose on its own.
    static func code(for status: HTTPResponse.Status) -> String {
        switch status.code {
        case 400: "invalid_input"
        case 413: "payload_too_large"
        case 400..<500: "bad_request"
        default: "internal"
        }
    }
}
