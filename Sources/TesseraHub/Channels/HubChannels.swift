import Foundation
import TesseraSDK

/// A person's delivery channels (docs/hub.md, "Delivery channels"): where the hub itself sends
/// the space notifications filed for them, so that an alert reaches a guardian whose devices are
/// all off. A channel is a **webhook** (an `https` URL, or `http` to the hub's own machine; each
/// POST signed with a secret shown once) or **e-mail** to the person's account address (on a hub
/// with a mail sink). A channel may be limited to one plugin's notifications.
///
/// Only the person may list, add or remove their channels (their device token); another's
/// channel is `channel_not_found`, as if it did not exist.
extension HubStore {
    /// The most channels one person may have.
    public static let maxChannelsPerPerson = 10
    /// The longest webhook URL.
    public static let maxWebhookURLBytes = 2048

    /// Adds a channel for `person`; its webhook secret is in the answer, and only there.
    ///
    /// - Parameter mailSink: whether the hub sends mail (`providers.mail`): without one an e-mail
    ///   channel could never deliver, so it is refused.
    /// - Throws: `invalid_input` (400: an unknown kind; a URL on an e-mail channel), `invalid_url`
    ///   (400), `invalid_plugin` (400), `unconfirmed_address` (400: an address that is not the
    ///   account's), `no_address` (409: the account has no e-mail address), `no_mail_sink` (409),
    ///   `channel_exists` (409), `too_many_channels` (409).
    public func addChannel(_ request: NewChannel, for person: String, mailSink: Bool) async throws(HubError) -> AddedChannel {
        if let plugin = request.plugin { try Self.checkPlugin(plugin) }
        let kind = try Self.channelKind(request.kind)
        let secret = kind == .webhook ? HubSecrets.webhookSecret() : nil
        let id = UUID().uuidString.lowercased()
        let now = nowMillis
        let channel = try await transaction { connection -> HubChannel in
            let target: String
            switch kind {
            case .webhook:
                target = try Self.checkWebhookURL(request.url)
            case .email:
                target = try await Self.accountAddress(of: person, given: request.address, url: request.url, mailSink: mailSink, on: connection)
            }
            let existing = try await connection.fetchAll("SELECT kind, target, plugin FROM hub_channels WHERE person = ?", [.text(person)])
            guard existing.count < Self.maxChannelsPerPerson else {
                throw HubError(.conflict, "too_many_channels", "a person has at most \(Self.maxChannelsPerPerson) channels: remove one first")
            }
            guard !existing.contains(where: { $0[0].text == kind.rawValue && $0[1].text == target && $0[2].text == request.plugin }) else {
                throw HubError(.conflict, "channel_exists", "you have this channel already (list them: GET /v1/hub/channels)")
            }
            try await connection.execute("""
                INSERT INTO hub_channels(id, person, kind, target, secret, plugin, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?)
                """, [.text(id), .text(person), .text(kind.rawValue), .text(target), secret.map { SQLValue.text($0) } ?? .null,
                      request.plugin.map { SQLValue.text($0) } ?? .null, .integer(now)])
            return HubChannel(id: id, kind: kind, target: target, plugin: request.plugin, createdAtMillis: now)
        }
        return AddedChannel(channel: channel, secret: secret)
    }

    /// `person`'s channels, oldest first (never their secrets).
    public func channels(of person: String) async throws(HubError) -> [HubChannel] {
        try await transaction { connection in
            try await connection.fetchAll("SELECT id, kind, target, plugin, created_ms FROM hub_channels WHERE person = ? ORDER BY created_ms, id",
                                          [.text(person)]).map {
                HubChannel(id: $0[0].text ?? "", kind: HubChannel.Kind(rawValue: $0[1].text ?? "") ?? .webhook, target: $0[2].text ?? "",
                           plugin: $0[3].text, createdAtMillis: $0[4].integer ?? 0)
            }
        }
    }

    /// Removes one of `person`'s channels, and every delivery to it that has not gone yet.
    ///
    /// - Throws: `channel_not_found` (404): no such channel of theirs.
    public func removeChannel(_ id: String, of person: String) async throws(HubError) {
        try await transaction { connection in
            let removed = try await connection.execute("DELETE FROM hub_channels WHERE id = ? AND person = ?", [.text(id), .text(person)])
            guard removed == 1 else { throw HubError(.notFound, "channel_not_found", "you have no channel '\(id)'") }
            try await connection.execute("DELETE FROM hub_channel_deliveries WHERE channel = ? AND state = 'pending'", [.text(id)])
        }
    }

