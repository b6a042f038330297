import TesseraSDK

/// What the host can say about one plugin: for `tessera plugins list` and `why`, and `GET /v1/plugins`.
public struct PluginStatus: Sendable {
    /// The plugin's id.
    public var id: String
    /// Its human name, when its manifest was readable.
    public var name: String?
    /// The version its manifest declares.
    public var version: String?
    /// Where it is in its life.
    public var state: LifecycleState
    /// Why it is in a non-happy state: one line naming the cause.
    public var reason: String?
    /// The manifest file.
    public var manifestFile: String?
    /// The library file that was checked, and its sha256.
    public var libraryPath: String?
    public var sha256: String?
    /// The SDK ABI stamped into the library, e.g. `1.0`.
    public var stampedABI: String?
    /// The linker build id.
    public var buildID: String?
    /// The generation serving now (1 for the first load), and how many generations are retired.
    public var generation: Int
    public var retiredGenerations: Int
    /// What the retired generations keep mapped: the sum of their library sizes (a library is
    /// never unloaded; see docs/plugin-boundary.md).
    public var retiredBytes: Int
    /// The capabilities granted, with their effective permissions.
    public var grants: [String: JSONValue]
    /// The operations its manifest declares.
    public var operations: [String]
    /// Each step taken, in order, with what it found: the answer to `tessera plugins why`.
    public var history: [String]
    /// Where its code runs, and in the process tier how its child fares.
    public var isolation: IsolationStatus = .inProcess

    /// The status as JSON, for `--json` and the HTTP API.
    public var json: JSONValue {
        var o: [String: JSONValue] = [
            "id": .string(id), "state": .string(state.rawValue), "generation": .integer(Int64(generation)),
            "retiredGenerations": .integer(Int64(retiredGenerations)), "retiredBytes": .integer(Int64(retiredBytes)),
            "grants": .object(grants),
            "operations": .array(operations.map(JSONValue.string)), "history": .array(history.map(JSONValue.string)),
            "isolation": isolation.json,
        ]
        let optional: [(String, String?)] = [
            ("name", name), ("version", version), ("reason", reason), ("manifest", manifestFile), ("library", libraryPath),
            ("sha256", sha256), ("stampedABI", stampedABI), ("buildID", buildID),
        ]
        for (key, value) in optional { if let value { o[key] = .string(value) } }
        return .object(o)
    }
}

extension PluginStatus {
    /// A status read back from its ``json`` (what `GET /v1/plugins` answers), or `nil` if it is not one.
    public init?(json: JSONValue) {
        guard let id = json["id"]?.stringValue, let state = json["state"]?.stringValue.flatMap(LifecycleState.init(rawValue:)) else {
            return nil
        }
        self.id = id
        self.state = state
        name = json["name"]?.stringValue
        version = json["version"]?.stringValue
        reason = json["reason"]?.stringValue
        manifestFile = json["manifest"]?.stringValue
        libraryPath = json["library"]?.stringValue
        sha256 = json["sha256"]?.stringValue
        stampedABI = json["stampedABI"]?.stringValue
        buildID = json["buildID"]?.stringValue
        generation = Int(json["generation"]?.integerValue ?? 0)
        retiredGenerations = Int(json["retiredGenerations"]?.integerValue ?? 0)
        retiredBytes = Int(json["retiredBytes"]?.integerValue ?? 0)
        grants = json["grants"]?.objectValue ?? [:]
        operations = json["operations"]?.arrayValue?.compactMap(\.stringValue) ?? []
        history = json["history"]?.arrayValue?.compactMap(\.stringValue) ?? []
        isolation = IsolationStatus(json: json["isolation"]) ?? .inProcess
    }
}
