import Hummingbird
import TesseraSDK

extension APIError {
    /// The statuses of the hub-mail codes a plugin may pass on from ``PluginSync/sendMail(_:)``
    /// (the hub's own, docs/hub.md "Mail to one address"): a plugin that rethrows
    /// `mail_rate_exceeded` answers 429, as the hub did.
    static func mailStatus(for code: PluginError.Code) -> HTTPResponse.Status? {
        switch code {
        case .invalidRecipient, .invalidSubject, .textTooLong, .invalidAttachmentName, .invalidAttachment, .attachmentTypeNotAllowed:
            .badRequest
        case .attachmentTooLarge: .contentTooLarge
        case .mailRateExceeded: .tooManyRequests
        default: nil
        }
    }
}
