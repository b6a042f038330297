import Foundation
import TesseraManifest
import TesseraSDK

/// The manifests found in a deployment's manifest folders, read without running plugin code.
///
/// Finding them reads only each file's `id`; a manifest is checked, decoded and its schemas
/// compiled when its plugin is asked for (``entry(for:)``). A command that starts one plugin
/// (`tessera call`, `tessera plugins why`) then pays for that one manifest, not for every module's:
/// compiling the shipped six cost a fifth of a `tessera call` (docs/benchmarks.md). A file whose
/// bytes passed before under this host build is not even parsed for its id: its record says it
/// (``CheckedManifests/recordedID(of:)``).
struct ManifestCatalog {
    /// A readable manifest, or why a file claiming this id was refused.
    enum Entry {
        case valid(PluginManifest)
        case invalid(file: String, error: ManifestError)
    }

    /// A file that names an id: its bytes and their JSON, read once when the catalog looks (the
    /// JSON only if the id came from parsing it rather than from its record, which also says the
    /// bytes passed before).
    private struct Candidate {
        let file: String
        let content: Data
        let document: JSONValue?
        var recorded: Bool { document == nil }
    }

    /// The files that name each id, in the order they are read.
    private var candidates: [String: [Candidate]] = [:]
    /// Files that are not manifests of any identifiable plugin (no readable `id`).
    private(set) var unattributed: [ManifestError] = []
    /// Folders not read because every user may write in them (issue 46: `/tmp`).
    private(set) var unsafeDirectories: [String] = []
    /// The manifests this host build checked before: not checked again (``CheckedManifests``).
    private let checked: CheckedManifests?

    /// Finds every `*.json` file directly in each folder (sub-folders such as `deployments/` and
    /// `schema/` are not manifests), and the id each names. A folder every user may write in is
    /// not read: a manifest there could be anyone's, and it says which code the host loads.
    init(directories: [String], checked: CheckedManifests? = nil) {
        self.checked = checked
        for dir in directories {
            if Self.everyoneWrites(dir) { unsafeDirectories.append(dir); continue }
            for name in Self.jsonFileNames(in: dir) {
                add(file: dir.hasSuffix("/") ? dir + name : dir + "/" + name)
            }
        }
    }

    /// The ids the files name, sorted.
    var ids: [String] { candidates.keys.sorted() }

    mutating func add(file: String) {
        if let content = FileManager.default.contents(atPath: file) {
            if let id = checked?.recordedID(of: content) {
                candidates[id, default: []].append(Candidate(file: file, content: content, document: nil))
                return
            }
            if let document = try? JSONValue(parsing: content), let id = document["id"]?.stringValue {
                candidates[id, default: []].append(Candidate(file: file, content: content, document: document))
                return
            }
        }
        // Not JSON, or no `id`: the reader says why.
        do { _ = try ManifestReader.read(file: file) } catch { unattributed.append(error) }
    }

    /// The manifest that declares `id`, read now, or why the file naming it was refused; `nil`
    /// if no file names it. Two valid manifests with one id refuse the second.
    func entry(for id: String) -> Entry? {
        var entry: Entry?
        for candidate in candidates[id] ?? [] {
            let file = candidate.file
            do {
                let manifest = try ManifestReader.read(file: file, content: candidate.content, document: candidate.document,
                                                       checked: checked, recorded: candidate.recorded)
                if case .valid(let existing) = entry {
                    entry = .invalid(file: file, error: ManifestError(file: file, path: "$.id", expected: "an id no other manifest uses",
                                                                      found: "'\(manifest.id)', also in \(existing.file)"))
                } else {
                    entry = .valid(manifest)
                }
            } catch {
                entry = .invalid(file: file, error: error)
            }
        }
        return entry
    }

    /// Why no manifest declares `id`: where the host looked, and the files it could not read at
    /// all (not JSON, or no `id`), with their errors: one of them may be the plugin's.
    func missingReason(for id: String, in directories: [String]) -> String {
        var base = "no manifest declares the id '\(id)' in \(directories.joined(separator: ", "))"
        if !unsafeDirectories.isEmpty {
            base += "; not read, because every user may write there and a manifest in it could be anyone's: "
                + unsafeDirectories.joined(separator: ", ") + " (keep manifests in a folder only their owner can write)"
        }
        guard !unattributed.isEmpty else { return base }
        return base + "; unreadable manifests there: " + unattributed.map(\.description).joined(separator: "; ")
    }

    /// The names of the `*.json` entries directly in `dir`, sorted; none if it cannot be read.
    /// `readdir` itself: Foundation's listing was a third of the catalog's time in a restart.
    static func jsonFileNames(in dir: String) -> [String] {
        guard let stream = opendir(dir) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".json") { names.append(name) }
        }
        return names.sorted()
    }

    /// Whether every user may write in `dir` (the sticky bit of `/tmp` does not stop a new file).
    static func everyoneWrites(_ dir: String) -> Bool {
        var info = stat()
        return stat(dir, &info) == 0 && info.st_mode & 0o002 != 0
    }
}
