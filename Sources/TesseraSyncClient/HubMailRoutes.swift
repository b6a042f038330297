import Foundation
import TesseraSDK

/// `POST /v1/hub/mail` (docs/hub.md, "Mail to one address"): a message from this device's person
/// to one address, with at most one file, queued by the hub's mail outbox.
extension HubConnection {
    /// Asks the hub to send `message`, for `plugin` when a plugin sends it; the hub's answer
    /// (`id`, `to`, `queuedAt`, `remainingToday`). Refusals are ``SyncClientError``s with the hub's code.
    public func sendMail(_ message: HubMailMessage, plugin: String?) async throws -> HubMailReceipt {
        var json: [String: JSONValue] = ["to": .string(message.to), "subject": .string(message.subject), "text": .string(message.text)]
        if let attachment = message.attachment {
            json["attachment"] = ["fileName": .string(attachment.fileName), "mediaType": .string(attachment.mediaType),
                                  "content": .string(Data(attachment.bytes).base64EncodedString())]
        }
        let query = plugin.map { "?plugin=\(Self.pathSegment($0))" } ?? ""
        let answer = try await send("POST", "/v1/hub/mail" + query, body: Array(JSONValue.object(json).serialized().utf8),
                                    contentType: "application/json")
        guard answer.status == 202, let receipt = try? JSONValue(parsing: answer.body), let id = receipt["id"]?.stringValue else {
            throw SyncClientError(answer)
        }
        let millis = receipt["queuedAtMillis"]?.integerValue ?? 0
        return HubMailReceipt(id: id, to: receipt["to"]?.stringValue ?? message.to,
                              queuedAt: Date(timeIntervalSince1970: Double(millis) / 1000),
                              remainingToday: Int(receipt["remainingToday"]?.integerValue ?? 0))
    }
}
