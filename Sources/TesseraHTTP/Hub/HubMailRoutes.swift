import Foundation
import Hummingbird
import TesseraHub

/// `POST /v1/hub/mail`: a logged-in person's message to one address, with at most one file,
/// queued in the hub's mail outbox and answered at once (docs/hub.md, "Mail to one address").
struct HubMailRoutes {
    let routes: HubRoutes
    /// Whether the hub sends mail (`providers.mail`): without it the route answers `unavailable`.
    let mailSink: Bool

    /// The largest body the route reads: a 10 MiB attachment in base64 and the rest of the JSON.
    static let maxBodyBytes = (HubMailOutbox.PersonMailLimits.attachmentBytes + 2) / 3 * 4 + 64 * 1024

    static func add(to table: inout RouteTable, routes: HubRoutes, mailSink: Bool) {
        table.add(.post, "/v1/hub/mail", HubMailRoutes(routes: routes, mailSink: mailSink).send)
    }

    struct AttachmentInput: Decodable { let fileName: String; let mediaType: String; let content: String }
    struct MailInput: Decodable { let to: String; let subject: String; let text: String?; let attachment: AttachmentInput? }
    struct QueuedOutput: Encodable {
        let id: String; let to: String; let queuedAt: String; let queuedAtMillis: Int64; let remainingToday: Int; let status: String
    }

    func send(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await routes.authenticate(request)
        // Without a mail server nothing else matters: say so before reading megabytes.
        guard mailSink else {
            throw APIError(.serviceUnavailable, code: "unavailable", "this hub sends no mail: its deployment names no mail server (providers.mail)")
        }
        let input = try await HubJSON.decode(MailInput.self, from: request, limit: Self.maxBodyBytes)
        let attachment = try input.attachment.map { try Self.attachment($0) }
        let mail = HubMailOutbox.PersonMail(to: input.to, subject: input.subject, text: input.text ?? "", attachment: attachment)
        let queued = try await routes.run {
            try await routes.hub.mail.queuePersonMail(mail, from: device.person, plugin: HubRoutes.plugin(request), mailSink: mailSink)
        }
        return try HubJSON.response(QueuedOutput(id: queued.id, to: queued.to, queuedAt: HubRoutes.iso(queued.queuedAtMillis),
                                                 queuedAtMillis: queued.queuedAtMillis, remainingToday: queued.remainingToday, status: "queued"),
                                    status: .accepted)
    }

    /// The attachment's bytes from its base64 `content` (line breaks allowed).
    static func attachment(_ input: AttachmentInput) throws -> MailAttachment {
        guard input.content.utf8.count <= maxBodyBytes else {
            throw APIError(HubError(.payloadTooLarge, "attachment_too_large",
                                    "the attachment is larger than \(HubMailOutbox.PersonMailLimits.attachmentBytes) bytes (10 MiB)",
                                    field: "$.attachment.content"))
        }
        // Line breaks (as in a MIME body) are allowed; anything else that is not base64 is refused.
        let content = input.content.filter { $0 != "\r" && $0 != "\n" && $0 != "\r\n" }
        guard let bytes = Data(base64Encoded: content), !content.isEmpty else {
            throw APIError(.badRequest, code: "invalid_attachment", "the attachment's content is not base64", field: "$.attachment.content")
        }
        return MailAttachment(fileName: input.fileName, mediaType: input.mediaType, bytes: bytes)
    }
}
