import HTTPTypes
import Hummingbird
import TesseraSDK

/// An error the API answers with: a status and the body `{"error": {"code", "message", "field"?, "reason"?}}`.
///
/// Every refusal the HTTP edge makes is one of these, so every client sees one error shape whatever
/// refused it — the router, a middleware, the host or a plugin (see ``init(_:)`` for how a plugin's
/// ``PluginError`` maps, and docs/http.md for the table).
public struct APIError: Error, HTTPResponseError, Sendable {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// The machine-readable code, e.g. `invalid_input`.
    public var code: String
    /// One sentence for a person.
    public var message: String
    /// The JSON path of the input field at fault (`$.text`), where there is one.
    public var field: String?
    /// A plugin's own, more exact code for the refusal (``PluginError/reason``), listed in its
    /// manifest's `reasons`; `nil` when ``code`` says it all.
    public var reason: String?
    /// Extra response headers (`WWW-Authenticate`, `Allow`, `Retry-After`).
    public var headers: HTTPFields

    public init(_ status: HTTPResponse.Status, code: String, _ message: String, field: String? = nil, reason: String? = nil,
                headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.reason = reason
        self.headers = headers
    }

    /// The error body as JSON.
    public var json: JSONValue {
        var error: [String: JSONValue] = ["code": .string(code), "message": .string(message)]
        if let field { error["field"] = .string(field) }
        if let reason { error["reason"] = .string(reason) }
        return .object(["error": .object(error)])
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = Response.json(json, status: status)
        response.headers.append(contentsOf: headers)
        return response
    }
}

// MARK: The edge's own refusals

extension APIError {
    /// 401: no token, or one this host does not know. The challenge header tells the client how to
    /// authenticate (RFC 6750).
    static func unauthorized(_ message: String) -> APIError {
        APIError(.unauthorized, code: "unauthorized", message, headers: [.wwwAuthenticate: #"Bearer realm="tessera""#])
    }

    /// 401 on a route that also takes the token as a Basic password (`/v1/location`): a Basic
    /// challenge first, then the Bearer one. OwnTracks' HTTP mode (and any client that keeps its
    /// credentials for a server's challenge, as Apple's URL loading does) sends the user name and
    /// password only once challenged, and shows the failure as one of authentication only so.
    static func unauthorizedWithBasic(_ message: String) -> APIError {
        var headers = HTTPFields()
        headers.append(HTTPField(name: .wwwAuthenticate, value: #"Basic realm="tessera", charset="UTF-8""#))
        headers.append(HTTPField(name: .wwwAuthenticate, value: #"Bearer realm="tessera""#))
        return APIError(.unauthorized, code: "unauthorized", message, headers: headers)
    }

    /// 404 for a path no route serves.
    static func noRoute(_ method: HTTPRequest.Method, _ path: String) -> APIError {
        APIError(.notFound, code: "not_found", "no route \(method.rawValue) \(path); GET /openapi.json lists the routes")
    }

    /// 405: the path exists, the method does not. `Allow` lists the methods that do.
    static func methodNotAllowed(_ method: HTTPRequest.Method, _ path: String, allowed: [HTTPRequest.Method]) -> APIError {
        let list = allowed.map(\.rawValue).joined(separator: ", ")
        return APIError(.methodNotAllowed, code: "method_not_allowed", "\(method.rawValue) is not allowed on \(path); use \(list)",
                        headers: [.allow: list])
    }

    /// 413: the body is larger than the server accepts.
    static func payloadTooLarge(limit: Int) -> APIError {
        APIError(.contentTooLarge, code: "payload_too_large", "the request body is larger than the limit of \(limit) bytes")
    }

    /// 415: a POST body that does not say it is JSON.
    static func unsupportedMediaType(_ found: String?) -> APIError {
        APIError(.unsupportedMediaType, code: "unsupported_media_type",
                 "expected Content-Type: application/json, found \(found.map { "'\($0)'" } ?? "none")")
    }

    /// 429: the token's rate limit is spent; `Retry-After` says when to try again.
    static func rateLimited(retryAfterSeconds: Int) -> APIError {
        APIError(.tooManyRequests, code: "rate_limited", "too many requests for this token; retry after \(retryAfterSeconds) s",
                 headers: [.retryAfter: String(retryAfterSeconds)])
    }
}
