/// The deployment's `providers.http.redirects`: URL prefixes sent elsewhere after the grant check.
///
/// A plugin keeps its real service URLs (and its grant names the real hosts); a test or staging
/// deployment points them at an emulator on loopback. A prefix matches only whole hosts: the
/// character after it must end the authority (`/`, `?`, `#`) or the URL.
public struct OutboundRedirects: Sendable, Hashable {
    let rules: [(prefix: String, target: String)]

    /// Redirects from a prefix (`scheme://host[:port]`) to a replacement of the same form.
    public init(_ redirects: [String: String]) {
        rules = redirects.map { (prefix: Self.trimmed($0.key).lowercased(), target: Self.trimmed($0.value)) }
            .sorted { $0.prefix.count > $1.prefix.count }  // longest first
    }

    /// No redirects.
    public static let none = OutboundRedirects([:])

    /// `url` with its longest matching prefix replaced, or `url` itself.
    public func apply(to url: String) -> String {
        let lowered = url.lowercased()
        for rule in rules where lowered.hasPrefix(rule.prefix) {
            let rest = url.dropFirst(rule.prefix.count)
            if let next = rest.first, next != "/", next != "?", next != "#" { continue }  // a longer host name
            return rule.target + rest
        }
        return url
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.rules.map(\.prefix) == b.rules.map(\.prefix) && a.rules.map(\.target) == b.rules.map(\.target)
    }

    public func hash(into hasher: inout Hasher) {
        for rule in rules { hasher.combine(rule.prefix); hasher.combine(rule.target) }
    }

    static func trimmed(_ text: String) -> String {
        text.hasSuffix("/") ? String(text.dropLast()) : text
    }
}
