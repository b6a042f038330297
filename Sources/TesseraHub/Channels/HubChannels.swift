import Foundation
import TesseraSDK

/// A person's delivery channels (docs/hub.md, "Delivery channels"): where the hub itself sends
/// the space notifications filed for them, so that an alert reaches a guardian whose devices are
/// all off. A channel is a **webhook** (an `https` URL, or `http` to the hub's own machine; each
/// POST signed with a secret shown once) or **e-mail** (on a hub with a mail sink) to the person's
/// account address, or to another address once the code mailed there is entered back. A channel
/// may be limited to one plugin's notifications.
///
/// Only the person may list, add or remove their channels (their device token); another's
/// channel is `channel_not_found`, as if it did not exist.
/// A part of the hub's store (``HubStore/channels``), on the same database: confirmation mail and
/// e-mail deliveries go through its ``mail`` outbox.
public final class HubChannelStore: HubStorePart {
    let database: any HubDatabase
    let now: @Sendable () -> Date
    let mail: HubMailOutbox
    /// Wakes the channel sender when deliveries to people's channels were queued (``HubChannelSender``).
    let channelSignal = HubChangeSignal()

    init(database: any HubDatabase, now: @escaping @Sendable () -> Date, mail: HubMailOutbox) {
        self.database = database
        self.now = now
        self.mail = mail
    }
}

extension HubChannelStore {
    /// The most channels one person may have.
    public static let maxChannelsPerPerson = 10
    /// The longest webhook URL.
    public static let maxWebhookURLBytes = 2048
    /// How long the code mailed to confirm an address lasts.
    public static let channelCodeMillis: Int64 = 60 * 60_000
    /// Wrong tries before a confirmation code is void.
    public static let maxChannelCodeAttempts = 5

