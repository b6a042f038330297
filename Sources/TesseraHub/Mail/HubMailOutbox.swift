import Foundation
import TesseraSDK

/// The hub's outbound mail, kept in its store (`hub_mail_outbox`) until the SMTP server takes it:
/// a message is queued in the same transaction as what it tells of (a reset code, an
/// invitation), so a crash or a server that is down loses nothing. ``HubMailer`` sends it.
///
/// A part of the hub's store (``HubStore/mail``), on the same database.
public final class HubMailOutbox: HubStorePart {
    let database: any HubDatabase
    let now: @Sendable () -> Date
    /// Wakes the mailer when mail was queued (``HubMailer``).
    let mailSignal = HubChangeSignal()

    init(database: any HubDatabase, now: @escaping @Sendable () -> Date) {
        self.database = database
        self.now = now
    }
}

extension HubMailOutbox {
    /// A message waiting in, or gone from, the outbox, as the operator sees it (never its body).
    public struct QueuedMail: Sendable, Hashable {
        public let id: String
        public let to: String
        public let subject: String
        public let attempts: Int
        public let nextAttemptMillis: Int64
        public let sentMillis: Int64?
        /// The server refused it for good (a 5xx answer); it is not retried.
        public let failed: Bool
        public let lastError: String?
    }

    /// Queues one message now, in its own transaction.
    public func queueMail(_ mail: OutgoingMail) async throws(HubError) {
        let now = nowMillis
        try await transaction { try await Self.queueMail(mail, now: now, on: $0) }
        mailSignal.fire()
    }

    /// Queues one message inside the caller's transaction (call ``mailQueued()`` after it commits);
    /// `sender` is the person who sent it, for mail a person sends (``queuePersonMail(_:from:plugin:mailSink:)``).
    /// Its id.
    @discardableResult
    static func queueMail(_ mail: OutgoingMail, now: Int64, sender: String? = nil, on connection: any HubSQL) async throws -> String {
        let id = UUID().uuidString.lowercased()
        func optional(_ text: String?) -> SQLValue { text.map(SQLValue.text) ?? .null }
        try await connection.execute("""
            INSERT INTO hub_mail_outbox(id, recipient, subject, body, created_ms, next_attempt_ms, sender, reply_to,
                                        attachment_name, attachment_type, attachment_base64) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(id), .text(mail.to), .text(mail.subject), .text(mail.body), .integer(now), .integer(now), optional(sender),
                  optional(mail.replyTo), optional(mail.attachment?.fileName), optional(mail.attachment?.mediaType),
                  optional(mail.attachment?.bytes.base64EncodedString())])
        return id
    }

    /// Wakes the mailer: a transaction that queued mail has committed.
    func mailQueued() { mailSignal.fire() }

    /// The outbox, oldest first (sent and failed messages included).
    public func mailOutbox() async throws(HubError) -> [QueuedMail] {
        try await transaction { connection in
            try await connection.fetchAll("""
                SELECT id, recipient, subject, attempts, next_attempt_ms, sent_ms, failed, last_error FROM hub_mail_outbox ORDER BY created_ms, id
                """, []).map {
                QueuedMail(id: $0[0].text ?? "", to: $0[1].text ?? "", subject: $0[2].text ?? "", attempts: Int($0[3].integer ?? 0),
                           nextAttemptMillis: $0[4].integer ?? 0, sentMillis: $0[5].integer, failed: ($0[6].integer ?? 0) != 0,
                           lastError: $0[7].text)
            }
        }
    }

    /// Claims up to `limit` messages due now: each is leased for ``mailLeaseMillis`` so that
    /// another hub replica does not send it too while this one does.
    func claimDueMail(limit: Int) async throws(HubError) -> [(id: String, mail: OutgoingMail, attempts: Int)] {
        let now = nowMillis
        return try await transaction { connection in
            let due = try await connection.fetchAll("""
                SELECT id, recipient, subject, body, attempts, next_attempt_ms, reply_to, attachment_name, attachment_type, attachment_base64
                FROM hub_mail_outbox
                WHERE sent_ms IS NULL AND failed = 0 AND next_attempt_ms <= ? ORDER BY next_attempt_ms, id LIMIT ?
                """, [.integer(now), .integer(Int64(limit))])
            var claimed: [(id: String, mail: OutgoingMail, attempts: Int)] = []
            for row in due {
                let id = row[0].text ?? ""
                let taken = try await connection.execute("UPDATE hub_mail_outbox SET next_attempt_ms = ? WHERE id = ? AND next_attempt_ms = ?",
                                                         [.integer(now + Self.mailLeaseMillis), .text(id), row[5]])
                guard taken == 1 else { continue }
                let attachment = row[9].text.flatMap { Data(base64Encoded: $0) }.map {
                    MailAttachment(fileName: row[7].text ?? "attachment", mediaType: row[8].text ?? "application/octet-stream", bytes: $0)
                }
                claimed.append((id, OutgoingMail(to: row[1].text ?? "", subject: row[2].text ?? "", body: row[3].text ?? "",
                                                 replyTo: row[6].text, attachment: attachment), Int(row[4].integer ?? 0)))
            }
            return claimed
        }
    }

    /// A sent message keeps its envelope for the operator; its body (which may hold a code or a
    /// person's text) and its attachment go.
    func markMailSent(_ id: String) async throws(HubError) {
        let now = nowMillis
        try await transaction { connection in
            try await connection.execute("UPDATE hub_mail_outbox SET sent_ms = ?, body = '', attachment_base64 = NULL, attempts = attempts + 1, last_error = NULL WHERE id = ?",
                                         [.integer(now), .text(id)])
        }
    }

    /// A failed attempt: retried after `retryInMillis`, or never if the server refused it for good.
    func markMailFailed(_ id: String, error: MailError, retryInMillis: Int64) async throws(HubError) {
        let now = nowMillis
        try await transaction { connection in
            try await connection.execute("""
                UPDATE hub_mail_outbox SET attempts = attempts + 1, next_attempt_ms = ?, failed = ?, last_error = ? WHERE id = ?
                """, [.integer(now + retryInMillis), .integer(error.permanent ? 1 : 0), .text(String(error.message.prefix(500))), .text(id)])
        }
    }

    /// When the next unsent message is due, if any.
    func nextMailDue() async throws(HubError) -> Int64? {
        try await transaction { connection in
            try await connection.fetchOne("SELECT MIN(next_attempt_ms) FROM hub_mail_outbox WHERE sent_ms IS NULL AND failed = 0")?[0].integer
        }
    }

    /// How long a claimed message is another replica's to leave alone.
    static let mailLeaseMillis: Int64 = 5 * 60_000
}
