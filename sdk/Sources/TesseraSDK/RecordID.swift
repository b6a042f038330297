import Foundation
import Synchronization

/// Ids for new records that keep a table's rows in the order they were made.
///
/// A random id (`UUID()`, a version 4 UUID) puts each new row at a random place in every index
/// keyed by it: the plugin's table and, when the table is synced, the host's sync metadata beside
/// it, on every device that holds a copy. Once those indexes outgrow SQLite's page cache, each new
/// row reads and rewrites a page of its own. A time-ordered id puts new rows side by side at the
/// end of each index, so a batch of new rows touches a few pages however large the table has grown
/// (docs/benchmarks.md, "Time-ordered record ids").
///
/// ```swift
/// let id = RecordID.timeOrdered(at: clock.now())
/// try await storage.write { $0.put("entries", id: id, ["note": "first smile"]) }
/// ```
///
/// Pass the instant from the plugin's ``HostClock``, never the wall clock: under a virtual clock the
/// ids then follow the programme's time like every other date the plugin writes.
public enum RecordID {
    /// A new record id made at `instant`: a version 7 UUID (RFC 9562) as 36 lowercase characters,
    /// like `0195d3a2-5c00-7a3f-9b12-4e5f6a7b8c9d`.
    ///
    /// - Its first 48 bits are `instant` in Unix milliseconds, so ids sort by the time they were
    ///   made: byte order, text order and time order agree.
    /// - The next 12 bits count up within one millisecond (from a random start), so ids made in this
    ///   process in the same millisecond sort in the order they were made. The counter starts again
    ///   when an id for another millisecond (another clock) is made in between, or when it runs out
    ///   (after at least 2,048 ids in that millisecond).
    /// - The last 62 bits are random: ids made on different devices at the same instant differ.
    ///
    /// Anyone who reads the id can read the millisecond it was made at. Use it for a record's
    /// identity, never as a secret (a share link's token): those want all their bits random.
    public static func timeOrdered(at instant: Date) -> String {
        let milliseconds = Self.milliseconds(instant)
        let counter = sequence.withLock { state -> UInt16 in
            if state.millisecond == milliseconds, state.counter < 0xFFF {
                state.counter += 1
            } else {
                // A new millisecond (or an exhausted one, or a clock set back): start low enough
                // to count up 2,048 ids before the 12 bits run out.
                state = (milliseconds, UInt16.random(in: 0...0x7FF))
            }
            return state.counter
        }
        let tail = UInt64.random(in: .min ... .max)
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<6 { bytes[i] = UInt8(truncatingIfNeeded: milliseconds >> (40 - 8 * i)) }
        bytes[6] = 0x70 | UInt8(counter >> 8)
        bytes[7] = UInt8(truncatingIfNeeded: counter)
        for i in 0..<8 { bytes[8 + i] = UInt8(truncatingIfNeeded: tail >> (56 - 8 * i)) }
        bytes[8] = 0x80 | (bytes[8] & 0x3F)
        return text(bytes)
    }

    /// The last id's millisecond and counter, shared by every caller in the process.
    private static let sequence = Mutex<(millisecond: Int64, counter: UInt16)>((-1, 0))

    /// `instant` in whole Unix milliseconds, kept within the 48 bits the id has for them.
    private static func milliseconds(_ instant: Date) -> Int64 {
        let value = (instant.timeIntervalSince1970 * 1000).rounded(.down)
        guard value.isFinite, value > 0 else { return 0 }
        return Int64(min(value, Double((Int64(1) << 48) - 1)))
    }

    /// The 16 bytes as the UUID's text form: lowercase hex in groups of 8-4-4-4-12.
    private static func text(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (i, byte) in bytes.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { out.append(UInt8(ascii: "-")) }
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
