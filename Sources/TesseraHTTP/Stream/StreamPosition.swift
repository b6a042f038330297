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
    /// starts from now). `nil` when it is none of these.
    static func parse(_ text: String) -> (notification: Int64?, event: Int64?)? {
        var notification: Int64?
        var event: Int64?
        for part in text.trimmingCharacters(in: .whitespaces).split(separator: ".", omittingEmptySubsequences: false) {
            guard part.count > 2, let number = Int64(part.dropFirst(2)), number >= 0 else { return nil }
            switch part.prefix(2) {
            case "n-" where notification == nil: notification = number
            case "e-" where event == nil: event = number
            default: return nil
            }
        }
        return notification == nil && event == nil ? nil : (notification, event)
    }
}
