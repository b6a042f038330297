import Foundation
import Glibc
import TesseraSDK

/// The token file, `<data>/http-tokens.json`: `{"tokens": [{"name", "role", "sha256", "created"}]}`.
/// It holds only hashes, yet is written readable by its owner alone (mode 0600), and replaced
/// atomically so a server reading it never sees half a file.
struct TokenFile {
    let path: String

    /// Identifies one version of the file: when any of these changes, the file was replaced.
    struct Identity: Equatable {
        var inode: UInt64
        var size: Int64
        var modified: timespec

        static func == (a: Identity, b: Identity) -> Bool {
            a.inode == b.inode && a.size == b.size && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
        }
    }

    /// The file's identity now; `nil` if it does not exist.
    func identity() -> Identity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Identity(inode: UInt64(info.st_ino), size: Int64(info.st_size), modified: info.st_mtim)
    }

    /// The records; none if the file does not exist.
    func read() throws(TokenStoreError) -> [TokenRecord] {
        guard let data = FileManager.default.contents(atPath: path) else {
            if FileManager.default.fileExists(atPath: path) { throw .unreadable(path, "cannot read it") }
            return []
        }
        let document: JSONValue
        do { document = try JSONValue(parsing: data) } catch { throw .unreadable(path, "\(error)") }
        guard let entries = document["tokens"]?.arrayValue else { throw .unreadable(path, "$.tokens: expected an array") }
        var records: [TokenRecord] = []
        for (i, entry) in entries.enumerated() {
            guard let record = TokenRecord(json: entry) else {
                throw .unreadable(path, "$.tokens[\(i)]: expected {name, role (admin or user), sha256 (64 hex digits)}")
            }
            records.append(record)
        }
        return records
    }

    /// Runs `body` (a read, a change, a write) while holding an exclusive lock on `<file>.lock`, so
    /// two `tessera token` commands at once cannot lose one another's change. The server only
    /// reads, and needs no lock: each write replaces the file whole.
    func whileLocked<T>(_ body: () throws(TokenStoreError) -> T) throws(TokenStoreError) -> T {
        let directory = (path as NSString).deletingLastPathComponent
        do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
            throw .unwritable(path, "\(error)")
        }
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .unwritable(path, String(cString: strerror(errno))) }
        defer { close(fd) }  // closing releases the lock
        guard flock(fd, LOCK_EX) == 0 else { throw .unwritable(path, String(cString: strerror(errno))) }
        return try body()
    }

    /// Replaces the file with `records`: written to a temporary file made with mode 0600 (never
    /// readable by others, not even for a moment), synced, then renamed over the old one
    /// (``PrivateJSONFile/write(_:)``, as the console's accounts and sessions are); then advances
    /// the write count a server reads (``TokenFileGeneration``). Called while holding the lock.
    func write(_ records: [TokenRecord]) throws(TokenStoreError) {
        do { try PrivateJSONFile(path: path).write(.object(["tokens": .array(records.map(\.json))])) } catch {
            throw .unwritable(path, "\(error)")
        }
        // After the rename: a server that reads the new count finds the new file.
        TokenFileGeneration.advance(lockPath: lockPath)
    }

    /// The lock file writers hold (``whileLocked(_:)``), whose first eight bytes count the writes
    /// (``TokenFileGeneration``).
    var lockPath: String { path + ".lock" }
}

/// Why the token file could not be used or changed.
public enum TokenStoreError: Error, CustomStringConvertible {
    case unreadable(String, String)
    case unwritable(String, String)
    case invalidName(String)
    case invalidRole(String)
    case exists(String)
    case notFound(String)

    public var description: String {
        switch self {
        case .unreadable(let path, let why): "token file \(path) is unreadable: \(why)"
        case .unwritable(let path, let why): "cannot write the token file \(path): \(why)"
        case .invalidName(let name):
            "token name: expected 1–64 characters of a-z, 0-9, '.', '_' and '-', starting with a letter or digit, found '\(name)'"
        case .invalidRole(let role): "token role: expected admin, user or metrics, found '\(role)'"
        case .exists(let name): "a token named '\(name)' exists already; rotate it, or revoke it first"
        case .notFound(let name): "no token named '\(name)'"
        }
    }
}
