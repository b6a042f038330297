import TesseraSDK
import TesseraSync

/// The hub's verdict on a push (docs/hub.md).
public struct PushAnswer: Sendable, Hashable {
    /// Changes the hub now holds (stored now, or already).
    public var accepted: Int
    /// Of those, how many it held already.
    public var duplicates: Int
    /// Shared spaces this push registered, with this device's person as owner.
    public var createdSpaces: [String]
    /// Changes refused one by one: the change's id and row, and why (`read_only`, `not_a_member`, …).
    public var rejected: [Rejection]

    /// One refused change.
    public struct Rejection: Sendable, Hashable {
        public var timestamp: String
        public var column: String
        public var space: String
        public var table: String
        public var row: String
        public var reason: String
        public var message: String
    }

    init(_ json: JSONValue) {
        accepted = Int(json["accepted"]?.integerValue ?? 0)
        duplicates = Int(json["duplicates"]?.integerValue ?? 0)
        createdSpaces = json["createdSpaces"]?.arrayValue?.compactMap(\.stringValue) ?? []
        rejected = (json["rejected"]?.arrayValue ?? []).map { r in
            Rejection(timestamp: r["timestamp"]?.stringValue ?? "", column: r["column"]?.stringValue ?? "",
                      space: r["space"]?.stringValue ?? "", table: r["table"]?.stringValue ?? "",
                      row: r["row"]?.stringValue ?? "", reason: r["reason"]?.stringValue ?? "",
                      message: r["message"]?.stringValue ?? "")
        }
    }
}

/// One page of a pull.
public struct PullPage: Sendable {
    /// The changes, oldest arrival first.
    public var changes: [SyncChange]
    /// The cursor to pull after next.
    public var cursor: Int64
    /// Whether more changes wait.
    public var more: Bool
}

/// The hub's answer about one space in a check.
public enum SpaceStatus: Sendable, Hashable {
    /// The hub holds exactly the device's changes.
    case inSync
    /// The sets may differ from this minute on (milliseconds since 1970).
    case differs(sinceMillis: Int64)
    /// No such space, or the person is not in it.
    case notAMember
    /// The space was deleted: drop it.
    case deleted

    init(_ json: JSONValue) {
        switch json["status"]?.stringValue {
        case "in_sync": self = .inSync
        case "differs": self = .differs(sinceMillis: json["sinceMillis"]?.integerValue ?? 0)
        case "deleted": self = .deleted
        default: self = .notAMember
        }
    }
}

/// A refusal or failure talking to the hub: the hub's error code (or `unavailable` when it could
/// not be reached) and its message.
public struct SyncClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status, 0 when there was no answer.
    public var status: Int
    /// The hub's error code, e.g. `unauthorized`, `space_deleted`, `unavailable`.
    public var code: String
    /// For people.
    public var message: String
    /// The input field the hub named, if it did (`$.role`).
    public var field: String?

    public init(status: Int, code: String, message: String, field: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
    }

    init(_ answer: HubConnection.Answer) {
        let error = (try? JSONValue(parsing: answer.body))?["error"]
        self.init(status: answer.status, code: error?["code"]?.stringValue ?? "http_\(answer.status)",
                  message: error?["message"]?.stringValue ?? "the hub answered \(answer.status)",
                  field: error?["field"]?.stringValue)
    }

    public var description: String { "\(code): \(message)" }
}
