import TesseraSDK

extension JSONValue {
    /// This object with `key` set to `value` (JSONValue's subscript only reads); anything but an
    /// object is returned as it is.
    func adding(_ key: String, _ value: JSONValue) -> JSONValue {
        guard case .object(var members) = self else { return self }
        members[key] = value
        return .object(members)
    }
}
