import Foundation
import Hummingbird

/// Lets a request through only with a bearer token the host knows (`Authorization: Bearer <token>`),
/// and puts the principal it stands for into the context. Every path needs one except `openPaths`
/// (`/healthz`, for probes that hold no secret) and those under `openPrefixes` (the console's and
/// modules' static files, which a browser fetches without one). A path that matches no route needs
/// one too, so a caller without a token learns nothing about which routes exist.
///
/// On `basicPaths` (`/v1/location`) the token may also come as the password of HTTP Basic
/// authentication, the only kind an OwnTracks app can send (the user name is not checked).
struct AuthMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let tokens: TokenStore
    let openPaths: Set<String>
    var openPrefixes: [String] = []
    var basicPaths: Set<String> = []

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if openPaths.contains(path) || openPrefixes.contains(where: { path.hasPrefix($0) }) { return try await next(request, context) }
        guard let header = request.headers[.authorization] else {
            throw APIError.unauthorized("this route needs a token: send Authorization: Bearer <token>")
        }
        guard let token = Self.bearerToken(in: header) ?? (basicPaths.contains(path) ? Self.basicPassword(in: header) : nil) else {
            throw APIError.unauthorized("expected Authorization: Bearer <token>")
        }
        guard let principal = tokens.principal(for: token) else {
            throw APIError.unauthorized("the token is not one this host issued, or it was rotated or revoked")
        }
        var context = context
        context.principal = principal
        return try await next(request, context)
    }

    /// The token in `Bearer <token>` (the scheme's name is case-insensitive, RFC 7235).
    static func bearerToken(in header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    /// The password in `Basic base64(user:password)` (RFC 7617).
    static func basicPassword(in header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic",
              let decoded = Data(base64Encoded: parts[1].trimmingCharacters(in: .whitespaces)),
              let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":") else { return nil }
        let password = String(text[text.index(after: colon)...])
        return password.isEmpty ? nil : password
    }
}
