import Foundation
import TesseraSDK

/// One plugin's HTTP client: checks every request against the plugin's granted hosts, applies the
/// deployment's redirects, and sends it with the host's session.
///
/// Redirects answered by a server (3xx) are **not** followed: the plugin gets the 3xx response and
/// decides, so a granted host cannot send it to one that is not granted (and a single-sign-on flow
/// sees its `Location`). There are no cookies and no cache: each plugin manages its own state.
public struct OutboundHTTPClient: PluginHTTPClient {
    /// The plugin sending.
    public let pluginID: String
    /// Where it may send.
    public let allowed: HostAllowList
    let transport: OutboundTransport
    let log: @Sendable (String) -> Void

    /// A client for `pluginID`; `log` receives one line per request (method, host, status, time),
    /// never a path, query, header or body, which may carry tokens.
    public init(pluginID: String, allowed: HostAllowList, transport: OutboundTransport,
                log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.pluginID = pluginID
        self.allowed = allowed
        self.transport = transport
        self.log = log
    }

    public var grantedHosts: [String] { allowed.entries }

    public func send(_ request: OutboundRequest) async throws -> OutboundResponse {
        let target = try check(request)
        let response = try await transport.send(request, to: target)
        log("\(request) -> \(response.status)")
        return response
    }

    /// The URL to send to, after the grant check and redirects; throws for a malformed URL or a host
    /// not granted.
    func check(_ request: OutboundRequest) throws -> URL {
        guard let components = URLComponents(string: request.url),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host, !host.isEmpty else {
            throw PluginError(.invalidInput, "'\(request)' is not an absolute http or https URL")
        }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        guard allowed.allows(host: host, port: port) else {
            let granted = allowed.entries.isEmpty ? "none" : allowed.entries.joined(separator: ", ")
            throw PluginError(.notGranted, "\(pluginID) may not reach \(host):\(port) (granted hosts: \(granted))")
        }
        guard Self.isToken(request.method) else {
            throw PluginError(.invalidInput, "'\(request.method.prefix(20))' is not an HTTP method")
        }
        let redirected = transport.redirects.apply(to: request.url)
        guard let url = URL(string: redirected) else {
            throw PluginError(.invalidInput, "'\(request)' is not an absolute http or https URL")
        }
        return url
    }

    static func isToken(_ method: String) -> Bool {
        !method.isEmpty && method.utf8.count <= 20 && method.utf8.allSatisfy { ($0 >= 0x41 && $0 <= 0x5A) || $0 == 0x2D }
    }
}
