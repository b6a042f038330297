/// Turns the rule's candidate wall times into instants, in increasing order and without repeats.
///
/// Wall times and instants run in the same order except in a spring-forward gap: 02:30 in the gap
/// moves to 03:30, after a candidate at 03:15 that comes later on the wall. And two candidates can
/// land on one instant (02:30 moved to 03:30, and 03:30 itself). So each instant waits in
/// `pending` until no later wall time can land at or before it; ``LocalTimeResolver`` gives that
/// floor with every wall time it resolves. Outside gaps the floor is the instant itself and
/// nothing waits.
struct OccurrenceStream {
    private var cursor: WallCursor
    private let resolver: LocalTimeResolver
    /// Instants resolved but not yet handed out, ascending; almost always zero or one.
    private var pending: [Int64] = []
    /// Every wall time still to come lands strictly after this instant.
    private var floor = Int64.min
    private var lastHandedOut: Int64?

    init(cursor: WallCursor, resolver: LocalTimeResolver) {
        self.cursor = cursor
        self.resolver = resolver
    }

    /// The next instant (whole seconds from 2001-01-01 UTC), or nil when the rule has no more.
    mutating func next() -> Int64? {
        while true {
            if let earliest = pending.first, earliest <= floor {
                pending.removeFirst()
                if earliest == lastHandedOut { continue }
                lastHandedOut = earliest
                return earliest
            }
            guard let wall = cursor.next() else {
                guard !pending.isEmpty else { return nil }
                floor = .max
                continue
            }
            let resolution = resolver.resolve(wall: wall)
            pending.insert(resolution.instant, at: pending.firstIndex { $0 > resolution.instant } ?? pending.endIndex)
            floor = resolution.laterFloor
        }
    }
}
