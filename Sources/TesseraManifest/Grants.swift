import TesseraSDK

/// The operator's grants checked against what a plugin's manifest asks for.
///
/// The rule is "at most what the manifest asks": a grant may only name capabilities the manifest
/// requires, and each permission granted must be within the one requested — a number no larger, a
/// list a subset (any strings where the requested list holds `"*"`), `true` only where `true` was
/// asked, a string equal. A permission the grant leaves
/// out takes the manifest's requested value, so `"storage": {}` grants storage as asked.
public enum Grants {
    /// The effective permissions per granted capability, or the first grant that exceeds the request.
    public static func resolve(
        entry: Deployment.PluginEntry, manifest: PluginManifest, deploymentFile: String
    ) throws(ManifestError) -> [String: JSONValue] {
        var effective: [String: JSONValue] = [:]
        for capability in entry.grants.keys.sorted() {
            let path = "\(entry.path).grants.\(capability)"
            guard manifest.requirement(for: capability) != nil else {
                throw ManifestError(file: deploymentFile, path: path,
                                    expected: "a capability that \(manifest.id) requires (\(manifest.requires.map(\.capability).joined(separator: ", ")))",
                                    found: "'\(capability)', which its manifest does not ask for")
            }
            let requested = manifest.permissions[capability] ?? .object([:])
            let granted = entry.grants[capability]!
            try exceeds(granted, requested, path: path, file: deploymentFile)
            effective[capability] = merge(granted, over: requested)
        }
        return effective
    }

    /// Throws where `granted` asks for more than `requested`.
    static func exceeds(_ granted: JSONValue, _ requested: JSONValue, path: String, file: String) throws(ManifestError) {
        func fail(_ expected: String) -> ManifestError {
            ManifestError(file: file, path: path, expected: expected, found: granted.brief)
        }
        switch (granted, requested) {
        case (.object(let g), .object(let r)):
            for key in g.keys.sorted() {
                guard let asked = r[key] else {
                    throw ManifestError(file: file, path: "\(path).\(key)",
                                        expected: "only permissions the manifest requests", found: "'\(key)', which it does not request")
                }
                try exceeds(g[key]!, asked, path: "\(path).\(key)", file: file)
            }
        case (.bool(let g), .bool(let r)):
            if g && !r { throw fail("false, as the manifest requests") }
        case (.array(let g), .array(let r)):
            // "*" in a requested list means "whichever values the operator names" (hosts of a
            // service the plugin cannot know in advance, such as a university's own STAG server).
            let anyString = r.contains(.string("*"))
            for item in g where !r.contains(item) && !(anyString && item.stringValue != nil) {
                throw ManifestError(file: file, path: path, expected: "a subset of \(JSONValue.array(r).serialized())",
                                    found: item.serialized() + ", which the manifest does not request")
            }
        case (_, _) where granted.doubleValue != nil && requested.doubleValue != nil:
            if granted.doubleValue! > requested.doubleValue! { throw fail("at most \(requested.serialized()), as the manifest requests") }
        default:
            if granted != requested { throw fail("\(requested.serialized()), as the manifest requests") }
        }
    }

    /// `granted` with the members it leaves out taken from `requested`.
    static func merge(_ granted: JSONValue, over requested: JSONValue) -> JSONValue {
        guard case .object(var g) = granted, case .object(let r) = requested else { return granted }
        for (key, value) in r where g[key] == nil { g[key] = value }
        return .object(g)
    }
}
