/// The hosts one plugin may reach, from its grant's `permissions.http.hosts`.
///
/// An entry is `host` (any port) or `host:port`; `*` allows every host. Names compare without
/// regard to case. There are no suffix wildcards: `*.example.cz` would let a plugin reach any
/// machine under a domain, which an operator reviewing the grant should see spelled out.
public struct HostAllowList: Sendable, Hashable {
    /// The entries as granted, lower-cased.
    public let entries: [String]

    /// An allow-list of `hosts` (`host`, `host:port`, or `*`).
    public init(_ hosts: [String]) { entries = hosts.map { $0.lowercased() } }

    /// Whether a request to `host` on `port` (the URL's effective port) is allowed.
    public func allows(host: String, port: Int) -> Bool {
        let host = host.lowercased()
        return entries.contains { entry in
            entry == "*" || entry == host || entry == "\(host):\(port)"
        }
    }
}
