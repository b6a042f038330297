import Foundation

/// A plugin library copied to its content-addressed path: the bytes that gate 1 checks and gate 2
/// loads are the same bytes, whatever happens to the original file meanwhile.
public struct StagedLibrary: Sendable, Hashable {
    /// The file the build came from.
    public let sourcePath: String
    /// The content-addressed copy: `<root>/<sha256>/<file name>`.
    public let path: String
    /// The sha256 of the bytes, lowercase hex.
    public let sha256: String
}

/// Copies plugin builds to content-addressed paths before they are checked and loaded.
///
/// `dlopen` of a path that is already loaded returns the old image even when the file changed, so
/// every build is loaded from `<root>/<sha256>/<file name>`: a new build gets a new path, the same
/// build the same one.
public struct GenerationStore: Sendable {
    /// The folder holding one subfolder per build.
    public let root: String

    public init(root: String) { self.root = root }

    /// Reads the build once, hashes it, and writes the copy if it is not there yet. The copy is
    /// written under a temporary name and renamed, so a crash never leaves a half-written library at
    /// its final path.
    public func stage(_ sourcePath: String) throws -> StagedLibrary {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: sourcePath))
        let sha256 = SHA256.hex(of: bytes)
        let dir = (root as NSString).appendingPathComponent(sha256)
        let target = (dir as NSString).appendingPathComponent((sourcePath as NSString).lastPathComponent)
        let staged = StagedLibrary(sourcePath: sourcePath, path: target, sha256: sha256)
        let fm = FileManager.default
        if fm.fileExists(atPath: target) { return staged }
        try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let temporary = target + ".partial-\(getpid())"
        try bytes.write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, target) == 0 else {
            let reason = String(cString: strerror(errno))
            try? fm.removeItem(atPath: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot rename \(temporary): \(reason)"])
        }
        return staged
    }
}
