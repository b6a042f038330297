/// A value a plugin must keep but nobody may read in passing: a bank token, a login ticket.
///
/// Printing, interpolating or dumping a `Secret` shows `Secret(•••)`, so it cannot reach a log by
/// accident; ``revealed`` is the one way to the text, for the moment it is sent.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The secret text. Use it only where it must go (a request), never in a message.
    public let revealed: String

    /// Wraps `value`.
    public init(_ value: String) { revealed = value }

    /// `Secret(•••)`.
    public var description: String { "Secret(•••)" }
    /// `Secret(•••)`.
    public var debugDescription: String { "Secret(•••)" }
    /// No children, so `dump` shows nothing of the value either.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

/// The secrets capability: named secrets kept by the host apart from the plugin's records.
///
/// Secrets live in the host's own store, not in the plugin's database: the plugin's SQL cannot read
/// them, sync never sends them, backups of records do not carry them, and the host never logs them.
/// Each plugin sees only its own. Names are 1–64 characters of letters, digits, `.`, `_` and `-`.
///
/// ```swift
/// let secrets = try context.capability(.secrets)
/// try await secrets.store(Secret(token), named: "fio-token")
/// if let token = try await secrets.secret(named: "fio-token") { … token.revealed … }
/// ```
public protocol PluginSecrets: Sendable {
    /// The secret stored under `name`, or `nil`.
    func secret(named name: String) async throws -> Secret?
    /// Stores `secret` under `name`, replacing any secret of that name. Durable when it returns.
    func store(_ secret: Secret, named name: String) async throws
    /// Forgets the secret under `name`, if there is one.
    func removeSecret(named name: String) async throws
    /// The names of this plugin's secrets, sorted.
    func secretNames() async throws -> [String]
}

extension CapabilityKey where Value == any PluginSecrets {
    /// The plugin's own secrets, kept apart from its records.
    public static var secrets: CapabilityKey<any PluginSecrets> { .init("secrets") }
}
