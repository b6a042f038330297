import HTTPTypes
import Hummingbird

/// The session cookie: `tessera_session=<secret>`, HttpOnly (no script reads it), SameSite=Strict
/// (no other site's page sends it), for the whole host, for a session's lifetime; Secure when the
/// request came over TLS (through a proxy that says so with `X-Forwarded-Proto: https`).
enum SessionCookie {
    static let name = "tessera_session"

    /// The `Set-Cookie` value that starts a session.
    static func starting(_ secret: String, for request: Request) -> String {
        "\(name)=\(secret); Path=/; Max-Age=\(Int(SessionStore.lifetime)); HttpOnly; SameSite=Strict\(secure(request))"
    }

    /// The `Set-Cookie` value that ends one (the browser forgets it at once).
    static func ending(for request: Request) -> String {
        "\(name)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict\(secure(request))"
    }

    private static func secure(_ request: Request) -> String {
        request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https" ? "; Secure" : ""
    }

    /// The session's secret in the request's `Cookie` header, if it carries one.
    static func secret(in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                    let value = parts[1].trimmingCharacters(in: .whitespaces)
                    if !value.isEmpty { return value }
                }
            }
        }
        return nil
    }

    /// Whether a request that changes something, signed in by cookie, comes from one of this
    /// host's own pages: a browser names the page's origin (`Origin`) and whether it is this site
    /// (`Sec-Fetch-Site`) on every such request, and a form or script of another site would name
    /// its own. SameSite=Strict already keeps the cookie off those requests; this is the second lock.
    static func isSameOrigin(_ request: Request) -> Bool {
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site != "same-origin", site != "none" { return false }
        guard let origin = request.headers[.origin] else { return true }
        guard let host = request.head.authority else { return false }
        return origin == "http://\(host)" || origin == "https://\(host)"
    }
}
