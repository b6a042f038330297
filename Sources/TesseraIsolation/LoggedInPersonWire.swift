import TesseraSDK

/// ``PluginSpaces/currentPerson()``'s answer on the wire: `{"id", "name", "displayName"?}`, or
/// `null` for nobody logged in.
extension LoggedInPerson {
    public var wire: JSONValue {
        var members: [String: JSONValue] = ["id": .string(id), "name": .string(name)]
        if let displayName { members["displayName"] = .string(displayName) }
        return .object(members)
    }

    public init?(wire: JSONValue) throws {
        if wire == .null { return nil }
        self.init(id: try wire.wireString("id"), name: try wire.wireString("name"), displayName: wire["displayName"]?.stringValue)
    }
}
