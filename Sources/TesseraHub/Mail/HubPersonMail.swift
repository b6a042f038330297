import Foundation

/// One message a logged-in person sends through the hub to one address, with at most one file
/// (docs/hub.md, "Mail to one address"): a baby diary's PDF export mailed to a doctor (UC32).
/// It goes through the hub's durable outbox (``queueMail(_:)``), so it is sent however long the
/// SMTP server takes; the limits below keep the hub from being anyone's bulk mailer.
extension HubMailOutbox {
    /// What a person asks the hub to send.
    public struct PersonMail: Sendable {
        /// One address (`invalid_recipient` otherwise).
        public var to: String
        /// 1 to ``PersonMailLimits/subjectCharacters`` characters on one line.
        public var subject: String
        /// At most ``PersonMailLimits/textCharacters`` characters; the hub adds who sent it.
        public var text: String
        /// At most one file, of an allowed type and size.
        public var attachment: MailAttachment?

        public init(to: String, subject: String, text: String, attachment: MailAttachment?) {
            self.to = to
            self.subject = subject
            self.text = text
            self.attachment = attachment
        }
    }

    /// A queued message, as its sender learns of it.
    public struct QueuedPersonMail: Sendable, Hashable {
        public let id: String
        /// The recipient, normalized (lowercase).
        public let to: String
        public let queuedAtMillis: Int64
        /// How many more messages the person may send before the day's limit.
        public let remainingToday: Int
    }

