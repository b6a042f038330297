/// Finds a file's media type from its content, never from a name: magic bytes for the binary
/// formats the host knows (JPEG, PNG, GIF, WebP, HEIC, PDF), and for the rest whether the whole
/// content is UTF-8 text (`text/plain`) that parses as JSON (`application/json`).
///
/// Fed chunk by chunk, as a file is written: it keeps the first bytes and a few bytes of UTF-8
/// state, never the file.
public struct MediaSniffer: Sendable {
    /// The media types the sniffer can recognise; a manifest may declare only these (and
    /// `application/octet-stream`, which accepts any content).
    public static let recognised: Set<String> = [
        "image/jpeg", "image/png", "image/gif", "image/webp", "image/heic", "application/pdf", "text/plain", "application/json",
    ]
    /// Accepts any content, recognised or not.
    public static let anyContent = "application/octet-stream"

    /// How many leading bytes the magic checks need.
    static let headLength = 16
    private(set) var head: [UInt8] = []
    private var text = UTF8TextCheck()
    /// The first byte that is not JSON whitespace, if any.
    private(set) var firstNonSpace: UInt8?

    public init() {}

    /// Reads the next bytes of the content.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        if head.count < Self.headLength {
            head.append(contentsOf: bytes.prefix(Self.headLength - head.count))
        }
        if firstNonSpace == nil, let byte = bytes.first(where: { !Self.isJSONSpace($0) }) { firstNonSpace = byte }
        // Once the magic names a binary format, the text check is moot (and the costliest part).
        if head.count >= Self.headLength, Self.magic(head) != nil { return }
        text.feed(bytes)
    }

    /// The media type found once the whole content was fed: a magic type, else `application/json`
    /// when the content is text that `parsesAsJSON` (asked only for text opening with `{` or `[`),
    /// else `text/plain` for text, else `nil` (not a type the host recognises).
    public func mediaType(parsesAsJSON: () -> Bool) -> String? {
        if let type = Self.magic(head) { return type }
        guard text.isText else { return nil }
        if let first = firstNonSpace, first == UInt8(ascii: "{") || first == UInt8(ascii: "["), parsesAsJSON() {
            return "application/json"
        }
        return "text/plain"
    }

    /// The binary format the leading bytes announce, if any.
    static func magic(_ head: [UInt8]) -> String? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + prefix.count && Array(head[offset..<offset + prefix.count]) == prefix
        }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return "image/gif" }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return "image/webp" }
        if starts(Array("%PDF-".utf8)) { return "application/pdf" }
        // ISO base media file: a box size, `ftyp`, then the major brand.
        if starts(Array("ftyp".utf8), at: 4), head.count >= 12 {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            if ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"].contains(brand) { return "image/heic" }
        }
        return nil
    }

    static func isJSONSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
}

/// Whether bytes fed in pieces are UTF-8 text: well-formed (no overlong forms, surrogates or
/// values past U+10FFFF, checked across piece boundaries) with no control characters but tab, line
/// feed, form feed and carriage return.
struct UTF8TextCheck: Sendable {
    private var valid = true
    /// Continuation bytes still expected for the current character.
    private var needed = 0
    /// The range the next continuation byte must be in (narrower after E0, ED, F0, F4).
    private var low: UInt8 = 0x80
    private var high: UInt8 = 0xBF

    /// Whether everything fed so far is text, ending on a whole character.
    var isText: Bool { valid && needed == 0 }

    mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        guard valid else { return }
        for byte in bytes {
            if needed > 0 {
                guard byte >= low && byte <= high else { valid = false; return }
                needed -= 1
                (low, high) = (0x80, 0xBF)
                continue
            }
            switch byte {
            case 0x09, 0x0A, 0x0C, 0x0D, 0x20...0x7E: continue
            case 0xC2...0xDF: needed = 1
            case 0xE0: needed = 2; low = 0xA0
            case 0xE1...0xEC, 0xEE, 0xEF: needed = 2
            case 0xED: needed = 2; high = 0x9F
            case 0xF0: needed = 3; low = 0x90
            case 0xF1...0xF3: needed = 3
            case 0xF4: needed = 3; high = 0x8F
            default: valid = false; return
            }
        }
    }
}
