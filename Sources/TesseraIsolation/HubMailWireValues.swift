import Foundation
import TesseraSDK

/// ``PluginSync/sendMail(_:)``'s message and receipt on the isolation wire: the attachment's
/// bytes as base64 text (a frame holds up to 64 MiB; an attachment at most 10 MiB).
extension HubMailMessage {
    public var wire: JSONValue {
        var fields: [String: JSONValue] = ["to": .string(to), "subject": .string(subject), "text": .string(text)]
        if let attachment {
            fields["attachment"] = ["fileName": .string(attachment.fileName), "mediaType": .string(attachment.mediaType),
                                    "content": .string(Data(attachment.bytes).base64EncodedString())]
        }
        return .object(fields)
    }

    public init(wire: JSONValue) throws {
        var attachment: HubMailAttachment?
        if let file = wire["attachment"], file != .null {
            guard let bytes = Data(base64Encoded: try file.wireString("content")) else { throw WireFormatError("base64 at content", file["content"]) }
            attachment = HubMailAttachment(fileName: try file.wireString("fileName"), mediaType: try file.wireString("mediaType"), bytes: Array(bytes))
        }
        self.init(to: try wire.wireString("to"), subject: try wire.wireString("subject"), text: try wire.wireString("text"), attachment: attachment)
    }
}

extension HubMailReceipt {
    public var wire: JSONValue {
        ["id": .string(id), "to": .string(to), "queuedAt": queuedAt.wire, "remainingToday": .integer(Int64(remainingToday))]
    }

    public init(wire: JSONValue) throws {
        self.init(id: try wire.wireString("id"), to: try wire.wireString("to"), queuedAt: try Date(wire: wire["queuedAt"]),
                  remainingToday: Int(wire["remainingToday"]?.integerValue ?? 0))
    }
}
