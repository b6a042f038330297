import TesseraSDK

/// The module's refusal codes (specs/safe-travel.md §7.4), carried at the end of each message as
/// `(code NAME)` so that a client can branch on them. Nothing is written when one is raised.
enum Reason: String, Sendable {
    case notSetUp = "NOT_SET_UP"
    case alreadySetUp = "ALREADY_SET_UP"
    case invalidPIN = "INVALID_PIN"
    case pinLocked = "PIN_LOCKED"
    case noGuardians = "NO_GUARDIANS"
    case notAContact = "NOT_A_CONTACT"
    case tripAlreadyActive = "TRIP_ALREADY_ACTIVE"
    case noActiveTrip = "NO_ACTIVE_TRIP"
    case invalidState = "INVALID_STATE"
    case notTripOwner = "NOT_TRIP_OWNER"
    case notTarget = "NOT_CHECKIN_TARGET"
    case notRequester = "NOT_CHECKIN_REQUESTER"
    case validation = "VALIDATION"
    case etaInPast = "ETA_IN_PAST"
    case fixFromFuture = "FIX_FROM_FUTURE"
    case fixTooOld = "FIX_TOO_OLD"
    case ownRequest = "OWN_REQUEST"
    case impossibleCoordinates = "IMPOSSIBLE_COORDINATES"
    case notFound = "NOT_FOUND"
}

extension PluginError {
    /// A refusal because of the module's state: `conflict`, with the reason code.
    static func refused(_ reason: Reason, _ message: String) -> PluginError {
        PluginError(.conflict, "\(message) (code \(reason.rawValue))")
    }

    /// Not this person's to change: `forbidden`, with the reason code.
    static func forbidden(_ reason: Reason, _ message: String) -> PluginError {
        PluginError(.forbidden, "\(message) (code \(reason.rawValue))")
    }

    /// Bad input naming its field, with the reason code.
    static func invalid(_ message: String, field: String, _ reason: Reason = .validation) -> PluginError {
        PluginError(.invalidInput, "\(message) (code \(reason.rawValue))", field: field)
    }

    /// A record that is not there (or not visible to this person).
    static func missing(_ what: String, field: String) -> PluginError {
        PluginError(.notFound, "\(what) (code \(Reason.notFound.rawValue))", field: field)
    }
}
