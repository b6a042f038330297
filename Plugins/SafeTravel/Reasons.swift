import TesseraSDK

/// The module's refusal codes (specs/safe-travel.md §7.4, in snake_case), carried as the error's
/// `reason` so that a client can branch on them; the manifest's `reasons` lists them. Nothing is
/// written when one is raised.
enum Reason: String, Sendable {
    case notSetUp = "not_set_up"
    case alreadySetUp = "already_set_up"
    case invalidPIN = "invalid_pin"
    case pinLocked = "pin_locked"
    case noGuardians = "no_guardians"
    case notAContact = "not_a_contact"
    case tripAlreadyActive = "trip_already_active"
    case noActiveTrip = "no_active_trip"
    case invalidState = "invalid_state"
    case notTripOwner = "not_trip_owner"
    case notTarget = "not_checkin_target"
    case notRequester = "not_checkin_requester"
    case validation = "validation"
    case etaInPast = "eta_in_past"
    case fixFromFuture = "fix_from_future"
    case fixTooOld = "fix_too_old"
    case ownRequest = "own_request"
    case impossibleCoordinates = "impossible_coordinates"
    case notFound = "not_found"
}

extension Reason {
    /// The reason as the error carries it (`PluginError.reason`).
    var code: PluginError.Code { PluginError.Code(rawValue: rawValue) }
}

extension PluginError {
    /// A refusal because of the module's state: `conflict`, with the reason code.
    static func refused(_ reason: Reason, _ message: String) -> PluginError {
        PluginError(.conflict, message, reason: reason.code)
    }

    /// Not this person's to change: `forbidden`, with the reason code.
    static func forbidden(_ reason: Reason, _ message: String) -> PluginError {
        PluginError(.forbidden, message, reason: reason.code)
    }

    /// Bad input naming its field, with the reason code.
    static func invalid(_ message: String, field: String, _ reason: Reason = .validation) -> PluginError {
        PluginError(.invalidInput, message, field: field, reason: reason.code)
    }

    /// A record that is not there (or not visible to this person).
    static func missing(_ what: String, field: String) -> PluginError {
        PluginError(.notFound, what, field: field, reason: Reason.notFound.code)
    }
}
