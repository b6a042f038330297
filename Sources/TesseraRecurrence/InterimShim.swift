// Interim: the recurrence module is being written on another branch; this file goes when it lands.
import Foundation

public struct RecurrenceRuleError: Error, Sendable, Hashable, CustomStringConvertible {
    public let part: String
    public let message: String
    public var description: String { "\(part): \(message)" }
}

public struct RecurrenceRule: Sendable, Hashable, CustomStringConvertible {
    let interval: TimeInterval
    public init(parsing text: String) throws(RecurrenceRuleError) {
        guard text.contains("FREQ=DAILY") else { throw RecurrenceRuleError(part: "FREQ", message: "interim: DAILY only") }
        interval = 86_400
        description = text
    }
    public let description: String
}

public struct Recurrence: Sendable {
    let rule: RecurrenceRule
    let start: Date
    public init(rule: RecurrenceRule, start: Date, timeZone: TimeZone) { self.rule = rule; self.start = start }
    public var first: Date? { start }
    public func next(after date: Date) -> Date? {
        if date < start { return start }
        let n = ((date.timeIntervalSince(start)) / rule.interval).rounded(.down) + 1
        return start.addingTimeInterval(n * rule.interval)
    }
    public func occurrences(from: Date, through: Date, limit: Int = .max) -> [Date] { [] }
}
