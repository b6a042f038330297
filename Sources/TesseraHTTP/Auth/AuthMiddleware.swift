import Foundation
import Hummingbird

/// Lets a request through only with a bearer token the host knows (`Authorization: Bearer <token>`),
/// and puts the principal it stands for into the context. Every path needs one except `openPaths`
/// (`/healthz`, for probes that hold no secret). A path that matches no route needs one too, so a
/// caller without a token learns nothing about which routes exist.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let tokens: TokenStore
    let openPaths: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if openPaths.contains(request.uri.path) { return try await next(request, context) }
        guard let header = request.headers[.authorization] else {
            throw APIError.unauthorized("this route needs a token: send Authorization: Bearer <token>")
        }
        guard let token = Self.bearerToken(in: header) else {
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
}
