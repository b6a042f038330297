/// Timestamps as text: ISO-8601 milliseconds in UTC (`2026-11-30T16:45:00.250Z`) and fixed-width
/// uppercase hex, the pieces of sync's hybrid logical clock and of the change log's times.
///
/// Written by hand rather than with `Date.ISO8601FormatStyle`: the sync store formats or parses a
/// timestamp for every change it merges (a hundred thousand in the benchmark), and the record API
/// one per write batch (the formatter took about 8 µs of it); the format is fixed, so the
/// civil-date arithmetic (Howard Hinnant's `days_from_civil`) is both simple to check and far
/// cheaper than a formatter. Nothing here allocates but the `String` results.
public enum TimestampText {
    /// Writes ASCII into a buffer, from its start.
    ///
    /// Inlinable, as everything here: sync's store writes and reads a timestamp per change merged,
    /// and a call across modules per byte would cost more than the byte.
    public struct Writer {
        @usableFromInline let buffer: UnsafeMutableBufferPointer<UInt8>
        @usableFromInline var written = 0

        /// How many bytes have been written.
        @inlinable public var count: Int { written }

        /// A writer at the start of `buffer`, which must hold what will be written.
        @inlinable public init(_ buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }

        /// Writes one byte.
        @inlinable public mutating func byte(_ value: UInt8) {
            buffer[written] = value
            written += 1
        }

        /// `value` as exactly `digits` uppercase hex digits (the low bits).
        @inlinable public mutating func hex(_ value: UInt64, digits: Int) {
            // A plain loop: `stride` is generic, and unoptimised builds pay for that per digit.
            var shift = (digits - 1) * 4
            while shift >= 0 {
                let digit = UInt8((value >> UInt64(shift)) & 0xF)
                byte(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "A") + digit - 10)
                shift -= 4
            }
        }

        /// `value` (≥ 0) as exactly `width` decimal digits.
        @inlinable public mutating func decimal(_ value: Int64, width: Int) {
            var divisor: Int64 = 1
            for _ in 1..<width { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                byte(UInt8(ascii: "0") + UInt8(rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }

        /// `YYYY-MM-DDTHH:MM:SS.mmmZ` (24 bytes) for milliseconds since the epoch (≥ 0).
        @inlinable public mutating func iso(millis: Int64) {
            let days = millis / 86_400_000
            let inDay = millis % 86_400_000
            let (year, month, day) = GregorianDays.date(days: days)
            decimal(year, width: 4)
            byte(UInt8(ascii: "-"))
            decimal(month, width: 2)
            byte(UInt8(ascii: "-"))
            decimal(day, width: 2)
            byte(UInt8(ascii: "T"))
            decimal(inDay / 3_600_000, width: 2)
            byte(UInt8(ascii: ":"))
            decimal(inDay / 60_000 % 60, width: 2)
            byte(UInt8(ascii: ":"))
            decimal(inDay / 1000 % 60, width: 2)
            byte(UInt8(ascii: "."))
            decimal(inDay % 1000, width: 3)
            byte(UInt8(ascii: "Z"))
        }
    }

    /// The ISO text of a millisecond count (≥ 0, before the year 10000).
    @inlinable public static func iso(millis: Int64) -> String {
        String(unsafeUninitializedCapacity: 24) { buffer in
            var writer = Writer(buffer)
            writer.iso(millis: millis)
            return writer.count
        }
    }

    /// Uppercase hex digits (1 to 16 of them) as a number, or nil.
    @inlinable public static func parseHex(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard !bytes.isEmpty, bytes.count <= 16 else { return nil }
        var value: UInt64 = 0
        for index in 0..<bytes.count {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }

    /// Milliseconds since the epoch of exactly `YYYY-MM-DDTHH:MM:SS.mmmZ`, or nil if it is not that
    /// or names no real instant (month 13, February 30, hour 24).
    @inlinable public static func parseISO(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard b.count == 24, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T"),
              b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"), b[19] == UInt8(ascii: "."),
              b[23] == UInt8(ascii: "Z"),
              let year = number(b, 0, 4), let month = number(b, 5, 2), let day = number(b, 8, 2),
              let hour = number(b, 11, 2), let minute = number(b, 14, 2), let second = number(b, 17, 2),
              let milli = number(b, 20, 3),
              (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 60
        else { return nil }
        let days = GregorianDays.days(year: year, month: month, day: day)
        return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + milli
    }

    @usableFromInline static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int64? {
        var value: Int64 = 0
        var index = start
        while index < start + count {
            let byte = bytes[index]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            index += 1
        }
        return value
    }

    @usableFromInline static func isLeap(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    @usableFromInline static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
