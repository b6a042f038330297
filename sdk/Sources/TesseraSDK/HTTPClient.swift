/// An HTTP request a plugin asks the host to send.
///
/// The host sends it only if the URL's host is one the plugin was granted (the manifest's
/// `permissions.http.hosts`, narrowed by the operator's grant). Its ``description`` names the
/// method and host only: paths and queries often carry tokens (Fio puts its token in the path), so
/// they never reach a log.
///
/// ```swift
/// let http = try context.capability(.http)
/// let response = try await http.send(OutboundRequest(url: "https://stag-ws.example.cz/ws/services/rest2/users/getOsobniCislo"))
/// guard response.status == 200 else { … }
/// let json = try response.json()
/// ```
public struct OutboundRequest: Sendable, Hashable, CustomStringConvertible {
    /// The method, e.g. `"GET"` or `"POST"`.
    public var method: String
    /// The absolute `http` or `https` URL.
    public var url: String
    /// Header fields; names are compared without regard to case.
    public var headers: [String: String]
    /// The body, empty for none.
    public var body: [UInt8]
    /// How long to wait for the whole response before giving up.
    public var timeout: Duration

    /// Creates a request.
    public init(method: String = "GET", url: String, headers: [String: String] = [:], body: [UInt8] = [],
                timeout: Duration = .seconds(30)) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// `METHOD scheme://host/…`: never the path, query or headers, which may hold secrets.
    public var description: String {
        guard let schemeEnd = url.range(of: "://") else { return "\(method) <malformed URL>" }
        let rest = url[schemeEnd.upperBound...]
        let host = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return "\(method) \(url[..<schemeEnd.upperBound])\(host)/…"
    }
}

/// The answer to an ``OutboundRequest``: any status, including 4xx and 5xx.
public struct OutboundResponse: Sendable, Hashable {
    /// The HTTP status code.
    public var status: Int
    /// Header fields, names in lower case.
    public var headers: [String: String]
    /// The body as received.
    public var body: [UInt8]

    /// Creates a response. Header names are lower-cased.
    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
        self.body = body
    }

    /// A header's value, by name in any case.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The body as UTF-8 text (invalid bytes replaced).
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as JSON.
    ///
    /// - Throws: ``PluginError`` (`unavailable`) naming what is wrong, if the body is not JSON.
    public func json() throws -> JSONValue {
        do { return try JSONValue(parsing: body) } catch {
            throw PluginError(.unavailable, "the service answered \(status) with a body that is not JSON: \(error)")
        }
    }
}

/// The HTTP client capability: outbound requests to the hosts the plugin was granted.
///
/// Errors are ``PluginError``s: `not_granted` for a host outside the grant (nothing is sent),
/// `invalid_input` for a malformed URL, `unavailable` when the host cannot be reached or the
/// response does not arrive within the request's timeout. An HTTP error status is not an error:
/// it comes back as a response.
public protocol PluginHTTPClient: Sendable {
    /// Sends `request` and returns the response, whatever its status.
    func send(_ request: OutboundRequest) async throws -> OutboundResponse

    /// The hosts this plugin may reach (`host` or `host:port`); `"*"` means any host.
    var grantedHosts: [String] { get }
}

extension CapabilityKey where Value == any PluginHTTPClient {
    /// Outbound HTTP to the hosts in the plugin's grant.
    public static var http: CapabilityKey<any PluginHTTPClient> { .init("http") }
}