    // MARK: Rules

    static func channelKind(_ kind: String) throws(HubError) -> HubChannel.Kind {
        guard let parsed = HubChannel.Kind(rawValue: kind) else {
            throw HubError(.invalidInput, "invalid_input", "a channel's kind is 'webhook' or 'email', not '\(kind)'", field: "$.kind")
        }
        return parsed
    }

    /// A webhook URL the hub will POST to: `https://` to any host, or `http://` only to the hub's
    /// own machine (127.0.0.0/8, `[::1]`, `localhost`: a receiver beside the hub needs no TLS, and
    /// nothing leaves the machine in clear); no user or password in it, no fragment.
    static func checkWebhookURL(_ url: String?) throws(HubError) -> String {
        func refuse(_ why: String) -> HubError { HubError(.invalidInput, "invalid_url", "a webhook's URL \(why)", field: "$.url") }
        guard let url, !url.isEmpty else { throw HubError(.invalidInput, "invalid_input", "a webhook channel needs its 'url'", field: "$.url") }
        guard url.utf8.count <= maxWebhookURLBytes else { throw refuse("is at most \(maxWebhookURLBytes) bytes") }
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(), let host = parts.host?.lowercased(), !host.isEmpty,
              !url.contains(where: { $0.isWhitespace }) else {
            throw refuse("must be an absolute https:// URL")
        }
        guard parts.user == nil, parts.password == nil else { throw refuse("must not carry a user or password (the hub signs each POST instead)") }
        guard parts.fragment == nil else { throw refuse("must not have a #fragment") }
        switch scheme {
        case "https": return url
        case "http" where isLoopback(host): return url
        case "http": throw refuse("must be https://, unless it names this machine (127.0.0.1, [::1], localhost)")
        default: throw refuse("must be https:// (found \(scheme)://)")
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// The address an e-mail channel sends to: the person's account address (another address would
    /// need a confirmation by a mailed code, which this hub does not do yet).
    static func accountAddress(of person: String, given: String?, url: String?, mailSink: Bool, on connection: any HubSQL) async throws -> String {
        guard url == nil else {
            throw HubError(.invalidInput, "invalid_input", "an e-mail channel has no 'url' (it goes to your account's address)", field: "$.url")
        }
        guard mailSink else {
            throw HubError(.conflict, "no_mail_sink", "this hub sends no mail (its operator has not set providers.mail): use a webhook channel")
        }
        guard let address = try await connection.fetchOne("SELECT email FROM hub_people WHERE id = ?", [.text(person)])?[0].text else {
            throw HubError(.conflict, "no_address", "your account has no e-mail address (only registered accounts have one): use a webhook channel")
        }
        if let given, given.trimmingCharacters(in: .whitespaces).lowercased() != address {
            throw HubError(.invalidInput, "unconfirmed_address",
                           "an e-mail channel goes to your account's address; another address is not accepted (it was never confirmed)",
                           field: "$.address")
        }
        return address
    }
}

/// What a person asks for when adding a channel.
public struct NewChannel: Sendable, Hashable {
    /// `webhook` or `email`.
    public var kind: String
    /// A webhook's URL.
    public var url: String?
    /// An e-mail channel's address, if given: it must be the account's.
    public var address: String?
    /// Only this plugin's notifications; all of them when `nil`.
    public var plugin: String?

    public init(kind: String, url: String? = nil, address: String? = nil, plugin: String? = nil) {
        self.kind = kind
        self.url = url
        self.address = address
        self.plugin = plugin
    }
}

/// One of a person's channels, as they list it.
public struct HubChannel: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case webhook
        case email
    }

    public let id: String
    public let kind: Kind
    /// The webhook's URL, or the e-mail address.
    public let target: String
    /// Only this plugin's notifications; all of them when `nil`.
    public let plugin: String?
    public let createdAtMillis: Int64
}

/// A channel just added, with its webhook's signing secret (shown this once).
public struct AddedChannel: Sendable, Hashable {
    public let channel: HubChannel
    public let secret: String?
}
