import Foundation
import TesseraSystem

/// A hybrid logical clock reading: physical milliseconds, a logical counter, and the node that made it.
///
/// Its text is Actual Budget's collatable format, 46 characters:
///
///     2026-03-02T08:00:00.000Z-0001-00000000000000A1
///     ^ ISO-8601 UTC, milliseconds ^ counter (4 hex)  ^ node (16 hex)
///
/// Hex digits are uppercase, so that comparing two texts as byte strings (SQLite's `BINARY`
/// collation, `ORDER BY`) gives the same order as comparing the fields: millis, then counter, then
/// node. Timestamps made by different nodes never tie, which makes last-writer-wins a total order.
public struct HLCTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public let millis: Int64
    /// The logical counter: orders readings made in the same millisecond (at most `0xFFFF`).
    public let counter: UInt16
    /// The node (replica) that made the reading.
    public let node: HLCNode

    /// The earliest millisecond a timestamp may carry: the Unix epoch (the merkle key counts minutes
    /// from it, so earlier times have no key).
    public static let minimumMillis: Int64 = 0
    /// The last millisecond a timestamp may carry: the end of the merkle trie's key space,
    /// 3^17 minutes after the epoch (in the year 2215). See ``MerkleTrie``.
    public static let maximumMillis: Int64 = MerkleTrie.keySpaceMinutes * 60_000 - 1

    /// Creates a timestamp from its fields.
    ///
    /// - Throws: ``HLCError/outOfRange(millis:)`` if `millis` is outside
    ///   ``minimumMillis``...``maximumMillis``.
    public init(millis: Int64, counter: UInt16, node: HLCNode) throws {
        guard millis >= Self.minimumMillis, millis <= Self.maximumMillis else {
            throw HLCError.outOfRange(millis: millis)
        }
        self.millis = millis
        self.counter = counter
        self.node = node
    }

    /// A timestamp whose millis the caller has already checked to be in range.
    init(checkedMillis millis: Int64, counter: UInt16, node: HLCNode) {
        assert((Self.minimumMillis...Self.maximumMillis).contains(millis))
        self.millis = millis
        self.counter = counter
        self.node = node
    }

    /// The greatest timestamp of the millisecond before `millis`, or nil for the epoch: as a
    /// `since`, it selects every change made at `millis` or later (say, from a merkle
    /// ``MerkleTrie/diff(_:)`` time on).
    public static func latest(before millis: Int64) -> HLCTimestamp? {
        guard millis > minimumMillis else { return nil }
        return HLCTimestamp(checkedMillis: min(millis, maximumMillis + 1) - 1, counter: .max, node: HLCNode(.max))
    }

    /// Field order: millis, counter, node; the same as the order of the texts.
    public static func < (a: HLCTimestamp, b: HLCTimestamp) -> Bool {
        if a.millis != b.millis { return a.millis < b.millis }
        if a.counter != b.counter { return a.counter < b.counter }
        return a.node.value < b.node.value
    }

    /// The physical part as a date.
    public var date: Date { Date(timeIntervalSince1970: Double(millis) / 1000) }

    /// The 46-character collatable text.
    public var description: String { text }

    /// The 46-character collatable text.
    public var text: String {
        // Written straight into the string's storage: the store formats one per change.
        String(unsafeUninitializedCapacity: Self.textLength) { buffer in
            var writer = TimestampText.Writer(buffer)
            writer.iso(millis: millis)
            writer.byte(UInt8(ascii: "-"))
            writer.hex(UInt64(counter), digits: 4)
            writer.byte(UInt8(ascii: "-"))
            writer.hex(node.value, digits: 16)
            return writer.count
        }
    }

    /// The length of ``text``.
    public static let textLength = 46

    /// Parses the collatable text (exactly as ``text`` writes it: uppercase hex, UTC `Z`).
    ///
    /// - Throws: ``HLCError/malformed(_:)`` naming the text.
    public init(parsing text: String) throws {
        var text = text
        let fields = text.withUTF8 { bytes -> (Int64, UInt64, UInt64)? in
            guard bytes.count == Self.textLength, bytes[24] == UInt8(ascii: "-"), bytes[29] == UInt8(ascii: "-"),
                  let millis = TimestampText.parseISO(UnsafeBufferPointer(rebasing: bytes[0..<24])),
                  let counter = TimestampText.parseHex(UnsafeBufferPointer(rebasing: bytes[25..<29])),
                  let node = TimestampText.parseHex(UnsafeBufferPointer(rebasing: bytes[30..<46]))
            else { return nil }
            return (millis, counter, node)
        }
        guard let (millis, counter, node) = fields else { throw HLCError.malformed(text) }
        try self.init(millis: millis, counter: UInt16(counter), node: HLCNode(node))
    }
}

/// The identity of a replica in its timestamps: 64 bits, written as 16 uppercase hex digits.
///
/// Every database that syncs has its own node, chosen at random when its sync metadata is created
/// (Actual uses the last 16 hex digits of a UUID). Two replicas sharing a node could make equal
/// timestamps for different changes, so a copied database must get a new node.
public struct HLCNode: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The 64 bits.
    public let value: UInt64

    /// A node with the given bits.
    public init(_ value: UInt64) { self.value = value }

    /// A random node, from the system's random generator.
    public static func random() -> HLCNode {
        var generator = SystemRandomNumberGenerator()
        return HLCNode(generator.next())
    }

    /// Parses 16 hex digits.
    public init?(hex: String) {
        var hex = hex
        guard let value = hex.withUTF8({ $0.count == 16 ? TimestampText.parseHex($0) : nil }) else { return nil }
        self.value = value
    }

    /// 16 uppercase hex digits.
    public var description: String {
        String(unsafeUninitializedCapacity: 16) { buffer in
            var writer = TimestampText.Writer(buffer)
            writer.hex(value, digits: 16)
            return writer.count
        }
    }

    public static func < (a: HLCNode, b: HLCNode) -> Bool { a.value < b.value }
}
