import Foundation

/// Where a client of `GET /v1/stream` is: the last inbox entry and the last event it was sent.
///
/// Every message's SSE `id` is the whole position after it, `n-<inbox id>.e-<event position>`
/// (`n-12.e-40`), so the one `Last-Event-ID` a reconnecting client sends resumes both kinds at
/// once — an id naming only the message itself (`n-12`) would lose the place in the other kind.
/// A notification's id starts with its own inbox id; an event's ends with its own position.
struct StreamPosition: Equatable, Sendable {
    /// The id of the last inbox entry sent (inbox ids increase in delivery order).
    var notification: Int64
    /// The host-wide position of the last event sent (``TesseraEvents/EventLog/events(afterPosition:limit:)``).
    var event: Int64

    /// The SSE id: `n-12.e-40`.
    var id: String { "n-\(notification).e-\(event)" }

    /// What a `Last-Event-ID` says: `n-12.e-40`, or one part alone (`n-12`, `e-40`: the other kind
    /// starts from now); both parts `nil` for an empty one (as if none was sent: a browser sends
    /// none after an empty `id:`). `nil` when it is none of these. Exactly what ``pattern`` allows.
    static func parse(_ text: String) -> (notification: Int64?, event: Int64?)? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return (nil, nil) }
        let parts = trimmed.split(separator: ".", omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            if let n = number(parts[0], after: "n-") { return (n, nil) }
            if let e = number(parts[0], after: "e-") { return (nil, e) }
            return nil
        case 2:
            guard let n = number(parts[0], after: "n-"), let e = number(parts[1], after: "e-") else { return nil }
            return (n, e)
        default:
            return nil
        }
    }

    /// The id's form, as the OpenAPI document states it: at most 18 digits a part, so every number
    /// fits in 64 bits.
    static let pattern = "^(n-[0-9]{1,18}(\\.e-[0-9]{1,18})?|e-[0-9]{1,18})?$"

    /// The number after `prefix` in `part`: 1 to 18 ASCII digits.
    private static func number(_ part: Substring, after prefix: String) -> Int64? {
        guard part.hasPrefix(prefix) else { return nil }
        let digits = part.dropFirst(prefix.count)
        guard (1...18).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int64(digits)
    }
}
