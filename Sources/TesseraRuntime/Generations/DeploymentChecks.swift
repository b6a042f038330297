import Foundation
import TesseraLoader
import TesseraManifest
import TesseraSDK

/// A check before loading failed; the plugin is `rejected` with this reason.
struct PluginRefusal: Error { let reason: String }

/// Starting failed; the plugin is `failed` with this reason.
struct PluginStartFailure: Error { let reason: String }

/// The plugin is not enabled; the host lists it as `disabled` with this reason.
struct DisabledPlugin: Error { let reason: String }

/// What the deployment and the host must allow before any of a plugin's code is loaded.
extension GenerationOrchestrator {
    /// The deployment's side: enabled, version accepted, isolation available, grants within the
    /// manifest's request, config valid, every required capability granted and provided.
    func checkDeployment(_ manifest: PluginManifest) throws -> (Deployment.PluginEntry, [String: JSONValue]) {
        try checkDeployment(manifest, against: deployment)
    }

    /// ``checkDeployment(_:)`` against `deployment` rather than the one in force (a reload checks
    /// the new file before it applies anything).
    func checkDeployment(_ manifest: PluginManifest, against deployment: Deployment) throws -> (Deployment.PluginEntry, [String: JSONValue]) {
        guard let entry = deployment.entry(for: manifest.id) else {
            throw DisabledPlugin(reason: "not enabled in deployment '\(deployment.name)' (\(deployment.file))")
        }
        guard entry.enabled else {
            throw DisabledPlugin(reason: "disabled by the operator in \(deployment.file) at \(entry.path).enabled")
        }
        if let range = entry.versions, !range.contains(manifest.version) {
            throw PluginRefusal(reason: "\(deployment.file): \(entry.path).version: expected a version in \(range), found \(manifest.version)")
        }
        let grants: [String: JSONValue]
        do { grants = try Grants.resolve(entry: entry, manifest: manifest, deploymentFile: deployment.file) } catch {
            throw PluginRefusal(reason: "grant exceeds the manifest: \(error)")
        }
        if let schema = manifest.configSchema, let violation = schema.validate(entry.config).first {
            throw PluginRefusal(reason: "config: \(deployment.file): \(entry.path).config\(violation.path.dropFirst()): expected \(violation.expected), found \(violation.found)")
        }
        for requirement in manifest.requires {
            guard let provided = providers[requirement.capability]?.version else {
                if requirement.optional { continue }
                throw PluginRefusal(reason: "requires capability '\(requirement.capability)' \(requirement.versions), which this host does not provide")
            }
            guard requirement.versions.contains(provided) else {
                throw PluginRefusal(reason: "requires capability '\(requirement.capability)' \(requirement.versions); this host provides \(provided)")
            }
            if grants[requirement.capability] == nil, !requirement.optional {
                throw PluginRefusal(reason: "requires capability '\(requirement.capability)', which \(deployment.file) does not grant at \(entry.path).grants")
            }
        }
        for (name, grant) in grants.sorted(by: { $0.key < $1.key }) {
            try providers[name]?.check(grant: grant, manifest: manifest)
        }
        return (entry, grants)
    }

    /// The library's path: relative to the manifest for `path`, on the library path for `name`.
    func locateLibrary(_ manifest: PluginManifest) throws -> String {
        if let path = manifest.library.path {
            let full = path.hasPrefix("/") ? path
                : ((manifest.file as NSString).deletingLastPathComponent as NSString).appendingPathComponent(path)
            guard FileManager.default.fileExists(atPath: full) else {
                throw PluginRefusal(reason: "library: \(full) does not exist (from \(manifest.file) $.library.path)")
            }
            return full
        }
        let searched = options.libraryPaths + deployment.libraryPaths + [HostOptions.executableDirectory].compactMap { $0 }
        for dir in searched {
            let candidate = (dir as NSString).appendingPathComponent(manifest.library.fileName)
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        throw PluginRefusal(reason: "library: \(manifest.library.fileName) not found in \(searched.joined(separator: ", ")) (build it with `swift build`)")
    }

    /// The sentence a refusal or failure says, for an error that names the plugin's step.
    func reason(of error: any Error) -> String {
        switch error {
        case let e as PluginRefusal: e.reason
        case let e as PluginStartFailure: e.reason
        case let e as DisabledPlugin: e.reason
        default: "\(error)"
        }
    }
}
