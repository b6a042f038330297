import Foundation

/// A message a plugin sends through its hub for the person logged in on this device (SDK 1.6):
/// one recipient, a subject, a text, and at most one file — a baby diary's PDF export mailed to a
/// paediatrician, say. Send it with ``PluginSync/sendMail(_:)``:
///
/// ```swift
/// let pdf: [UInt8] = …
/// let receipt = try await context.capability(.sync).sendMail(HubMailMessage(
///     to: "doctor@example.org", subject: "Ema: baby diary", text: "Ema's growth and vaccinations.",
///     attachment: HubMailAttachment(fileName: "Ema-diary.pdf", mediaType: "application/pdf", bytes: pdf)))
/// // receipt.to == "doctor@example.org"; the hub sends it from its own outbox.
/// ```
///
/// The hub checks every limit before it queues anything (docs/hub.md, "Mail to one address"):
/// one valid address, a subject of 1–200 characters on one line, a text of at most 10,000
/// characters, an attachment of at most 10 MiB that is `application/pdf`, `text/csv` or
/// `application/json`, and 20 messages per person in any 24 hours.
public struct HubMailMessage: Sendable, Hashable {
    /// The one recipient's address (`name@domain.tld`). SDK 1.6.
    public var to: String
    /// The subject: 1 to 200 characters on one line. SDK 1.6.
    public var subject: String
    /// The plain text, at most 10,000 characters; the hub adds a line saying who sent it. SDK 1.6.
    public var text: String
    /// The file sent with it, if any. SDK 1.6.
    public var attachment: HubMailAttachment?

    /// A message to `to` (SDK 1.6).
    public init(to: String, subject: String, text: String, attachment: HubMailAttachment? = nil) {
        self.to = to
        self.subject = subject
        self.text = text
        self.attachment = attachment
    }
}

/// The file of a ``HubMailMessage`` (SDK 1.6): sent as a MIME attachment the recipient's mail
/// program opens.
public struct HubMailAttachment: Sendable, Hashable {
    /// The name the recipient sees: 1 to 100 letters, digits, spaces, `.`, `_` or `-`. SDK 1.6.
    public var fileName: String
    /// `application/pdf`, `text/csv` or `application/json`. SDK 1.6.
    public var mediaType: String
    /// The file's bytes, at most 10 MiB. SDK 1.6.
    public var bytes: [UInt8]

    /// An attachment (SDK 1.6).
    public init(fileName: String, mediaType: String, bytes: [UInt8]) {
        self.fileName = fileName
        self.mediaType = mediaType
        self.bytes = bytes
    }
}

/// The hub's answer to ``PluginSync/sendMail(_:)`` (SDK 1.6): the message is queued in the hub's
/// durable outbox, which sends it (and retries while the mail server does not take it).
public struct HubMailReceipt: Sendable, Hashable {
    /// The hub's id of the message. SDK 1.6.
    public let id: String
    /// The recipient as the hub will send to it (lowercase). SDK 1.6.
    public let to: String
    /// When the hub queued it, on the hub's clock. SDK 1.6.
    public let queuedAt: Date
    /// How many more messages this person may send through the hub in the next 24 hours. SDK 1.6.
    public let remainingToday: Int

    /// A receipt (SDK 1.6; hosts make these).
    public init(id: String, to: String, queuedAt: Date, remainingToday: Int) {
        self.id = id
        self.to = to
        self.queuedAt = queuedAt
        self.remainingToday = remainingToday
    }
}

extension PluginSync {
    /// The default for a `sync` object written before SDK 1.6: it throws `unavailable`.
    public func sendMail(_ message: HubMailMessage) async throws -> HubMailReceipt {
        throw PluginError(.unavailable, "this host's sync capability does not send mail")
    }
}

extension PluginError.Code {
    /// ``PluginSync/sendMail(_:)``: the recipient is not one e-mail address (HTTP 400; SDK 1.6).
    public static let invalidRecipient = PluginError.Code(rawValue: "invalid_recipient")
    /// ``PluginSync/sendMail(_:)``: the subject is empty, longer than 200 characters or not on
    /// one line (HTTP 400; SDK 1.6).
    public static let invalidSubject = PluginError.Code(rawValue: "invalid_subject")
    /// ``PluginSync/sendMail(_:)``: the text is longer than 10,000 characters (HTTP 400; SDK 1.6).
    public static let textTooLong = PluginError.Code(rawValue: "text_too_long")
    /// ``PluginSync/sendMail(_:)``: the attachment's file name breaks its rule (HTTP 400; SDK 1.6).
    public static let invalidAttachmentName = PluginError.Code(rawValue: "invalid_attachment_name")
    /// ``PluginSync/sendMail(_:)``: the attachment is empty or not base64 (HTTP 400; SDK 1.6).
    public static let invalidAttachment = PluginError.Code(rawValue: "invalid_attachment")
    /// ``PluginSync/sendMail(_:)``: the attachment is not `application/pdf`, `text/csv` or
    /// `application/json` (HTTP 400; SDK 1.6).
    public static let attachmentTypeNotAllowed = PluginError.Code(rawValue: "attachment_type_not_allowed")
    /// ``PluginSync/sendMail(_:)``: the attachment is larger than 10 MiB (HTTP 413; SDK 1.6).
    public static let attachmentTooLarge = PluginError.Code(rawValue: "attachment_too_large")
    /// ``PluginSync/sendMail(_:)``: the person sent 20 messages through the hub in the last 24
    /// hours (HTTP 429; SDK 1.6).
    public static let mailRateExceeded = PluginError.Code(rawValue: "mail_rate_exceeded")
}
