import TesseraSDK

/// The reason codes of the spec (§3.2 and §8.3, in snake_case), carried as the error's `reason` so
/// that a client can branch on them; the manifest's `reasons` lists them. Nothing is written when
/// one is raised.
enum Reason: String, Sendable {
    case consentRequired = "consent_required"
    case accountRevoked = "account_revoked"
    case entryQuestionnairesPending = "entry_questionnaires_pending"
    case previousNotCompleted = "previous_not_completed"
    case waitingUntil = "waiting_until"
    case studyEnded = "study_ended"
    case weekCompleted = "week_completed"
    case evaluationPending = "evaluation_pending"
    case notCompleted = "not_completed"
    case recordExists = "record_exists"
    case answersMissing = "answers_missing"
    case introNotRead = "intro_not_read"
    case timerRunning = "timer_running"
    case noTimerRunning = "no_timer_running"
    case noStressRecordToday = "no_stress_record_today"
    case notDeletable = "not_deletable"
    /// The one reason every module gives for a missing `confirm: true`, with `invalid_input` at
    /// `$.confirm` (docs/http.md, "Errors"); lower case, as the host's error codes are.
    case confirmationRequired = "confirmation_required"
    case exitNotAvailable = "exit_not_available"
    case contentOutdated = "content_outdated"
}

extension Reason {
    /// The reason as the error carries it (`PluginError.reason`).
    var code: PluginError.Code { PluginError.Code(rawValue: rawValue) }
}

extension PluginError {
    /// A refusal because of the participant's state: `conflict`, with the reason code.
    static func refused(_ reason: Reason, _ message: String) -> PluginError {
        PluginError(.conflict, message, reason: reason.code)
    }

    /// Bad input naming its field, with an optional reason code.
    static func invalid(_ message: String, field: String, _ reason: Reason? = nil) -> PluginError {
        PluginError(.invalidInput, message, field: field, reason: reason?.code)
    }
}
