import TesseraSDK

/// One method of the capability protocol: what a plugin's process may ask the host, by name, with
/// JSON parameters and a JSON result (docs/capability-protocol.md).
///
/// Each capability declares its methods once, in its own file of this folder (`StorageMethods`,
/// `ClockMethods`, …). The child's proxies call the host through these declarations, and the
/// host answers a call only through the handler its capability's provider gives for the same
/// declaration; a test checks that every declared method is answered, that nothing undeclared is,
/// and that the document lists exactly these.
public struct CapabilityMethodSpec: Sendable, Hashable {
    /// `storage.write`: the capability, a dot, the method.
    public let name: String
    /// The capability whose grant answers it, or `nil` for one every plugin may call (`log`).
    public let capability: String?
    /// What it does, in one sentence, for the document.
    public let summary: String
    /// A JSON Schema of the parameters.
    public let parameters: JSONValue
    /// A JSON Schema of the result.
    public let result: JSONValue

    public init(_ name: String, capability: String?, _ summary: String, parameters: JSONValue, result: JSONValue) {
        self.name = name
        self.capability = capability
        self.summary = summary
        self.parameters = parameters
        self.result = result
    }
}

/// The capability protocol as a whole: its version and every method.
public enum CapabilityProtocol {
    /// The version the host and a plugin's process agree on at `load` (docs/capability-protocol.md,
    /// "Versions"): a method added is a new version; none is ever removed or changed in meaning.
    public static let version = 1
    /// The versions this side speaks; the host offers them at `load` and the child answers the
    /// highest it speaks too.
    public static let supported = [1]

    /// The version a plugin's process agrees to among those the host `offered`: the highest this
    /// side speaks too, or `nil` if none.
    public static func agree(offered: [Int]) -> Int? { offered.filter(supported.contains).max() }

    /// Every method, capability by capability.
    public static let methods: [CapabilityMethodSpec] = [
        LogMethods.all, StorageMethods.all, ClockMethods.all, NotificationsMethods.all, EventsMethods.all, SecretsMethods.all,
        FilesMethods.all, HTTPMethods.all, LocationMethods.all, SyncMethods.all, SpacesMethods.all,
    ].flatMap { $0 }
}

extension PeerConnection {
    /// Calls `method` on the other side with `params`.
    public func call(_ method: CapabilityMethodSpec, _ params: JSONValue = .null) async throws -> JSONValue {
        try await call(method.name, params)
    }

    /// Calls `method` and blocks this thread until the answer (``callBlocking(_:_:)``).
    public func callBlocking(_ method: CapabilityMethodSpec, _ params: JSONValue = .null) throws -> JSONValue {
        try callBlocking(method.name, params)
    }
}

/// JSON Schemas for the protocol's declarations, written short. The SDK's values travel in the
/// wire forms of `WireValues.swift` and its neighbours; a schema names the SDK type it carries.
public enum WireSchema {
    public static let null: JSONValue = ["type": "null"]
    public static let string: JSONValue = ["type": "string"]
    public static let integer: JSONValue = ["type": "integer"]
    public static let boolean: JSONValue = ["type": "boolean"]
    /// Any JSON value.
    public static let any: JSONValue = [:]
    /// A time: seconds since 2001-01-01 (`Date`'s own representation, nothing rounded).
    public static let time: JSONValue = ["type": "number", "description": "seconds since 2001-01-01T00:00:00Z"]
    /// Bytes: base64 text.
    public static let bytes: JSONValue = ["type": "string", "description": "bytes in base64"]
    /// An SQL value keeping its storage class: an integer, text, `{"r": real}`, `{"b": base64}`, or null.
    public static let sqlValue: JSONValue = ["description": "SQLValue: an integer, text, {\"r\": real}, {\"b\": base64} or null"]

    public static func array(_ items: JSONValue) -> JSONValue { ["type": "array", "items": items] }
    public static func nullable(_ schema: JSONValue) -> JSONValue { ["anyOf": [schema, null]] }

    /// An object with these members, `required` among them; other members are allowed (a newer
    /// peer may send more). `type` names the SDK type it carries, if any.
    public static func object(_ properties: [String: JSONValue], required: [String], of type: String? = nil) -> JSONValue {
        var schema: [String: JSONValue] = ["type": "object", "properties": .object(properties),
                                           "required": .array(required.map(JSONValue.string))]
        if let type { schema["description"] = .string(type) }
        return .object(schema)
    }

    /// An SDK value in its wire form, described by the type's name and its required members.
    public static func value(_ type: String, required: [String]) -> JSONValue {
        object([:], required: required, of: type)
    }
}
