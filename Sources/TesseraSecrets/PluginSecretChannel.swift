import Foundation
import TesseraSDK

/// One plugin's view of the ``SecretStore``: only its own secrets, with names and sizes checked.
public struct PluginSecretChannel: PluginSecrets {
    /// The plugin whose secrets these are.
    public let pluginID: String
    let store: SecretStore
    let now: @Sendable () -> Date

    /// The longest value kept, in UTF-8 bytes: a token or a ticket, not a file.
    public static let maxValueBytes = 16_384

    /// A channel for `pluginID`; `now` stamps updates (the host's clock).
    public init(pluginID: String, store: SecretStore, now: @escaping @Sendable () -> Date) {
        self.pluginID = pluginID
        self.store = store
        self.now = now
    }

    public func secret(named name: String) async throws -> Secret? {
        try Self.check(name)
        return try store.value(plugin: pluginID, name: name).map(Secret.init)
    }

    public func store(_ secret: Secret, named name: String) async throws {
        try Self.check(name)
        guard secret.revealed.utf8.count <= Self.maxValueBytes else {
            throw PluginError(.invalidInput, "secret '\(name)' is \(secret.revealed.utf8.count) bytes; at most \(Self.maxValueBytes) are kept")
        }
        try store.set(plugin: pluginID, name: name, value: secret.revealed, at: now())
    }

    public func removeSecret(named name: String) async throws {
        try Self.check(name)
        try store.remove(plugin: pluginID, name: name)
    }

    public func secretNames() async throws -> [String] {
        try store.names(plugin: pluginID).map(\.name)
    }

    /// Names are 1–64 of `A–Z a–z 0–9 . _ -`, so they are safe in a listing and a file.
    static func check(_ name: String) throws {
        let allowed = name.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2E || c == 0x5F || c == 0x2D
        }
        guard !name.isEmpty, name.utf8.count <= 64, allowed else {
            throw PluginError(.invalidInput, "a secret's name is 1–64 letters, digits, '.', '_' or '-'; found '\(name.prefix(80))'")
        }
    }
}
