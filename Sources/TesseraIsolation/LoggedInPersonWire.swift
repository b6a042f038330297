import TesseraSDK

/// ``PluginSpaces/currentPerson()``'s answer on the wire: `{"id", "name"}`, or `null` for nobody
/// logged in.
extension LoggedInPerson {
    public var wire: JSONValue { ["id": .string(id), "name": .string(name)] }

    public init?(wire: JSONValue) throws {
        if wire == .null { return nil }
        self.init(id: try wire.wireString("id"), name: try wire.wireString("name"))
    }
}
