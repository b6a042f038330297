import Foundation
@_spi(TesseraHost) import TesseraSDK

/// How the SDK's values cross the socket as JSON. Each type has `wire` (to JSON) and
/// `init(wire:)` (back); a malformed value is a ``WireFormatError`` naming what was expected.
///
/// Dates travel as seconds since 2001-01-01 (`Date`'s own representation, so nothing is rounded);
/// SQL values keep their storage class: integers as JSON integers, text as strings, `{"r": d}` for
/// a real, `{"b": base64}` for a blob, `null`.
public struct WireFormatError: Error, CustomStringConvertible {
    public let description: String
    init(_ expected: String, _ found: JSONValue?) {
        description = "wire: expected \(expected), found \(found.map { $0.serialized().prefix(80) } ?? "nothing")"
    }
}

extension Date {
    public var wire: JSONValue { .number(timeIntervalSinceReferenceDate) }
    public init(wire: JSONValue?) throws {
        guard let seconds = wire?.doubleValue else { throw WireFormatError("a time", wire) }
        self.init(timeIntervalSinceReferenceDate: seconds)
    }
}

extension JSONValue {
    func wireString(_ key: String) throws -> String {
        guard let s = self[key]?.stringValue else { throw WireFormatError("a string at \(key)", self[key]) }
        return s
    }
}

extension SQLValue {
    public var wire: JSONValue {
        switch self {
        case .null: return .null
        case .integer(let i): return .integer(i)
        case .real(let d): return ["r": .number(d)]
        case .text(let s): return .string(s)
        case .blob(let b): return ["b": .string(Data(b).base64EncodedString())]
        }
    }

    public init(wire: JSONValue) throws {
        switch wire {
        case .null: self = .null
        case .integer(let i): self = .integer(i)
        case .string(let s): self = .text(s)
        case .object(let o) where o["r"]?.doubleValue != nil: self = .real(o["r"]!.doubleValue!)
        case .object(let o) where o["b"]?.stringValue != nil:
            guard let data = Data(base64Encoded: o["b"]!.stringValue!) else { throw WireFormatError("base64 bytes", wire) }
            self = .blob(Array(data))
        default: throw WireFormatError("an SQL value", wire)
        }
    }
}

extension Row {
    public var wire: JSONValue { ["c": .array(columns.map(JSONValue.string)), "v": .array(values.map(\.wire))] }
    public init(wire: JSONValue) throws {
        guard let columns = wire["c"]?.arrayValue?.compactMap(\.stringValue), let values = wire["v"]?.arrayValue else {
            throw WireFormatError("a row", wire)
        }
        self.init(columns: columns, values: try values.map(SQLValue.init(wire:)))
    }
}

private func wireValues(_ values: [String: SQLValue]) -> JSONValue { .object(values.mapValues(\.wire)) }
private func sqlValues(_ json: JSONValue?) throws -> [String: SQLValue] {
    guard let o = json?.objectValue else { throw WireFormatError("column values", json) }
    return try o.mapValues(SQLValue.init(wire:))
}

extension WriteBatch {
    public var wire: JSONValue {
        let changes: [JSONValue] = changes.map { change in
            switch change {
            case .put(let table, let id, let values): ["op": "put", "table": .string(table), "id": .string(id), "values": wireValues(values)]
            case .patch(let table, let id, let values): ["op": "patch", "table": .string(table), "id": .string(id), "values": wireValues(values)]
            case .delete(let table, let id): ["op": "delete", "table": .string(table), "id": .string(id)]
            @unknown default: ["op": "unknown"]  // a newer SDK's change: the host refuses it by name
            }
        }
        var o: [String: JSONValue] = ["changes": .array(changes),
                                      "events": .array(events.map { ["name": .string($0.name), "payload": $0.payload] })]
        if let space { o["space"] = .string(space) }
        return .object(o)
    }

    /// The batch rebuilt through its public mutators, so the host sees exactly what the plugin built.
    public init(wire: JSONValue) throws {
        self.init()
        for change in wire["changes"]?.arrayValue ?? [] {
            let table = try change.wireString("table"), id = try change.wireString("id")
            switch change["op"]?.stringValue {
            case "put": put(table, id: id, try sqlValues(change["values"]))
            case "patch": patch(table, id: id, try sqlValues(change["values"]))
            case "delete": delete(table, id: id)
            default: throw WireFormatError("put, patch or delete", change["op"])
            }
        }
        for event in wire["events"]?.arrayValue ?? [] { emit(try event.wireString("name"), event["payload"] ?? .null) }
        if let space = wire["space"]?.stringValue { inSpace(space) }
    }
}

extension TimerRequest {
    public var wire: JSONValue { ["key": .string(key), "name": .string(name), "fireAt": fireAt.wire, "payload": payload] }
    public init(wire: JSONValue) throws {
        self.init(key: try wire.wireString("key"), name: try wire.wireString("name"), fireAt: try Date(wire: wire["fireAt"]),
                  payload: wire["payload"] ?? .null)
    }
}

