import Foundation
import TesseraSDK

/// A hybrid logical clock (Kulkarni et al.), with Actual Budget's rules and guards.
///
/// Its readings follow the host's physical clock where it can, and never go backwards or repeat:
/// after taking in a remote timestamp, every later reading is greater than it, so a change made
/// after seeing another change always orders after it, whatever the two devices' clocks say.
///
/// - ``send()`` stamps a local change: `l = max(l_old, now)`; the counter goes up by one if `l`
///   did not move, else restarts at 0.
/// - ``receive(_:)`` takes in a remote timestamp: `l = max(l_old, l_remote, now)`, the counter one
///   past the largest counter among those at `l` (0 if only `now` is).
/// - Both refuse a clock more than ``maxDrift`` ahead of the physical clock (five minutes, as
///   Actual's), and a counter past `0xFFFF`.
///
/// The physical clock is injected: the host's clock capability on a device, a fixed or virtual
/// clock in tests. A value type: the ``SyncStore`` holds one behind its lock and persists its last
/// reading, so a restart never reuses a timestamp.
public struct HybridLogicalClock: Sendable {
    /// The node stamped on every reading.
    public let node: HLCNode
    /// How far a clock may run ahead of the physical clock, in milliseconds.
    public let maxDriftMillis: Int64
    /// The last reading (sent or received), as millis and counter.
    public private(set) var last: (millis: Int64, counter: UInt16)
    private let now: @Sendable () -> Date

    /// Five minutes, Actual Budget's `maxDrift`.
    public static let defaultMaxDrift: Duration = .seconds(300)

    /// A clock for `node` reading the physical time from `now`, resuming after `last` (a reading
    /// persisted before a restart; `nil` for a new clock).
    public init(node: HLCNode, now: @escaping @Sendable () -> Date, maxDrift: Duration = defaultMaxDrift,
                resumingAfter last: HLCTimestamp? = nil) {
        self.node = node
        self.now = now
        self.maxDriftMillis = Int64((maxDrift.timeInterval * 1000).rounded())
        self.last = last.map { ($0.millis, $0.counter) } ?? (0, 0)
    }

    /// The last reading as a timestamp of this node.
    public var lastTimestamp: HLCTimestamp {
        // last.millis is always in range: it came from a valid timestamp or a checked reading.
        HLCTimestamp(checkedMillis: last.millis, counter: last.counter, node: node)
    }

    /// The physical time in milliseconds since the epoch.
    private func physicalMillis() throws -> Int64 {
        let seconds = now().timeIntervalSince1970
        let millis = Int64((seconds * 1000).rounded(.down))
        guard (HLCTimestamp.minimumMillis...HLCTimestamp.maximumMillis).contains(millis) else {
            throw HLCError.outOfRange(millis: millis)
        }
        return millis
    }

    /// A new reading for a local change: greater than every earlier reading and every timestamp
    /// received.
    ///
    /// - Throws: ``HLCError/clockDrift(clock:physical:maxDrift:remote:)`` if this clock is more than
    ///   ``maxDriftMillis`` ahead of the physical clock (it took in a timestamp from a device whose
    ///   clock ran ahead, and the host's clock has not caught up); ``HLCError/counterOverflow(millis:)``.
    public mutating func send() throws -> HLCTimestamp {
        let physical = try physicalMillis()
        let millis = max(last.millis, physical)
        let counter = millis == last.millis ? Int(last.counter) + 1 : 0
        try check(millis: millis, counter: counter, physical: physical, remote: false)
        last = (millis, UInt16(counter))
        return HLCTimestamp(checkedMillis: millis, counter: UInt16(counter), node: node)
    }

    /// Takes in the timestamp of a remote change, so that later local readings order after it.
    ///
    /// - Throws: ``HLCError/clockDrift(clock:physical:maxDrift:remote:)`` naming the remote time
    ///   and this host's time if `remote` is more than ``maxDriftMillis`` ahead of the physical clock;
    ///   ``HLCError/counterOverflow(millis:)``. The clock is unchanged then.
    public mutating func receive(_ remote: HLCTimestamp) throws {
        let physical = try physicalMillis()
        guard remote.millis - physical <= maxDriftMillis else {
            throw HLCError.clockDrift(clock: remote.millis, physical: physical, maxDrift: maxDriftMillis, remote: true)
        }
        let millis = max(last.millis, physical, remote.millis)
        let counter: Int
        switch (millis == last.millis, millis == remote.millis) {
        case (true, true): counter = Int(max(last.counter, remote.counter)) + 1
        case (true, false): counter = Int(last.counter) + 1
        case (false, true): counter = Int(remote.counter) + 1
        case (false, false): counter = 0
        }
        try check(millis: millis, counter: counter, physical: physical, remote: false)
        last = (millis, UInt16(counter))
    }

    private func check(millis: Int64, counter: Int, physical: Int64, remote: Bool) throws {
        guard millis - physical <= maxDriftMillis else {
            throw HLCError.clockDrift(clock: millis, physical: physical, maxDrift: maxDriftMillis, remote: remote)
        }
        guard counter <= Int(UInt16.max) else { throw HLCError.counterOverflow(millis: millis) }
    }
}
