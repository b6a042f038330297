import Foundation

/// A plugin library copied to its content-addressed path: the bytes that gate 1 checks and gate 2
/// loads are the same bytes, whatever happens to the original file meanwhile.
public struct StagedLibrary: Sendable, Hashable {
    /// The file the build came from.
    public let sourcePath: String
    /// The content-addressed copy: `<root>/<sha256>-<file name>`.
    public let path: String
    /// The sha256 of the bytes, lowercase hex.
    public let sha256: String
    /// The bytes themselves, as read once from the build and written to ``path``: gate 1 checks
    /// these without opening the copy again.
    public let bytes: [UInt8]
}

/// Copies plugin builds to content-addressed paths before they are checked and loaded.
///
/// `dlopen` of a path that is already loaded returns the old image even when the file changed, so
/// every build is loaded from `<root>/<sha256>-<file name>`: a new build gets a new path, the same
/// build the same one.
public struct GenerationStore: Sendable {
    /// The folder holding one subfolder per build.
    public let root: String

    public init(root: String) { self.root = root }

    /// Reads the build once, hashes it, and writes the copy unless an intact one is there.
    ///
    /// The copy is written under a temporary name and renamed, without fsync: a staged copy is a
    /// cache of the build, so instead of paying for durability on every new build, an existing copy
    /// is hashed again before it is trusted (a copy torn by a power loss is rewritten).
    public func stage(_ sourcePath: String) throws -> StagedLibrary {
        let bytes = try Self.read(sourcePath)
        let sha256 = SHA256.hex(of: bytes)
        let target = (root as NSString).appendingPathComponent("\(sha256)-\((sourcePath as NSString).lastPathComponent)")
        let staged = StagedLibrary(sourcePath: sourcePath, path: target, sha256: sha256, bytes: bytes)
        if (try? SHA256.hash(file: target)) == sha256 { return staged }
        // One flat folder: a folder per build would cost a directory creation on every new build.
        if access(root, F_OK) != 0 { try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true) }
        let temporary = target + ".partial-\(getpid())"
        try writeWithoutSync(bytes, to: temporary)
        guard rename(temporary, target) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot rename \(temporary): \(reason)"])
        }
        return staged
    }

    /// The whole file, read with one `fstat` and plain `read`s.
    static func read(_ path: String) throws -> [UInt8] {
        func failure(_ what: String) -> CocoaError {
            CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot \(what) \(path): \(String(cString: strerror(errno)))"])
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure("examine") }
        let size = Int(info.st_size)
        var readFailed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            while initialized < size {
                let n = Glibc.read(fd, buffer.baseAddress! + initialized, size - initialized)
                if n > 0 { initialized += n } else if n == 0 { break } else if errno != EINTR { readFailed = true; break }
            }
        }
        if readFailed { throw failure("read") }
        return bytes
    }

    /// Writes `bytes` to a new file with plain `write`s (Foundation's `Data.write` also fsyncs).
    private func writeWithoutSync(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        guard fd >= 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot create \(path): \(String(cString: strerror(errno)))"])
        }
        defer { close(fd) }
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot write \(path): \(String(cString: strerror(errno)))"])
                }
                offset += n
            }
        }
    }
}
