/// The `format` values that are checked. Any other format is an annotation only.
enum Format: String, Sendable, CaseIterable {
    case date
    case dateTime = "date-time"
    case time
    case email
    case uuid
    case uri

    /// What a violation says was expected.
    var expected: String {
        switch self {
        case .date: return "a date (YYYY-MM-DD)"
        case .dateTime: return "a date-time (RFC 3339, such as 2024-01-31T09:30:00Z)"
        case .time: return "a time with offset (RFC 3339, such as 09:30:00Z)"
        case .email: return "an email address"
        case .uuid: return "a UUID"
        case .uri: return "a URI with a scheme"
        }
    }

    func accepts(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { b in
            switch self {
            case .date: return FormatCheck.fullDate(b[...])
            case .dateTime: return FormatCheck.dateTime(b)
            case .time: return FormatCheck.fullTime(b[...])
            case .email: return FormatCheck.email(b)
            case .uuid: return FormatCheck.uuid(b)
            case .uri: return FormatCheck.uri(b)
            }
        }
    }
}

enum FormatCheck {
    static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
    static func isAlpha(_ c: UInt8) -> Bool { (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) }
    static func isHex(_ c: UInt8) -> Bool {
        isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
    }

    /// `n` digits at `i`, as a number, or nil.
    static func digits(_ b: Slice<UnsafeBufferPointer<UInt8>>, _ i: Int, _ n: Int) -> Int? {
        guard i >= b.startIndex, i + n <= b.endIndex else { return nil }
        var v = 0
        for k in i..<i + n {
            guard isDigit(b[k]) else { return nil }
            v = v * 10 + Int(b[k] - 0x30)
        }
        return v
    }

    static let atomSpecials: Set<UInt8> = Set("!#$%&'*+-/=?^_`{|}~".utf8)
    static let uriCharacters: Set<UInt8> = Set("-._~:/?#[]@!$&'()*+,;=".utf8)

    static func isLeapYear(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    static func daysInMonth(_ m: Int, year y: Int) -> Int {
        switch m {
        case 2: return isLeapYear(y) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// RFC 3339 `full-date`: `YYYY-MM-DD`, a real day of the Gregorian calendar.
    static func fullDate(_ b: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        let s = b.startIndex
        guard b.count == 10, b[s + 4] == 0x2D, b[s + 7] == 0x2D,
              let y = digits(b, s, 4), let m = digits(b, s + 5, 2), let d = digits(b, s + 8, 2)
        else { return false }
        return (1...12).contains(m) && d >= 1 && d <= daysInMonth(m, year: y)
    }

    /// RFC 3339 `full-time`: `HH:MM:SS[.fraction]` then `Z` or `±HH:MM`. A leap second (`:60`) is
    /// accepted only when it falls at 23:59 UTC.
    static func fullTime(_ b: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        let s = b.startIndex
        guard b.count >= 9, b[s + 2] == 0x3A, b[s + 5] == 0x3A,
              let h = digits(b, s, 2), let mi = digits(b, s + 3, 2), let sec = digits(b, s + 6, 2),
              h <= 23, mi <= 59, sec <= 60
        else { return false }
        var i = s + 8
        if i < b.endIndex, b[i] == 0x2E {  // "."
            i += 1
            let start = i
            while i < b.endIndex, isDigit(b[i]) { i += 1 }
            guard i > start else { return false }
        }
        guard i < b.endIndex else { return false }
        var offsetMinutes = 0
        switch b[i] {
        case 0x5A, 0x7A:  // Z z
            guard i + 1 == b.endIndex else { return false }
        case 0x2B, 0x2D:  // + -
            guard i + 6 == b.endIndex, b[i + 3] == 0x3A,
                  let oh = digits(b, i + 1, 2), let om = digits(b, i + 4, 2), oh <= 23, om <= 59
            else { return false }
            offsetMinutes = (oh * 60 + om) * (b[i] == 0x2B ? 1 : -1)
        default:
            return false
        }
        if sec == 60 {
            let utc = ((h * 60 + mi - offsetMinutes) % 1440 + 1440) % 1440
            return utc == 23 * 60 + 59
        }
        return true
    }

    /// RFC 3339 `date-time`: `full-date "T" full-time` (`T` and `Z` in either case).
    static func dateTime(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard b.count >= 20, b[10] == 0x54 || b[10] == 0x74 else { return false }
        return fullDate(b[0..<10]) && fullTime(b[11...])
    }

    /// `8-4-4-4-12` hexadecimal digits.
    static func uuid(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard b.count == 36 else { return false }
        for (i, c) in b.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                if c != 0x2D { return false }
            } else if !isHex(c) {
                return false
            }
        }
        return true
    }

    /// A simple address check: `local@domain`, where the local part is dot-separated atoms of
    /// printable characters and the domain is at least two dot-separated labels of letters, digits
    /// and inner hyphens.
    static func email(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let at = b.lastIndex(of: 0x40), at > 0, at < b.count - 1 else { return false }
        let local = b[..<at], domain = b[(at + 1)...]
        guard local.count <= 64, domain.count <= 253 else { return false }
        var previousDot = true
        for c in local {
            if c == 0x2E {
                if previousDot { return false }
                previousDot = true
            } else if isAlpha(c) || isDigit(c) || atomSpecials.contains(c) || c >= 0x80 {
                previousDot = false
            } else {
                return false
            }
        }
        if previousDot { return false }
        let labels = domain.split(separator: 0x2E, omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return false }
        for label in labels {
            guard let first = label.first, let last = label.last, label.count <= 63,
                  first != 0x2D, last != 0x2D,
                  label.allSatisfy({ isAlpha($0) || isDigit($0) || $0 == 0x2D || $0 >= 0x80 })
            else { return false }
        }
        return true
    }

    /// An absolute URI (RFC 3986): a scheme, `:`, then only URI characters and valid `%HH` escapes.
    static func uri(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let colon = b.firstIndex(of: 0x3A), colon > 0, isAlpha(b[0]) else { return false }
        for c in b[1..<colon] where !(isAlpha(c) || isDigit(c) || c == 0x2B || c == 0x2D || c == 0x2E) {
            return false
        }
        var i = colon + 1
        while i < b.count {
            let c = b[i]
            if c == 0x25 {  // %
                guard i + 2 < b.count, isHex(b[i + 1]), isHex(b[i + 2]) else { return false }
                i += 3
                continue
            }
            guard isAlpha(c) || isDigit(c) || uriCharacters.contains(c) else { return false }
            i += 1
        }
        return true
    }
}
