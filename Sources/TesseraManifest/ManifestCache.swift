import Foundation
import Synchronization

/// Checked manifests, with their compiled schemas, kept by file and exact content.
///
/// Reading a manifest parses its JSON, checks it against the manifest schema, and compiles the
/// input schema of every operation and the config schema: most of a plugin's start before its
/// library is touched. Hosts read the same unchanged files again on every start, restart and
/// swap, so ``ManifestReader/read(file:)`` keeps the result here and hands it out again when the
/// file's bytes are the same.
///
/// The key is the file's absolute path and its whole content, compared byte for byte (the dictionary's
/// hash only picks the bucket): a manifest that changed in any byte is never served from here,
/// whatever its size or modification time say. Errors are not kept: a file that failed is read
/// again next time. At most ``capacity`` manifests are kept; past that the cache starts over.
public enum ManifestCache {
    /// How many manifests are kept at most.
    public static let capacity = 256

    private struct Key: Hashable {
        let file: String
        let content: Data
    }

    private static let entries = Mutex<[Key: PluginManifest]>([:])

    /// The manifest read before from `file` with exactly `content`, if kept.
    static func manifest(file: String, content: Data) -> PluginManifest? {
        entries.withLock { $0[Key(file: file, content: content)] }
    }

    /// Keeps `manifest`, read from `file` with `content`.
    static func keep(_ manifest: PluginManifest, file: String, content: Data) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[Key(file: file, content: content)] = manifest
        }
    }

    /// How many manifests are kept.
    public static var count: Int { entries.withLock { $0.count } }

    /// Forgets every manifest (for benchmarks that time a first read).
    public static func removeAll() { entries.withLock { $0.removeAll() } }
}
