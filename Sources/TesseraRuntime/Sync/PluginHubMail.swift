import Foundation
import TesseraSDK
import TesseraSyncClient

/// ``PluginSync/sendMail(_:)`` for one plugin: `POST /v1/hub/mail` with this device's token and
/// the plugin's id (named in the mail's "sent by" line). The hub checks every limit and queues
/// the message in its outbox; its refusals come back with its own code and field.
struct PluginHubMail: Sendable {
    let pluginID: String
    /// The hub and the device's token; throws `notLoggedIn` without a hub or token.
    let access: @Sendable () throws -> HubAccess

    func send(_ message: HubMailMessage) async throws -> HubMailReceipt {
        let access = try access()
        do {
            return try await access.connection.sendMail(message, plugin: pluginID)
        } catch let error as SyncClientError where error.status == 400 || error.status == 413 || error.status == 429 {
            // The limit's own name (`invalid_recipient`, `attachment_too_large`, …), not a bare `invalid_input`.
            throw PluginError(PluginError.Code(rawValue: error.code), error.message, field: error.field)
        } catch let error as SyncClientError {
            throw PluginSpacesChannel.pluginError(error)
        }
    }
}
