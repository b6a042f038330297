import Hummingbird
import TesseraSDK

extension APIError {
    /// The statuses of the sync-space codes a plugin may pass on from ``PluginSpaces`` (the hub's
    /// own, docs/hub.md): a plugin that rethrows `last_owner` answers 409, as the hub did.
    static func spaceStatus(for code: PluginError.Code) -> HTTPResponse.Status? {
        switch code {
        case .hubUnreachable, .notLoggedIn: .serviceUnavailable
        case .notOwner, .notInvitee, .tableReadOnly, .notRowCreator: .forbidden
        case .spaceNotFound, .memberNotFound, .personNotFound, .invitationNotFound: .notFound
        case .lastOwner, .invitationUsed, .alreadyMember, .personalSpace: .conflict
        case .spaceDeleted, .invitationExpired: .gone
        default: nil
        }
    }
}
