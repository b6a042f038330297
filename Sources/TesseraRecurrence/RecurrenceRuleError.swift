/// Why a recurrence rule's text was rejected.
///
/// Every error names the RRULE part at fault, so a plugin author can fix the rule without reading
/// the parser: `BYDAY: '9XX' is not a weekday: use MO…SU, optionally with an ordinal such as 2TU or -1FR`.
public struct RecurrenceRuleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The part at fault, such as `"BYDAY"`, or `"RRULE"` when the text as a whole is wrong.
    public let part: String
    /// What is wrong with it and what would be accepted instead.
    public let message: String

    /// Creates an error for `part` explained by `message`.
    public init(part: String, message: String) {
        self.part = part
        self.message = message
    }

    /// `PART: message`, ready to show to whoever wrote the rule.
    public var description: String { "\(part): \(message)" }
}
