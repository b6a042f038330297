import Foundation
import TesseraSDK

/// The deliveries to people's channels (docs/hub.md, "Delivery channels"): one row per
/// (notification key, channel), queued in the same transaction that files a space notification
/// for its members, so a relay repeated after a lost answer queues nothing twice, and a crash
/// never loses one. ``HubChannelSender`` sends them on the hub's clock.
extension HubChannelStore {
    /// A delivery claimed for sending: the channel as it is now, and the document to send.
    struct ClaimedDelivery: Sendable {
        let notification: String
        let channel: String
        let kind: HubChannel.Kind
        let target: String
        let secret: String?
        let document: String
        /// Failed attempts so far.
        let attempts: Int
    }

    /// A delivery as the operator and tests see it (never its document or the channel's secret).
    public struct ChannelDelivery: Sendable, Hashable {
        public let notification: String
        public let channel: String
        public let person: String
        /// `pending`, `sent` or `dropped`.
        public let state: String
        public let attempts: Int
        public let nextAttemptMillis: Int64
        public let lastError: String?
    }

    /// How long a claimed delivery is left to the replica that claimed it (a send waits 10 s at
    /// most; a replica that died mid-send leaves it to another after this).
    static let channelLeaseMillis: Int64 = 2 * 60_000

    /// Queues one delivery per channel of each of `people` that takes `notification`'s plugin,
    /// inside the relay's transaction. Each channel's document carries its own idempotency key.
    @discardableResult
    static func queueChannelDeliveries(_ notification: RelayedNotification, space: String, sender: String, people: [String],
                                       now: Int64, on connection: any HubSQL) async throws -> Int {
        guard !people.isEmpty else { return 0 }
        let senderName = try await connection.fetchOne("SELECT name FROM hub_people WHERE id = ?", [.text(sender)])?[0].text ?? ""
        var queued = 0
        for person in people {
            let channels = try await connection.fetchAll("""
                SELECT id FROM hub_channels WHERE person = ? AND confirmed = 1 AND (plugin IS NULL OR plugin = ?) ORDER BY id
                """, [.text(person), .text(notification.plugin)]).compactMap { $0[0].text }
            for channel in channels {
                let document = channelDocument(notification, space: space, sender: (sender, senderName), channel: channel)
                queued += try await connection.execute("""
                    INSERT INTO hub_channel_deliveries(notification, channel, person, document, state, next_attempt_ms, created_ms)
                    VALUES (?, ?, ?, ?, 'pending', ?, ?) ON CONFLICT (notification, channel) DO NOTHING
                    """, [.text(notification.key), .text(channel), .text(person), .text(document.serialized()), .integer(now), .integer(now)])
            }
        }
        // Outcomes are kept as long as relay keys are remembered, then forgotten.
        try await connection.execute("DELETE FROM hub_channel_deliveries WHERE state <> 'pending' AND settled_ms < ?",
                                     [.integer(now - HubStore.relayKeyMillis)])
        return queued
    }

    /// What a channel receives: the webhook's JSON body, and what an e-mail is written from.
    static func channelDocument(_ n: RelayedNotification, space: String, sender: (id: String, name: String), channel: String) -> JSONValue {
        var document: [String: JSONValue] = [
            "id": .string(channelIdempotencyKey(notification: n.key, channel: channel)),
            "plugin": .string(n.plugin), "space": .string(space), "notificationKey": .string(n.notificationKey),
            "title": .string(n.title), "body": .string(n.body), "payload": (try? JSONValue(parsing: n.payload)) ?? .null,
            "dueAt": .string(HubStore.iso(n.dueAtMillis)), "dueAtMillis": .integer(n.dueAtMillis), "late": .bool(n.late),
            "sender": ["id": .string(sender.id), "name": .string(sender.name)], "priority": .string(n.priority),
        ]
        if let message = n.message.flatMap({ try? JSONValue(parsing: $0) }) { document["message"] = message }
        return .object(document)
    }

    /// The key a receiver drops repeats by: the same on every attempt at one notification for one
    /// channel.
    static func channelIdempotencyKey(notification: String, channel: String) -> String { notification + "." + channel }

