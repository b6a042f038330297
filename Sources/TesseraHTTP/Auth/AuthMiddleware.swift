import Foundation
import Hummingbird
import TesseraManifest
import TesseraSDK

/// Lets a request through only with a bearer token the host knows (`Authorization: Bearer <token>`),
/// and puts the principal it stands for into the context. Every path needs one except `openPaths`
/// (`/healthz`, for probes that hold no secret) and those under `openPrefixes` (the console's and
/// modules' static files, which a browser fetches without one). A path that matches no route needs
/// one too, so a caller without a token learns nothing about which routes exist.
///
/// Under `linkPrefixes` (`/v1/links/`) no token is asked for: the request stands for the `link`
/// principal (one for every link holder), and the route lets it call only operations whose
/// manifest opens them to that role, with the token in the path (``LinkRoutes``).
///
/// On `basicPaths` (`/v1/location`) the token may also come as the password of HTTP Basic
/// authentication, the only kind an OwnTracks app can send (the user name is not checked), and a
/// refusal there carries a `Basic` challenge as well as the `Bearer` one.
///
/// A request without an `Authorization` header may instead carry the console's session cookie
/// (``SessionCookie``, from `POST /v1/session`): it stands for the signed-in account. A request
/// signed in so that changes something must come from this host's own pages (``SessionCookie/isSameOrigin(_:)``),
/// or it is refused (403 `cross_site`). On the open paths a cookie or token is read when present
/// (`GET /v1/session/setup` needs neither), and never asked for.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let tokens: TokenStore
    let openPaths: Set<String>
    var openPrefixes: [String] = []
    var basicPaths: Set<String> = []
    var linkPrefixes: [String] = []
    /// The console's sign-in sessions and the host's clock (their ends are on it); `nil`: tokens only.
    var signIn: SignIn? = nil
    var now: @Sendable () -> Date = { Date() }

    /// The principal of every request under `linkPrefixes`: its rate-limit bucket is shared by all of them.
    static let linkHolder = Principal(id: "link", role: .link)

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await next(request, authenticated(request, context))
    }

    /// `context` with the request's principal, or the refusal of a request that needs one and
    /// brings none the host knows. (``handle(_:context:next:)``, and the edge's shortcut, which runs
    /// the layers as one function: ``EdgeLayers``.)
    ///
    /// With `closedPath`, the caller knows the path is none of the open, link or Basic ones (the
    /// edge's shortcut: a plugin operation's path, under `/v1/plugins/`, which ``opens(_:)`` says
    /// of none), and they are not looked through.
    func authenticated(_ request: Request, _ context: Context, closedPath: Bool = false) throws -> Context {
        var context = context
        try authenticate(request, &context, closedPath: closedPath)
        return context
    }

    /// ``authenticated(_:_:closedPath:)`` in place: the edge's shortcut gives the principal to the
    /// context it holds rather than to a copy (a copy of the context is about 0.1 µs of a call).
    func authenticate(_ request: Request, _ context: inout Context, closedPath: Bool = false) throws {
        let path = closedPath ? "" : request.uri.path
        if !closedPath, openPaths.contains(path) || openPrefixes.contains(where: { path.hasPrefix($0) }) {
            if let header = request.headers.value(of: .authorization) {
                context.principal = Self.bearerToken(in: header).flatMap(tokens.principal(for:))
            } else if let principal = sessionPrincipal(request) {
                context.principal = principal
                context.signedInByCookie = true
            }
            return
        }
        if !closedPath, linkPrefixes.contains(where: { path.hasPrefix($0) }) {
            context.principal = Self.linkHolder
            return
        }
        let basic = !closedPath && basicPaths.contains(path)
        let refuse = basic ? APIError.unauthorizedWithBasic : APIError.unauthorized
        guard let header = request.headers.value(of: .authorization) else {
            if let principal = sessionPrincipal(request) {
                guard request.method == .get || request.method == .head || SessionCookie.isSameOrigin(request) else {
                    throw APIError(.forbidden, code: "cross_site", "this request came from another site's page")
                }
                context.principal = principal
                context.signedInByCookie = true
                return
            }
            throw refuse(basic ? "this route needs a token: send Authorization: Bearer <token>, or the token as the Basic password"
                               : "this route needs a token: send Authorization: Bearer <token>")
        }
        guard let token = Self.bearerToken(in: header) ?? (basic ? Self.basicPassword(in: header) : nil) else {
            throw refuse(basic ? "expected Authorization: Bearer <token>, or Basic with the token as the password"
                               : "expected Authorization: Bearer <token>")
        }
        guard let principal = tokens.principal(for: token) else {
            throw refuse("the token is not one this host issued, or it was rotated or revoked")
        }
        guard principal.role != .metrics else {
            throw APIError(.forbidden, code: "forbidden", "a metrics token reads GET /metrics and nothing else")
        }
        context.principal = principal
    }

    /// Whether `path` is treated apart from the bearer token's rule: open (a token read if sent,
    /// never asked for), a capability link's, or one that takes Basic authentication too.
    func opens(_ path: String) -> Bool {
        openPaths.contains(path) || openPrefixes.contains(where: { path.hasPrefix($0) })
            || linkPrefixes.contains(where: { path.hasPrefix($0) }) || basicPaths.contains(path)
    }

    /// The account of the session whose cookie the request carries, if it has not ended.
    private func sessionPrincipal(_ request: Request) -> Principal? {
        guard let signIn, let secret = SessionCookie.secret(in: request) else { return nil }
        return signIn.principal(forCookie: secret, now: now())
    }

    /// The token in `Bearer <token>` (the scheme's name is case-insensitive, RFC 7235).
    static func bearerToken(in header: String) -> String? {
        credentials(in: header, scheme: "bearer")
    }

    /// What follows `scheme` (compared case-insensitively) and at least one space, without the
    /// spaces and tabs around it; `nil` for another scheme or nothing after it. Read on the UTF-8
    /// bytes, not with Foundation's string splitting: it runs on every request, and the split and
    /// trim it replaced cost 5% of a no-op call's time. And on the string's contiguous bytes by
    /// offset, not through `String.UTF8View`'s indices, whose every step is checked.
    static func credentials(in header: String, scheme: StaticString) -> String? {
        var header = header
        return header.withUTF8 { bytes -> String? in
            func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
            var i = 0
            while i < bytes.count, isBlank(bytes[i]) { i += 1 }
            let name = UnsafeBufferPointer(start: scheme.utf8Start, count: scheme.utf8CodeUnitCount)
            for expected in name {
                guard i < bytes.count, bytes[i] | 0x20 == expected else { return nil }  // ASCII letters: | 0x20 lowercases
                i += 1
            }
            guard i < bytes.count, bytes[i] == 0x20 else { return nil }
            while i < bytes.count, isBlank(bytes[i]) { i += 1 }
            var end = bytes.count
            while end > i, isBlank(bytes[end - 1]) { end -= 1 }
            // Cut at ASCII blanks only, so the slice is whole UTF-8 wherever the header was.
            return end > i ? String(decoding: UnsafeBufferPointer(rebasing: bytes[i..<end]), as: UTF8.self) : nil
        }
    }

    /// The password in `Basic base64(user:password)` (RFC 7617).
    static func basicPassword(in header: String) -> String? {
        guard let encoded = credentials(in: header, scheme: "basic"), let decoded = Data(base64Encoded: encoded),
              let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":") else { return nil }
        let password = String(text[text.index(after: colon)...])
        return password.isEmpty ? nil : password
    }
}
