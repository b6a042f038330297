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
enum UUIDText {
    private static let dashes: Set<Int> = [8, 13, 18, 23]

    /// The 16 bytes of `text` and whether its letters are uppercase, if it is a canonical UUID
    /// that ``text(_:uppercase:)`` gives back exactly.
    static func pack(_ text: String) -> (bytes: [UInt8], uppercase: Bool)? {
        let utf8 = text.utf8
        guard utf8.count == 36 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        var high: UInt8?
        var sawLower = false, sawUpper = false
        for (i, c) in utf8.enumerated() {
            if dashes.contains(i) {
                guard c == UInt8(ascii: "-") else { return nil }
                continue
            }
            let nibble: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = c - UInt8(ascii: "a") + 10; sawLower = true
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = c - UInt8(ascii: "A") + 10; sawUpper = true
            default: return nil
            }
            if let h = high { bytes.append(h << 4 | nibble); high = nil } else { high = nibble }
        }
        guard !(sawLower && sawUpper) else { return nil }
        return (bytes, sawUpper)
    }

    /// The canonical text of 16 bytes.
    static func text(_ bytes: ArraySlice<UInt8>, uppercase: Bool) -> String {
        let digits = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
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
