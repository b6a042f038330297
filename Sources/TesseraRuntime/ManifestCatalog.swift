import Foundation
import TesseraManifest
import TesseraSDK

/// The manifests found in a deployment's manifest folders, read without running plugin code.
struct ManifestCatalog {
    /// A readable manifest, or why a file claiming this id was refused.
    enum Entry {
        case valid(PluginManifest)
        case invalid(file: String, error: ManifestError)
    }

    private(set) var entries: [String: Entry] = [:]
    /// Files that are not manifests of any identifiable plugin (no readable `id`).
    private(set) var unattributed: [ManifestError] = []

    /// Reads every `*.json` file directly in each folder (sub-folders such as `deployments/` and
    /// `schema/` are not manifests).
    init(directories: [String]) {
        let fm = FileManager.default
        for dir in directories {
            let files = ((try? fm.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
            for name in files {
                add(file: (dir as NSString).appendingPathComponent(name))
            }
        }
    }

    mutating func add(file: String) {
        do {
            let manifest = try ManifestReader.read(file: file)
            if case .valid(let existing) = entries[manifest.id] {
                let error = ManifestError(file: file, path: "$.id", expected: "an id no other manifest uses",
                                          found: "'\(manifest.id)', also in \(existing.file)")
                entries[manifest.id] = .invalid(file: file, error: error)
            } else {
                entries[manifest.id] = .valid(manifest)
            }
        } catch {
            // Attribute the failure to the plugin the file names, if it names one.
            let id = (try? JSONValue(parsing: FileManager.default.contents(atPath: file) ?? Data()))?["id"]?.stringValue
            if let id { entries[id] = .invalid(file: file, error: error) } else { unattributed.append(error) }
        }
    }

    /// Why no manifest declares `id`: where the host looked, and the files it could not read at
    /// all (not JSON, or no `id`), with their errors: one of them may be the plugin's.
    func missingReason(for id: String, in directories: [String]) -> String {
        let base = "no manifest declares the id '\(id)' in \(directories.joined(separator: ", "))"
        guard !unattributed.isEmpty else { return base }
        return base + "; unreadable manifests there: " + unattributed.map(\.description).joined(separator: "; ")
    }
}
