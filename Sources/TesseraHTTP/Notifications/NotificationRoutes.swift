import Hummingbird
import TesseraNotifications
import TesseraRuntime
import TesseraSDK

/// `GET /v1/notifications` and `POST /v1/notifications/read`: the host's notification inbox, the
/// same one `tessera notifications list|read` shows. Any token reads it: a device host has one
/// person, and every entry is addressed to them (docs/notifications.md).
struct NotificationRoutes: Sendable {
    let host: any HostAPI
    let maxBodyBytes: Int

    /// The most entries one page returns.
    static let maxLimit: Int64 = 500

    /// `{"ids": [1, 2]}` or `{"all": true}`.
    static let readInput = RouteInput([
        "type": "object", "additionalProperties": false,
        "properties": [
            "ids": ["type": "array", "items": ["type": "integer", "minimum": 1, "maximum": 9_223_372_036_854_775_807], "minItems": 1, "maxItems": 1000],
            "all": ["const": true],
        ],
        "oneOf": [["required": ["ids"]], ["required": ["all"]]],
    ])

    /// `GET /v1/notifications?unread=true&after=ID&limit=N`: newest first; with `after`, the entries
    /// after that id oldest first (for catching up). Also the delivery counters.
    func list(_ request: Request, context: APIRequestContext) throws -> Response {
        let query = QueryParameters(request)
        let unread = try query.bool("unread") ?? false
        let after = try query.integer("after", in: 0...Int64.max)
        let limit = try query.integer("limit", in: 1...Self.maxLimit) ?? 50
        let entries = try host.inbox(unreadOnly: unread, after: after, limit: Int(limit))
        let counters = try host.notificationCounters()
        return .json(["notifications": .array(entries.map(\.json)), "counters": .object(counters.mapValues { .integer($0) })])
    }

    /// `POST /v1/notifications/read`: marks the listed entries read, or every unread one.
    /// Answers how many changed (an id already read, or unknown, changes nothing).
    func markRead(_ request: Request, context: APIRequestContext) async throws -> Response {
        let input = try await Self.readInput.read(request, limit: maxBodyBytes)
        let ids = input["ids"]?.arrayValue?.compactMap(\.integerValue)
        let all = input["all"] == true  // the schema lets exactly one of the two through
        let changed = try host.markRead(all ? nil : ids ?? [])
        return .json(["marked": .integer(Int64(changed))])
    }
}
