import Foundation

/// A `Range: bytes=…` request header read against a file's size (RFC 9110 §14): one range is
/// served as 206; a range that starts past the end is 416; anything else (several ranges, another
/// unit, text that does not parse) is ignored and the whole file is served, as the RFC allows.
enum ByteRange: Equatable {
    /// Bytes `first` through `last`, both included.
    case satisfiable(first: Int64, last: Int64)
    /// No byte of the file is in the range.
    case unsatisfiable
    /// Serve the whole file.
    case ignored

    init(header: String, size: Int64) {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix("bytes="), !text.contains(",") else { self = .ignored; return }
        let spec = text.dropFirst("bytes=".count)
        guard let dash = spec.firstIndex(of: "-") else { self = .ignored; return }
        let start = spec[..<dash].trimmingCharacters(in: .whitespaces), end = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        switch (Int64(start), Int64(end)) {
        case (nil, let suffix?) where start.isEmpty:  // bytes=-500: the last 500 bytes
            guard suffix > 0, size > 0 else { self = .unsatisfiable; return }
            self = .satisfiable(first: max(0, size - suffix), last: size - 1)
        case (let first?, nil) where end.isEmpty:
            self = first < size ? .satisfiable(first: first, last: size - 1) : .unsatisfiable
        case (let first?, let last?) where first <= last:
            self = first < size ? .satisfiable(first: first, last: min(last, size - 1)) : .unsatisfiable
        default:
            self = .ignored
        }
    }
}
