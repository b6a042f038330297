import Foundation

/// A ``RecurrenceRule`` evaluated from a start, in a time zone: the dates a recurring notification
/// fires on.
///
/// ```swift
/// let rule = try RecurrenceRule(parsing: "FREQ=WEEKLY;BYDAY=FR;BYHOUR=8;BYMINUTE=0")
/// let fridays = Recurrence(rule: rule, start: now, timeZone: TimeZone(identifier: "Europe/Prague")!)
/// let due = fridays.next(after: now)   // 08:00 Prague time, winter or summer
/// ```
///
/// Occurrences are the rule's local times at or after `start`, read in `timeZone`; `start` is one
/// only if it matches the rule. `COUNT` counts those occurrences. Parts the rule leaves out come
/// from `start`'s local date and time; the seconds (including any fraction) always do. A local time
/// that a spring-forward gap skips moves forward by the gap's length; one that autumn repeats means
/// its first instant. See <doc:TesseraRecurrence> for the details.
///
/// A `Recurrence` is cheap to create and holds no mutable state; every query starts from the
/// period holding the date asked about, so ``next(after:)`` costs the same a day or a century after
/// `start`. Rules with `COUNT` are the exception: counting needs every occurrence from `start`, so
/// their queries take time in proportion to the number of occurrences before the date asked about.
public struct Recurrence: Sendable {
    /// The rule evaluated.
    public let rule: RecurrenceRule
    /// The instant occurrences begin at (inclusive); its local date and time fill in the parts the
    /// rule leaves out.
    public let start: Date
    /// The zone the rule's local times are read in.
    public let timeZone: TimeZone

    private let plan: ExpansionPlan
    private let resolver: LocalTimeResolver
    /// Every occurrence is a whole number of seconds plus this fraction: the start's.
    private let fraction: Double
    private let end: EndBound?

    /// Evaluates `rule` from `start` in `timeZone`.
    public init(rule: RecurrenceRule, start: Date, timeZone: TimeZone) {
        self.rule = rule
        self.start = start
        self.timeZone = timeZone
        let startSeconds = start.timeIntervalSinceReferenceDate
        let startInstant = Self.wholeSeconds(startSeconds)
        let resolver = LocalTimeResolver(timeZone: timeZone)
        self.resolver = resolver
        fraction = startSeconds - Double(startInstant)
        plan = ExpansionPlan(rule: rule, startWall: resolver.wall(at: startInstant))
        end = rule.until.map { EndBound($0, resolver: resolver) }
    }

    /// The first occurrence at or after `start`, or nil if the rule yields none.
    public var first: Date? {
        var found: Date?
        forEachOccurrence(from: start) { found = $0; return false }
        return found
    }

    /// The first occurrence strictly after `date`, or nil when the rule has ended (COUNT/UNTIL).
    ///
    /// For a `date` before `start`, that is ``first``.
    public func next(after date: Date) -> Date? {
        // NaN compares false with everything, so no occurrence would ever be "after" it.
        let date = date.timeIntervalSinceReferenceDate.isNaN ? Date.distantPast : date
        var found: Date?
        forEachOccurrence(from: date) { occurrence in
            guard occurrence > date else { return true }
            found = occurrence
            return false
        }
        return found
    }

    /// Occurrences in [from, through], inclusive, at most `limit`.
    public func occurrences(from: Date, through: Date, limit: Int = .max) -> [Date] {
        guard limit > 0, from <= through else { return [] }
        var found: [Date] = []
        forEachOccurrence(from: from) { occurrence in
            guard occurrence <= through else { return false }
            found.append(occurrence)
            return found.count < limit
        }
        return found
    }

    /// Calls `visit` with each occurrence at or after `lower`, in order, until it returns false or
    /// the rule ends.
    ///
    /// Without `COUNT` the walk starts at `lower` itself. With `COUNT` it must start at `start`, to
    /// know which occurrence is the last one.
    private func forEachOccurrence(from lower: Date, _ visit: (Date) -> Bool) {
        let walkFrom = rule.count == nil ? max(lower, start) : start
        var stream = makeStream(from: walkFrom)
        var counted = 0
        while let instant = stream.next() {
            let occurrence = Date(timeIntervalSinceReferenceDate: Double(instant) + fraction)
            if occurrence < start { continue }
            if let end, !end.admits(occurrence) { return }
            counted += 1
            if let count = rule.count, counted > count { return }
            if occurrence >= lower && !visit(occurrence) { return }
        }
    }

    /// A stream of candidate instants that misses none at or after `lower`.
    private func makeStream(from lower: Date) -> OccurrenceStream {
        // One second of slack below `lower`: occurrences carry the start's fraction, and the
        // exact comparison is made on the dates themselves.
        let lowerInstant = Self.wholeSeconds(lower.timeIntervalSinceReferenceDate - fraction) - 1
        let lastInstant = end.map { Self.wholeSeconds($0.seconds) } ?? Self.wholeSeconds(.infinity)
        let highestWall = lastInstant + LocalTimeResolver.maximumOffset + 1
        let cursor = WallCursor(plan: plan, from: resolver.firstWall(reaching: lowerInstant), through: highestWall)
        return OccurrenceStream(cursor: cursor, resolver: resolver)
    }

    /// Whole seconds at or below `seconds`, clamped to the horizon.
    ///
    /// The horizon, about ±3 million years from 2001, keeps the integer arithmetic far from
    /// overflow and gives every walk an end: there are no occurrences beyond it, so asking for the
    /// next one after an infinite date finishes (with nil) instead of walking forever. NaN counts
    /// as the far past.
    private static func wholeSeconds(_ seconds: Double) -> Int64 {
        let horizon = 1e14
        guard !seconds.isNaN else { return Int64(-horizon) }
        return Int64(min(max(seconds, -horizon), horizon).rounded(.down))
    }
}