extension TimerFiring {
    public var wire: JSONValue {
        ["key": .string(key), "name": .string(name), "dueAt": dueAt.wire, "firedAt": firedAt.wire, "payload": payload]
    }
    public init(wire: JSONValue) throws {
        self.init(key: try wire.wireString("key"), name: try wire.wireString("name"), dueAt: try Date(wire: wire["dueAt"]),
                  firedAt: try Date(wire: wire["firedAt"]), payload: wire["payload"] ?? .null)
    }
}

extension NotificationRequest {
    public var wire: JSONValue {
        let recipientWire: JSONValue
        switch recipient {
        case .user: recipientWire = "user"
        case .space(let space): recipientWire = ["space": .string(space)]
        case .spaceOthers(let space): recipientWire = ["spaceOthers": .string(space)]
        @unknown default: recipientWire = "unknown"
        }
        let scheduleWire: JSONValue
        switch schedule {
        case .at(let date): scheduleWire = ["at": date.wire]
        case .recurring(let rule, let start, let zone):
            scheduleWire = ["rule": .string(rule), "startingAt": start.wire, "timeZone": .string(zone)]
        @unknown default: scheduleWire = .null
        }
        var wire: [String: JSONValue] = ["key": .string(key), "title": .string(title), "body": .string(body), "payload": payload,
                                         "recipient": recipientWire, "schedule": scheduleWire]
        // SDK 1.8: sent only when set, so a 1.7 peer reads the same frame it always did.
        if priority != .normal { wire["priority"] = .string(priority.rawValue) }
        if let message { wire["message"] = message.json }
        return .object(wire)
    }

    public init(wire: JSONValue) throws {
        let recipient = try NotificationRecipient(wire: wire["recipient"])
        let s = wire["schedule"]
        let schedule: NotificationSchedule = s?["at"] != nil ? .at(try Date(wire: s?["at"]))
            : .recurring(rule: try s?.wireString("rule") ?? "", startingAt: try Date(wire: s?["startingAt"]), timeZone: try s?.wireString("timeZone") ?? "")
        self.init(key: try wire.wireString("key"), title: try wire.wireString("title"), body: try wire.wireString("body"),
                  payload: wire["payload"] ?? .null, recipient: recipient, schedule: schedule)
        if let priority = wire["priority"] {
            guard let level = priority.stringValue.flatMap(NotificationPriority.init(rawValue:)) else {
                throw WireFormatError("a notification priority (normal, time-sensitive, critical)", priority)
            }
            self.priority = level
        }
        if let message = wire["message"] {
            guard let read = NotificationMessage(json: message) else { throw WireFormatError("a notification message", message) }
            self.message = read
        }
    }
}

extension NotificationRecipient {
    /// `"user"`, `{"space": id}` or `{"spaceOthers": id}`; anything else is refused rather than
    /// read as the user, so a notification never goes to fewer people than the plugin asked.
    init(wire: JSONValue?) throws {
        func space(_ value: JSONValue) throws -> String {
            guard let id = value.stringValue else { throw WireFormatError("a space id", value) }
            return id
        }
        if let value = wire?["space"] { self = .space(try space(value)); return }
        if let value = wire?["spaceOthers"] { self = .spaceOthers(try space(value)); return }
        guard wire == nil || wire == "user" else { throw WireFormatError("a notification recipient", wire) }
        self = .user
    }
}

extension PendingNotification {
    public var wire: JSONValue { ["request": request.wire, "nextAt": nextAt.wire] }
    public init(wire: JSONValue) throws {
        self.init(request: try NotificationRequest(wire: wire["request"] ?? .null), nextAt: try Date(wire: wire["nextAt"]))
    }
}

extension PublishedEvent {
    public var wire: JSONValue {
        ["publisher": .string(publisher), "name": .string(name), "payload": payload, "sequence": .integer(sequence),
         "publishedAt": publishedAt.wire]
    }
    public init(wire: JSONValue) throws {
        self.init(publisher: try wire.wireString("publisher"), name: try wire.wireString("name"), payload: wire["payload"] ?? .null,
                  sequence: wire["sequence"]?.integerValue ?? 0, publishedAt: try Date(wire: wire["publishedAt"]))
    }
}

extension OperationCall {
    public var wire: JSONValue {
        ["operation": .string(operation), "input": input, "principal": ["id": .string(principal.id), "role": .string(principal.role.rawValue)]]
    }
    public init(wire: JSONValue) throws {
        let principal = Principal(id: try wire["principal"]?.wireString("id") ?? "",
                                  role: Principal.Role(rawValue: try wire["principal"]?.wireString("role") ?? "user"))
        self.init(operation: try wire.wireString("operation"), input: wire["input"] ?? .null, principal: principal)
    }
}

extension StorageMigration {
    public var wire: JSONValue { ["version": .integer(Int64(version)), "sql": .string(sql)] }
    public init(wire: JSONValue) throws {
        guard let version = wire["version"]?.integerValue else { throw WireFormatError("a migration version", wire["version"]) }
        self.init(version: Int(version), sql: try wire.wireString("sql"))
    }
}

extension Secret {
    /// A secret crosses the socket as its text: the socket joins the host and this plugin's own
    /// process only, and frames are never logged.
    public var wire: JSONValue { .string(revealed) }
    public init(wire: JSONValue) throws {
        guard let s = wire.stringValue else { throw WireFormatError("a secret's text", nil) }
        self.init(s)
    }
}