    /// Claims up to `limit` deliveries due now whose channel still exists, each leased so that
    /// another replica leaves it alone while this one sends.
    func claimDueDeliveries(limit: Int) async throws(HubError) -> [ClaimedDelivery] {
        let now = nowMillis
        return try await transaction { connection in
            let due = try await connection.fetchAll("""
                SELECT d.notification, d.channel, c.kind, c.target, c.secret, d.document, d.attempts, d.next_attempt_ms
                FROM hub_channel_deliveries d JOIN hub_channels c ON c.id = d.channel
                WHERE d.state = 'pending' AND d.next_attempt_ms <= ? ORDER BY d.next_attempt_ms, d.notification, d.channel LIMIT ?
                """, [.integer(now), .integer(Int64(limit))])
            var claimed: [ClaimedDelivery] = []
            for row in due {
                let taken = try await connection.execute("""
                    UPDATE hub_channel_deliveries SET next_attempt_ms = ? WHERE notification = ? AND channel = ? AND state = 'pending' AND next_attempt_ms = ?
                    """, [.integer(now + Self.channelLeaseMillis), row[0], row[1], row[7]])
                guard taken == 1, let kind = HubChannel.Kind(rawValue: row[2].text ?? "") else { continue }
                claimed.append(ClaimedDelivery(notification: row[0].text ?? "", channel: row[1].text ?? "", kind: kind, target: row[3].text ?? "",
                                               secret: row[4].text, document: row[5].text ?? "{}", attempts: Int(row[6].integer ?? 0)))
            }
            return claimed
        }
    }

    /// An e-mail delivery: the message goes into the mail outbox and the delivery is done, in one
    /// transaction (the mailer retries the message itself).
    func mailDelivery(_ delivery: ClaimedDelivery, mail outgoing: OutgoingMail) async throws(HubError) {
        let now = nowMillis
        try await transaction { connection in
            try await HubMailOutbox.queueMail(outgoing, now: now, on: connection)
            try await Self.settle(delivery, state: "sent", error: nil, now: now, on: connection)
        }
        mail.mailQueued()
    }

    /// A delivery's outcome: `sent` or `dropped` (its document goes), or `pending` again at
    /// `retryAtMillis`.
    func settleDelivery(_ delivery: ClaimedDelivery, state: String, error: String?, retryAtMillis: Int64? = nil) async throws(HubError) {
        let now = nowMillis
        try await transaction { connection in
            if let retryAtMillis {
                try await connection.execute("""
                    UPDATE hub_channel_deliveries SET attempts = attempts + 1, next_attempt_ms = ?, last_error = ?
                    WHERE notification = ? AND channel = ? AND state = 'pending'
                    """, [.integer(retryAtMillis), error.map { SQLValue.text(String($0.prefix(500))) } ?? .null,
                          .text(delivery.notification), .text(delivery.channel)])
            } else {
                try await Self.settle(delivery, state: state, error: error, now: now, on: connection)
            }
        }
    }

    private static func settle(_ delivery: ClaimedDelivery, state: String, error: String?, now: Int64, on connection: any HubSQL) async throws {
        try await connection.execute("""
            UPDATE hub_channel_deliveries SET state = ?, attempts = attempts + 1, settled_ms = ?, last_error = ?, document = ''
            WHERE notification = ? AND channel = ? AND state = 'pending'
            """, [.text(state), .integer(now), error.map { SQLValue.text(String($0.prefix(500))) } ?? .null,
                  .text(delivery.notification), .text(delivery.channel)])
    }

    /// When the next pending delivery to a channel that still exists is due, if any.
    func nextDeliveryDue() async throws(HubError) -> Int64? {
        try await transaction { connection in
            try await connection.fetchOne("""
                SELECT MIN(d.next_attempt_ms) FROM hub_channel_deliveries d JOIN hub_channels c ON c.id = d.channel WHERE d.state = 'pending'
                """)?[0].integer
        }
    }

    /// Every delivery the hub holds, oldest first: for the operator and tests.
    public func channelDeliveries() async throws(HubError) -> [ChannelDelivery] {
        try await transaction { connection in
            try await connection.fetchAll("""
                SELECT notification, channel, person, state, attempts, next_attempt_ms, last_error FROM hub_channel_deliveries
                ORDER BY created_ms, notification, channel
                """, []).map {
                ChannelDelivery(notification: $0[0].text ?? "", channel: $0[1].text ?? "", person: $0[2].text ?? "", state: $0[3].text ?? "",
                                attempts: Int($0[4].integer ?? 0), nextAttemptMillis: $0[5].integer ?? 0, lastError: $0[6].text)
            }
        }
    }
}
