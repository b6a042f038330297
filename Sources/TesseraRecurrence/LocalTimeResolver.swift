import Foundation

/// Converts between instants and local ("wall") times in one zone, with RFC 5545's rules for the
/// hours daylight-saving time skips or repeats.
///
/// Both kinds of time are whole seconds from 2001-01-01 00:00 (UTC for instants, local for wall
/// times). The zone is asked only for its UTC offset at an instant, about 80 ns per question on
/// Linux; nothing else about it is cached.
///
/// Assumes a zone's offset changes at most once in any 36 hours and always stays within ±18 hours
/// of UTC (Foundation's own limit), which holds for every zone in the tz database.
struct LocalTimeResolver: Sendable {
    /// Where a wall time lands: the instant it means, and a floor under the instant of every later
    /// wall time (see ``OccurrenceStream`` for why the floor is needed).
    struct Resolution {
        let instant: Int64
        let laterFloor: Int64
    }

    /// The widest a UTC offset can be, in seconds.
    static let maximumOffset: Int64 = 18 * 3600

    let timeZone: TimeZone

    func offset(at instant: Int64) -> Int64 {
        Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSinceReferenceDate: Double(instant))))
    }

    func wall(at instant: Int64) -> Int64 {
        instant + offset(at: instant)
    }

    /// The instant of a wall time.
    ///
    /// Any instant showing `wall` lies within ±18 hours of it, so the zone's offsets 18 hours either
    /// side are the only candidates. With one offset, there is one instant. With two (a change in
    /// between), each is tried: both fitting means the wall time happens twice (autumn), and the
    /// earlier instant is taken; neither fitting means it falls in the spring-forward gap, and it is
    /// read with the offset before the gap, which moves it forward by the gap's length (RFC 5545
    /// §3.3.5: 02:30 on a day clocks jump from 02:00 to 03:00 means 03:30).
    func resolve(wall: Int64) -> Resolution {
        let before = offset(at: wall - Self.maximumOffset)
        let after = offset(at: wall + Self.maximumOffset)
        if before == after { return Resolution(instant: wall - before, laterFloor: wall - before) }
        let fitsBefore = offset(at: wall - before) == before
        let fitsAfter = offset(at: wall - after) == after
        switch (fitsBefore, fitsAfter) {
        case (true, true):
            let first = wall - max(before, after)
            return Resolution(instant: first, laterFloor: first)
        case (true, false):
            return Resolution(instant: wall - before, laterFloor: wall - before)
        case (false, true):
            return Resolution(instant: wall - after, laterFloor: wall - after)
        case (false, false):
            // In the gap: later wall times just past it map below this instant (03:15 comes before
            // "02:30 → 03:30"), down to no less than this wall time read with the new offset.
            return Resolution(instant: wall - before, laterFloor: wall - after)
        }
    }

    /// The earliest wall time from which a walk must start to meet every instant after `instant`:
    /// no wall time before it lands after `instant`.
    ///
    /// Usually the local time of `instant` itself. If the offset changed in the 36 hours before,
    /// the smaller of the two offsets is used, which reaches back over a spring-forward gap whose
    /// wall times land just after `instant`.
    func firstWall(reaching instant: Int64) -> Int64 {
        let now = offset(at: instant)
        let earlier = offset(at: instant - 2 * Self.maximumOffset)
        return instant + min(now, earlier)
    }
}
