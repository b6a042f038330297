import Foundation
import Glibc
import TesseraSDK

/// A small JSON file in the data directory that holds secrets' hashes (the local accounts, the
/// sign-in sessions): readable by its owner alone (mode 0600, even for a moment), replaced
/// atomically so a reader never sees half a file, and changed under an exclusive lock so that
/// two writers (the server and a `tessera account` command) cannot lose each other's change.
struct PrivateJSONFile: Sendable {
    let path: String

    /// The document; `nil` when the file does not exist.
    func read() throws -> JSONValue? {
        guard let data = FileManager.default.contents(atPath: path) else {
            if FileManager.default.fileExists(atPath: path) { throw PrivateFileError("cannot read \(path)") }
            return nil
        }
        do { return try JSONValue(parsing: data) } catch { throw PrivateFileError("\(path) is not JSON: \(error)") }
    }

    /// Runs `body` (a read, a change, a write) holding an exclusive lock on `<file>.lock`.
    func whileLocked<T>(_ body: () throws -> T) throws -> T {
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let fd = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw PrivateFileError("cannot lock \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }  // closing releases the lock
        guard flock(fd, LOCK_EX) == 0 else { throw PrivateFileError("cannot lock \(path): \(String(cString: strerror(errno)))") }
        return try body()
    }

    /// Replaces the file with `document`: a temporary file made with mode 0600, synced, renamed.
    func write(_ document: JSONValue) throws {
        let bytes = Array((document.prettySerialized() + "\n").utf8)
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw PrivateFileError("cannot write \(path): \(String(cString: strerror(errno)))") }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw PrivateFileError("cannot write \(path): \(reason)")
        }
    }
}

/// A private file that could not be read or written (the message names it and why).
struct PrivateFileError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