    /// The limits on mail a person sends.
    public enum PersonMailLimits {
        /// Messages a person may send in any 24 hours on the hub's clock.
        public static let perDay = 20
        /// The subject: 1 to this many characters on one line.
        public static let subjectCharacters = 200
        /// The text: at most this many characters.
        public static let textCharacters = 10_000
        /// The attachment: at most this many bytes (10 MiB).
        public static let attachmentBytes = 10 << 20
        /// The media types an attachment may have.
        public static let attachmentTypes = ["application/pdf", "text/csv", "application/json"]
        /// Whether a file name may hold `scalar`: ASCII letters, digits, `.`, `_`, `-` and spaces
        /// (nothing a `filename="…"` parameter would have to quote or a file system reads as a path).
        public static func fileNameAllows(_ scalar: Unicode.Scalar) -> Bool {
            scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || "._- ".unicodeScalars.contains(scalar))
        }
    }

    /// Queues `mail` from `person` (a device's person): checked against every limit first, each
    /// refused by name with nothing queued. The mail is From the hub's configured sender, with
    /// `Reply-To` the person's address if their account has one, and its text ends with a line
    /// saying who sent it (their name and login).
    ///
    /// - Parameters:
    ///   - plugin: the plugin that sent it for the person, named in that line, if any.
    ///   - mailSink: whether the hub sends mail (`providers.mail`).
    /// - Throws: `unavailable` (503) without a mail server; `invalid_recipient` (`$.to`),
    ///   `invalid_subject` (`$.subject`), `text_too_long` (`$.text`), `invalid_attachment_name`
    ///   (`$.attachment.fileName`), `attachment_type_not_allowed` (`$.attachment.mediaType`),
    ///   `invalid_attachment` (`$.attachment.content`; 400); `attachment_too_large` (413);
    ///   `mail_rate_exceeded` (429).
    public func queuePersonMail(_ mail: PersonMail, from person: String, plugin: String? = nil,
                                mailSink: Bool) async throws(HubError) -> QueuedPersonMail {
        guard mailSink else {
            throw HubError(.unavailable, "unavailable", "this hub sends no mail: its deployment names no mail server (providers.mail)")
        }
        let checked = try Self.checkedPersonMail(mail)
        let now = nowMillis
        let queued: QueuedPersonMail = try await transaction { connection in
            let since = now - 86_400_000
            let sent = try await connection.fetchOne("SELECT COUNT(*) FROM hub_mail_outbox WHERE sender = ? AND created_ms > ?",
                                                     [.text(person), .integer(since)])?[0].integer ?? 0
            guard sent < Int64(PersonMailLimits.perDay) else {
                throw HubError(.tooManyRequests, "mail_rate_exceeded",
                               "you sent \(PersonMailLimits.perDay) messages through the hub in the last 24 hours, its limit; try again later")
            }
            let row = try await connection.fetchOne("SELECT name, email, first_name, surname FROM hub_people WHERE id = ?", [.text(person)])
            let login = row?[0].text ?? person
            let fullName = [row?[2].text, row?[3].text].compactMap { $0 }.joined(separator: " ")
            let who = fullName.isEmpty ? login : "\(fullName) (\(login))"
            let replyTo = row?[1].text
            let footer = "\n\n--\nSent by \(who)\(plugin.map { " from \($0)" } ?? "") through a Tessera hub. "
                + (replyTo == nil ? "Replies to this address do not reach them." : "Reply to reach them at \(replyTo!).")
            let outgoing = OutgoingMail(to: checked.to, subject: checked.subject, body: checked.text + footer, replyTo: replyTo,
                                        attachment: checked.attachment)
            let id = try await Self.queueMail(outgoing, now: now, sender: person, on: connection)
            return QueuedPersonMail(id: id, to: checked.to, queuedAtMillis: now, remainingToday: PersonMailLimits.perDay - Int(sent) - 1)
        }
        mailQueued()
        return queued
    }

    /// `mail` with its address normalized, or the first limit it breaks.
    static func checkedPersonMail(_ mail: PersonMail) throws(HubError) -> PersonMail {
        let to: String
        // No control character either: the address goes into RCPT TO and the To: header as it is.
        do {
            guard !mail.to.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { throw HubError(.invalidInput, "", "") }
            to = try HubStore.normalizedEmail(mail.to)
        } catch {
            throw HubError(.invalidInput, "invalid_recipient", "'\(mail.to.prefix(100))' is not one e-mail address (name@domain.tld)", field: "$.to")
        }
        let subject = mail.subject.trimmingCharacters(in: .whitespaces)
        guard !subject.isEmpty, subject.count <= PersonMailLimits.subjectCharacters, !subject.contains(where: { $0.isNewline || $0.asciiValue.map { $0 < 0x20 } == true }) else {
            throw HubError(.invalidInput, "invalid_subject", "a subject is 1 to \(PersonMailLimits.subjectCharacters) characters on one line", field: "$.subject")
        }
        guard mail.text.count <= PersonMailLimits.textCharacters else {
            throw HubError(.invalidInput, "text_too_long", "the text is \(mail.text.count) characters; at most \(PersonMailLimits.textCharacters)", field: "$.text")
        }
        if let attachment = mail.attachment { try checkAttachment(attachment) }
        return PersonMail(to: to, subject: subject, text: mail.text, attachment: mail.attachment)
    }

    static func checkAttachment(_ attachment: MailAttachment) throws(HubError) {
        let name = attachment.fileName
        guard (1...100).contains(name.count), !name.hasPrefix("."), name.unicodeScalars.allSatisfy(PersonMailLimits.fileNameAllows) else {
            throw HubError(.invalidInput, "invalid_attachment_name",
                           "an attachment's file name is 1 to 100 letters, digits, spaces, '.', '_' or '-', not starting with '.'",
                           field: "$.attachment.fileName")
        }
        guard PersonMailLimits.attachmentTypes.contains(attachment.mediaType) else {
            throw HubError(.invalidInput, "attachment_type_not_allowed",
                           "an attachment is one of \(PersonMailLimits.attachmentTypes.joined(separator: ", ")); not '\(attachment.mediaType.prefix(100))'",
                           field: "$.attachment.mediaType")
        }
        guard !attachment.bytes.isEmpty else {
            throw HubError(.invalidInput, "invalid_attachment", "the attachment is empty", field: "$.attachment.content")
        }
        guard attachment.bytes.count <= PersonMailLimits.attachmentBytes else {
            throw HubError(.payloadTooLarge, "attachment_too_large",
                           "the attachment is \(attachment.bytes.count) bytes; at most \(PersonMailLimits.attachmentBytes) (10 MiB)",
                           field: "$.attachment.content")
        }
    }
}
