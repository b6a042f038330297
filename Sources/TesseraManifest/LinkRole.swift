import TesseraSDK

extension Principal.Role {
    /// Anyone holding a capability link: no bearer token, only the unguessable token the link
    /// carries. An operation opens itself to it with `"roles": ["link"]` in its manifest, and is
    /// then reached at `GET /v1/links/{id}/{op}/{token}` with the input `{"token": …}`
    /// (docs/http.md, "Capability links"). The plugin resolves the token; an unknown one is its
    /// `not_found`.
    public static let link = Principal.Role(rawValue: "link")
}

/// The rule for an operation open to the `link` role: its input is the token and nothing else, so
/// that the edge can call it from the link's path alone, and it moves no file.
enum LinkOperationRule {
    static let expected = "an operation open to 'link' takes only a required string 'token' (additionalProperties false) and no 'file'"

    static func holds(input: JSONValue, file: JSONValue?) -> Bool {
        guard file == nil, input["type"]?.stringValue == "object", input["additionalProperties"]?.boolValue == false,
              let properties = input["properties"]?.objectValue, Array(properties.keys) == ["token"],
              properties["token"]?["type"]?.stringValue == "string",
              input["required"]?.arrayValue?.compactMap(\.stringValue) == ["token"] else { return false }
        return true
    }
}
