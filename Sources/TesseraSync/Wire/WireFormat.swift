/// The binary encoding of a batch of changes, as a device and the hub will exchange them.
///
/// Designed for the hub's budget of at most 80 bytes per change on the wire, without compression:
/// what repeats is said once, and numbers take the bytes their size needs.
///
/// ```
/// batch   = "TSY1" · varint(records) · record*
/// record  = str(space) · str(table) · row · zigzag(millis − previous record's millis)
///           · varint(counter) · node · varint(causal length) · varint(cells << 1 | existence) · cell*
/// cell    = str(column) · tag · payload · [varint(n) · stamp*n]      (the list if tag bit 3 is set)
/// stamp   = zigzag(millis − the record's millis) · varint(counter) · node   (a superseded write)
/// tag     = type (0 null, 1 integer, 2 real, 3 text, 4 blob) | 8 if the cell supersedes writes
/// payload = integer: zigzag varint · real: 8 bytes, IEEE bits little-endian · text, blob: varint(length) · bytes
/// str     = varint(0) · varint(length) · UTF-8   (a new string, numbered in order of appearance)
///         | varint(n ≥ 1)                        (string n − 1)
/// row     = varint(0) · varint(length) · UTF-8   (a new row id)
///         | varint(1 or 2) · 16 bytes            (a new row id that is a UUID, lowercase or uppercase)
///         | varint(n ≥ 3)                        (row id n − 3)
/// node    = varint(0) · 8 bytes little-endian    (a new node) | varint(n ≥ 1)  (node n − 1)
/// ```
///
/// - A **record** is one record change's worth: consecutive changes of one row with the same
///   timestamp and causal length (a put's existence change and its cells). The existence change,
///   if any, comes first.
/// - Spaces, tables and columns share one string table; row ids and nodes have their own.
/// - varint is unsigned LEB128; zigzag maps signed to unsigned (0, −1, 1, −2 … → 0, 1, 2, 3 …).
/// - Decoding checks everything (magic, lengths, references, UTF-8, timestamp range) and never
///   trusts a count for an allocation.
public enum SyncWire {
    /// The four bytes every batch starts with (format version 1).
    public static let magic: [UInt8] = Array("TSY1".utf8)

    /// The encoding of `changes`, in their order.
    public static func encode(_ changes: [SyncChange]) -> [UInt8] {
        var encoder = ChangeEncoder()
        return encoder.encode(changes)
    }

    /// The changes of an encoded batch, in their order.
    ///
    /// - Throws: ``SyncError/malformedEncoding(_:)`` saying where the bytes went wrong.
    public static func decode(_ bytes: [UInt8]) throws -> [SyncChange] {
        var decoder = ChangeDecoder(bytes)
        return try decoder.decode()
    }
}

/// The value types' tags.
enum WireTag {
    static let null: UInt8 = 0, integer: UInt8 = 1, real: UInt8 = 2, text: UInt8 = 3, blob: UInt8 = 4
    static let typeMask: UInt8 = 7
    static let supersedes: UInt8 = 8
}

/// Row-id kinds, before the row table's references.
enum WireRow {
    static let text: UInt64 = 0, lowercaseUUID: UInt64 = 1, uppercaseUUID: UInt64 = 2, firstReference: UInt64 = 3
}

/// The zigzag mapping of signed to unsigned integers.
enum ZigZag {
    static func encode(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }
    static func decode(_ value: UInt64) -> Int64 { Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1) }
}

/// Canonical UUID text (8-4-4-4-12 hex digits, one case) as 16 bytes and back.
///
/// Both run once per distinct row of every batch sent or received, so they index plain buffers
/// rather than iterate generic sequences (which unoptimised builds pay for per character).
enum UUIDText {
    /// The 16 bytes of `text` and whether its letters are uppercase, if it is a canonical UUID
    /// that ``text(_:uppercase:)`` gives back exactly.
    static func pack(_ text: String) -> (bytes: [UInt8], uppercase: Bool)? {
        guard text.utf8.count == 36 else { return nil }
        var text = text
        return text.withUTF8 { utf8 -> (bytes: [UInt8], uppercase: Bool)? in
            var bytes = [UInt8](repeating: 0, count: 16)
            var packed = 0
            var high: UInt8 = 0
            var haveHigh = false
            var sawLower = false, sawUpper = false
            for i in 0..<36 {
                let c = utf8[i]
                if i == 8 || i == 13 || i == 18 || i == 23 {
                    guard c == UInt8(ascii: "-") else { return nil }
                    continue
                }
                let nibble: UInt8
                if c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") {
                    nibble = c - UInt8(ascii: "0")
                } else if c >= UInt8(ascii: "a"), c <= UInt8(ascii: "f") {
                    nibble = c - UInt8(ascii: "a") + 10
                    sawLower = true
                } else if c >= UInt8(ascii: "A"), c <= UInt8(ascii: "F") {
                    nibble = c - UInt8(ascii: "A") + 10
                    sawUpper = true
                } else {
                    return nil
                }
                if haveHigh {
                    bytes[packed] = high << 4 | nibble
                    packed += 1
                    haveHigh = false
                } else {
                    high = nibble
                    haveHigh = true
                }
            }
            guard !(sawLower && sawUpper) else { return nil }
            return (bytes, sawUpper)
        }
    }

    private static let upperDigits = Array("0123456789ABCDEF".utf8)
    private static let lowerDigits = Array("0123456789abcdef".utf8)

    /// The canonical text of 16 bytes.
    static func text(_ bytes: ArraySlice<UInt8>, uppercase: Bool) -> String {
        let digits = uppercase ? upperDigits : lowerDigits
        let start = bytes.startIndex
        let count = bytes.count
        return String(unsafeUninitializedCapacity: count * 2 + 4) { out in
            var written = 0
            for i in 0..<count {
                if i == 4 || i == 6 || i == 8 || i == 10 {
                    out[written] = UInt8(ascii: "-")
                    written += 1
                }
                let byte = bytes[start + i]
                out[written] = digits[Int(byte >> 4)]
                out[written + 1] = digits[Int(byte & 0xF)]
                written += 2
            }
            return written
        }
    }
}