    /// Adds a channel for `person`; its webhook secret is in the answer, and only there.
    ///
    /// - Parameter mailSink: whether the hub sends mail (`providers.mail`): without one an e-mail
    ///   channel could never deliver, so it is refused.
    /// An e-mail channel to an address other than the account's is added unconfirmed: a 7-digit
    /// code goes there (in the same transaction), and nothing else does until the person enters it
    /// (``confirmChannel(_:code:of:)``).
    ///
    /// - Throws: `invalid_input` (400: an unknown kind; a URL on an e-mail channel), `invalid_url`
    ///   (400), `invalid_plugin` (400), `invalid_email` (400, `$.address`), `no_address` (409: no
    ///   address given and the account has none), `no_mail_sink` (409), `channel_exists` (409),
    ///   `too_many_channels` (409).
    public func addChannel(_ request: NewChannel, for person: String, mailSink: Bool) async throws(HubError) -> AddedChannel {
        if let plugin = request.plugin { try HubStore.checkPlugin(plugin) }
        let kind = try Self.channelKind(request.kind)
        let secret = kind == .webhook ? HubSecrets.webhookSecret() : nil
        let code = HubSecrets.resetCode()
        let id = UUID().uuidString.lowercased()
        let now = nowMillis
        let channel = try await transaction { connection -> HubChannel in
            let target: String
            var confirmed = true
            switch kind {
            case .webhook:
                target = try Self.checkWebhookURL(request.url)
            case .email:
                let email = try await Self.emailTarget(of: person, given: request.address, url: request.url, mailSink: mailSink, on: connection)
                target = email.address
                confirmed = email.confirmed
            }
            let existing = try await connection.fetchAll("SELECT kind, target, plugin FROM hub_channels WHERE person = ?", [.text(person)])
            guard existing.count < Self.maxChannelsPerPerson else {
                throw HubError(.conflict, "too_many_channels", "a person has at most \(Self.maxChannelsPerPerson) channels: remove one first")
            }
            guard !existing.contains(where: { $0[0].text == kind.rawValue && $0[1].text == target && $0[2].text == request.plugin }) else {
                throw HubError(.conflict, "channel_exists", "you have this channel already (list them: GET /v1/hub/channels)")
            }
            try await connection.execute("""
                INSERT INTO hub_channels(id, person, kind, target, secret, plugin, created_ms, confirmed, code_sha256, code_expires_ms)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.text(id), .text(person), .text(kind.rawValue), .text(target), secret.map { SQLValue.text($0) } ?? .null,
                      request.plugin.map { SQLValue.text($0) } ?? .null, .integer(now), .integer(confirmed ? 1 : 0),
                      confirmed ? .null : .blob(HubSecrets.sha256(code)), confirmed ? .null : .integer(now + Self.channelCodeMillis)])
            if !confirmed { try await HubMailOutbox.queueMail(Self.confirmationMail(to: target, code: code), now: now, on: connection) }
            return HubChannel(id: id, kind: kind, target: target, plugin: request.plugin, createdAtMillis: now, confirmed: confirmed)
        }
        if !channel.confirmed { mail.mailQueued() }
        return AddedChannel(channel: channel, secret: secret)
    }

    /// Confirms an e-mail channel with the code mailed to its address; from then on it receives.
    /// Confirming a confirmed channel again changes nothing.
    ///
    /// - Throws: `channel_not_found` (404), `invalid_code` (400, `$.code`: wrong; each wrong try
    ///   counts), `code_expired` (410: past its hour or its last try: remove the channel and add it
    ///   again for a new code).
    public func confirmChannel(_ id: String, code: String, of person: String) async throws(HubError) -> HubChannel {
        let given = code.filter { !$0.isWhitespace }
        let now = nowMillis
        let outcome = try await transaction { connection -> Result<HubChannel, HubError> in
            guard let row = try await connection.fetchOne("""
                SELECT kind, target, plugin, created_ms, confirmed, code_sha256, code_expires_ms, code_attempts FROM hub_channels WHERE id = ? AND person = ?
                """, [.text(id), .text(person)]) else {
                throw HubError(.notFound, "channel_not_found", "you have no channel '\(id)'")
            }
            let channel = HubChannel(id: id, kind: HubChannel.Kind(rawValue: row[0].text ?? "") ?? .email, target: row[1].text ?? "",
                                     plugin: row[2].text, createdAtMillis: row[3].integer ?? 0, confirmed: true)
            if row[4].integer == 1 { return .success(channel) }
            guard now <= row[6].integer ?? 0, (row[7].integer ?? 0) < Int64(Self.maxChannelCodeAttempts) else {
                throw HubError(.gone, "code_expired", "this channel's code expired or was tried \(Self.maxChannelCodeAttempts) times: remove the channel and add it again")
            }
            guard given.count == 7, HubSecrets.sha256(given) == row[5].blob ?? [] else {
                // The wrong try is kept (the transaction commits), so the code is void after the last one.
                try await connection.execute("UPDATE hub_channels SET code_attempts = code_attempts + 1 WHERE id = ?", [.text(id)])
                return .failure(HubError(.invalidInput, "invalid_code", "the code is not the one mailed to \(channel.target)", field: "$.code"))
            }
            try await connection.execute("UPDATE hub_channels SET confirmed = 1, code_sha256 = NULL, code_expires_ms = NULL WHERE id = ?", [.text(id)])
            return .success(channel)
        }
        return try outcome.get()
    }

    /// `person`'s channels, oldest first (never their secrets).
    public func channels(of person: String) async throws(HubError) -> [HubChannel] {
        try await transaction { connection in
            try await connection.fetchAll("SELECT id, kind, target, plugin, created_ms, confirmed FROM hub_channels WHERE person = ? ORDER BY created_ms, id",
                                          [.text(person)]).map {
                HubChannel(id: $0[0].text ?? "", kind: HubChannel.Kind(rawValue: $0[1].text ?? "") ?? .webhook, target: $0[2].text ?? "",
                           plugin: $0[3].text, createdAtMillis: $0[4].integer ?? 0, confirmed: $0[5].integer == 1)
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

    /// Where an e-mail channel sends, and whether it is confirmed: the account's address (no `address`
    /// given, or the same one) is; another address is not until its code comes back.
    static func emailTarget(of person: String, given: String?, url: String?, mailSink: Bool,
                            on connection: any HubSQL) async throws -> (address: String, confirmed: Bool) {
        guard url == nil else {
            throw HubError(.invalidInput, "invalid_input", "an e-mail channel has no 'url' (it has an 'address', or goes to your account's)", field: "$.url")
        }
        guard mailSink else {
            throw HubError(.conflict, "no_mail_sink", "this hub sends no mail (its operator has not set providers.mail): use a webhook channel")
        }
        let account = try await connection.fetchOne("SELECT email FROM hub_people WHERE id = ?", [.text(person)])?[0].text
        guard let given else {
            guard let account else {
                throw HubError(.conflict, "no_address", "your account has no e-mail address: give the channel an 'address' (a code is mailed there to confirm it)")
            }
            return (account, true)
        }
        let address: String
        do { address = try HubStore.normalizedEmail(given) } catch {
            throw HubError(.invalidInput, "invalid_email", error.message, field: "$.address")
        }
        return (address, address == account)
    }

    /// The message that carries an address's confirmation code (in the body only: the outbox keeps a
    /// sent message's subject).
    static func confirmationMail(to address: String, code: String) -> OutgoingMail {
        OutgoingMail(to: address, subject: "Confirm this address for Tessera notifications", body: """
            Someone added this address as a channel for their notifications on a Tessera hub.
            If it was you, enter this code to confirm it (it lasts \(channelCodeMillis / 60_000) minutes):

                \(code)

            If it was not you, ignore this message: nothing will be sent here.
            """)
    }
}

/// What a person asks for when adding a channel.
public struct NewChannel: Sendable, Hashable {
    /// `webhook` or `email`.
    public var kind: String
    /// A webhook's URL.
    public var url: String?
    /// An e-mail channel's address; the account's when `nil` (another one is confirmed by a code).
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
    /// Whether it receives: an e-mail address other than the account's not until its code came back.
    public let confirmed: Bool
}

/// A channel just added, with its webhook's signing secret (shown this once).
public struct AddedChannel: Sendable, Hashable {
    public let channel: HubChannel
    public let secret: String?
}
