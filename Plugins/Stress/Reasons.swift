import TesseraSDK

/// The reason codes of the spec (§3.2 and §8.3), carried at the end of every refusal's message as
/// `(code NAME)` so that a client can branch on them, and nothing is written when one is raised.
enum Reason: String, Sendable {
    case consentRequired = "CONSENT_REQUIRED"
    case accountRevoked = "ACCOUNT_REVOKED"
    case entryQuestionnairesPending = "ENTRY_QUESTIONNAIRES_PENDING"
    case previousNotCompleted = "PREVIOUS_NOT_COMPLETED"
    case waitingUntil = "WAITING_UNTIL"
    case studyEnded = "STUDY_ENDED"
    case weekCompleted = "WEEK_COMPLETED"
    case evaluationPending = "EVALUATION_PENDING"
    case notCompleted = "NOT_COMPLETED"
    case recordExists = "RECORD_EXISTS"
    case answersMissing = "ANSWERS_MISSING"
    case introNotRead = "INTRO_NOT_READ"
    case timerRunning = "TIMER_RUNNING"
    case noTimerRunning = "NO_TIMER_RUNNING"
    case noStressRecordToday = "NO_STRESS_RECORD_TODAY"
    case notDeletable = "NOT_DELETABLE"
    /// The one reason every module gives for a missing `confirm: true`, with `invalid_input` at
    /// `$.confirm` (docs/http.md, "Errors"); lower case, as the host's error codes are.
    case confirmationRequired = "confirmation_required"
    case exitNotAvailable = "EXIT_NOT_AVAILABLE"
    case contentOutdated = "CONTENT_OUTDATED"
}

extension PluginError {
    /// A refusal because of the participant's state: `conflict`, with the reason code.
    static func refused(_ reason: Reason, _ message: String) -> PluginError {
        PluginError(.conflict, "\(message) (code \(reason.rawValue))")
    }

    /// Bad input naming its field, with an optional reason code.
    static func invalid(_ message: String, field: String, _ reason: Reason? = nil) -> PluginError {
        PluginError(.invalidInput, reason.map { "\(message) (code \($0.rawValue))" } ?? message, field: field)
    }
}
