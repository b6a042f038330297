import Foundation

/// Copies plugin builds to content-addressed paths before they are loaded.
///
/// `dlopen` of a path that is already loaded returns the old image even when the file changed, so
/// every build is loaded from `<root>/<sha256>/<file name>`: a new build gets a new path, the same
/// build the same one.
public struct GenerationStore: Sendable {
    /// The folder holding one subfolder per build.
    public let root: String

    public init(root: String) { self.root = root }

    /// The staged copy of `library`, made if absent. The copy is written to a temporary name and
    /// renamed, so a crash never leaves a half-written library at the final path.
    public func stage(_ library: VerifiedLibrary) throws -> String {
        let fm = FileManager.default
        let dir = (root as NSString).appendingPathComponent(library.sha256)
        let target = (dir as NSString).appendingPathComponent((library.path as NSString).lastPathComponent)
        if fm.fileExists(atPath: target) { return target }
        try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let temporary = target + ".partial-\(getpid())"
        try? fm.removeItem(atPath: temporary)
        try fm.copyItem(atPath: library.path, toPath: temporary)
        // The staged copy must be the verified bytes: check again after copying.
        guard try SHA256.hash(file: temporary) == library.sha256 else {
            try? fm.removeItem(atPath: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "the library changed while it was being staged"])
        }
        guard rename(temporary, target) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot rename \(temporary): \(String(cString: strerror(errno)))"])
        }
        return target
    }
}
