import Foundation

/// Manifests and deployments for tests, written to a temporary folder.
public struct FixtureWorkspace: Sendable {
    /// The folder; manifests go directly in it, the deployment in `deployments/`.
    public let root: String

    public init(_ label: String = "workspace") {
        root = Fixtures.temporaryDirectory(label)
    }

    /// The data directory tests use.
    public var dataDirectory: String { root + "/data" }
    public var deploymentFile: String { root + "/deployments/test.json" }

    /// Writes a manifest for a fixture plugin whose library is at `library` (absolute path).
    /// `edit` may change the manifest object before it is written.
    @discardableResult
    public func addManifest(id: String, library: String, file: String? = nil,
                            edit: (inout [String: Any]) -> Void = { _ in }) -> String {
        var manifest: [String: Any] = [
            "id": id, "name": "Fixture \(id)", "version": "1.0.0",
            "sdk": ["abi": "1.10", "toolchain": "6.3.1"],
            "library": ["path": library],
            "requires": [["capability": "storage", "version": "^1.0", "optional": true]],
            "permissions": [:] as [String: Any],
            "operations": [[
                "name": "hello",
                "input": ["type": "object", "properties": ["name": ["type": "string", "maxLength": 20]], "additionalProperties": false],
                "output": ["type": "object"],
            ]],
        ]
        edit(&manifest)
        let path = root + "/" + (file ?? "\(id).json")
        Fixtures.write(Self.json(manifest), to: path)
        return path
    }

    /// Copies the shipped example manifest (library found by name on the library path). Its `ui`
    /// folder, relative to the manifest in the repository, is made absolute so the copy finds it.
    public func addExampleManifest() { addShippedManifest("example") }

    /// Copies the shipped manifest `manifests/<name>.json` (library found by name on the library
    /// path), its `ui` folder made absolute.
    public func addShippedManifest(_ name: String) {
        let file = Fixtures.repositoryRoot + "/manifests/\(name).json"
        guard let data = FileManager.default.contents(atPath: file),
              var manifest = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return }
        if var ui = manifest["ui"] as? [String: Any], let folder = ui["folder"] as? String {
            ui["folder"] = URL(fileURLWithPath: file).deletingLastPathComponent()
                .appendingPathComponent(folder).standardizedFileURL.path
            manifest["ui"] = ui
        }
        Fixtures.write(Self.json(manifest), to: root + "/\(name).json")
    }

    /// Writes the deployment: `plugins` are the entries of `$.plugins`; `extra` adds top-level members.
    @discardableResult
    public func writeDeployment(plugins: [[String: Any]], clock: String = "virtual", extra: [String: Any] = [:]) -> String {
        var deployment: [String: Any] = [
            "name": "test", "role": "device", "manifestDirectories": [".."],
            "libraryPaths": [Fixtures.buildDirectory],
            "providers": ["storage": ["kind": "sqlite"], "clock": ["kind": clock, "start": "2026-03-02T08:00:00Z"]],
            "plugins": plugins,
        ]
        for (k, v) in extra { deployment[k] = v }
        Fixtures.write(Self.json(deployment), to: deploymentFile)
        return deploymentFile
    }

    static func json(_ object: Any) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]), as: UTF8.self)
    }
}
