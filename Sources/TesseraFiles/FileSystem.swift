import Foundation
import Glibc
import TesseraSDK
import TesseraSystem

/// The POSIX calls an atomic, durable put needs, each failing with the path and `errno` named.
enum FileSystem {
    static func failure(_ what: String, _ path: String) -> PluginError {
        PluginError(.unavailable, "files: \(what) \(path) failed: \(String(cString: strerror(errno)))")
    }

    /// Creates `path` and its parents (mode 0700), if missing.
    static func makeDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// A new file, owner-only, that did not exist.
    static func create(_ path: String) throws -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure("creating", path) }
        return fd
    }

    /// Writes all of `bytes`.
    static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        // The failure reads errno, which the failed write left.
        do { try SystemCall.writeAll(fd, bytes) } catch { throw failure("writing", path) }
    }

    static func sync(_ fd: Int32, path: String) throws {
        guard fsync(fd) == 0 else { throw failure("syncing", path) }
    }

    /// `rename(2)`: atomic; the target is the whole new file or the old one, never half.
    static func rename(_ from: String, to: String) throws {
        guard Glibc.rename(from, to) == 0 else { throw failure("renaming to", to) }
    }

    /// Makes a rename in `path` durable: the directory entry itself is synced.
    static func syncDirectory(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("opening the directory", path) }
        defer { close(fd) }
        try sync(fd, path: path)
    }
}
