import TesseraSDK
import Foundation
import Glibc
import TesseraLoader
import TesseraSystem

/// The bytes of the files that pass through the hub, on disk, named by their SHA-256 (docs/hub.md,
/// "Files"). Whatever the hub's store (SQLite or PostgreSQL), the bytes live here and only their
/// metadata in the store; hub replicas over one PostgreSQL database share this directory.
///
/// ```
/// <dir>/objects/ab/abcd…ef          a whole file, verified against its name
/// <dir>/partial/<address>.<person>  one person's upload under way (resumable)
/// ```
///
/// A file reaches `objects/` only whole: its upload is appended to a partial file (each request's
/// bytes `fsync`ed before the answer), hashed once complete, and renamed into place (the directory
/// `fsync`ed). Bytes that do not hash to their address are deleted, never published.
public struct HubBlobStore: Sendable {
    /// The directory (created mode 0700 on first write).
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    func objectPath(_ address: String) -> String { "\(directory)/objects/\(address.prefix(2))/\(address)" }
    func partialPath(_ address: String, person: String) -> String { "\(directory)/partial/\(address).\(person)" }

    /// Whether the whole file is on disk.
    func contains(_ address: String) -> Bool { access(objectPath(address), F_OK) == 0 }

    /// How many bytes of `person`'s upload of `address` arrived (0 if none).
    func partialSize(_ address: String, person: String) -> Int64 {
        let attributes = try? FileManager.default.attributesOfItem(atPath: partialPath(address, person: person))
        return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// Appends the bytes of `body` to `person`'s upload of `address`, which must hold exactly
    /// `offset` bytes, up to `size` in all. What arrived is kept (and `fsync`ed) even when the
    /// body breaks off: the upload resumes from there. Returns the bytes the upload now holds.
    func append<Body: AsyncSequence>(_ body: Body, to address: String, person: String, offset: Int64, size: Int64) async throws -> Int64
    where Body.Element == [UInt8] {
        let path = partialPath(address, person: person)
        try Self.makeDirectory((path as NSString).deletingLastPathComponent)
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Self.failure("opening", path) }
        defer { close(fd) }
        // One request at a time appends to one person's upload of a file (two would interleave).
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            throw HubError(.conflict, "upload_busy", "another request is uploading this file for you: wait for it, then resume from the offset")
        }
        var held = Int64(lseek(fd, 0, SEEK_END))
        guard held == offset else {
            throw HubError(.conflict, "upload_offset", "the hub holds \(held) bytes of this upload, not \(offset): send from byte \(held)", field: "offset")
        }
        do throws(any Error) {
            for try await chunk in body {
                guard held + Int64(chunk.count) <= size else {
                    throw HubError(.invalidInput, "upload_too_long", "more bytes than the \(size) the upload declared", field: "size")
                }
                try chunk.withUnsafeBytes { try Self.write(fd, $0, path: path) }
                held += Int64(chunk.count)
            }
        } catch {
            fsync(fd)  // keep what arrived: the device resumes from it
            throw error
        }
        guard fsync(fd) == 0 else { throw Self.failure("syncing", path) }
        return held
    }

    /// Checks a complete upload against its address: the bytes are hashed; a mismatch deletes them
    /// (`hash_mismatch`). Returns the path of the verified partial file.
    func verify(_ address: String, person: String) throws -> String {
        let path = partialPath(address, person: person)
        let found = try Self.sha256(of: path)
        guard found == address else {
            unlink(path)
            throw HubError(.unprocessable, "hash_mismatch",
                           "the bytes uploaded hash to \(found), not to the address \(address): nothing was kept, upload the file again")
        }
        return path
    }

    /// Moves a verified upload into place (atomic: the name holds the whole file or nothing), or
    /// drops it when the same bytes are there already.
    func publish(verified path: String, as address: String) throws {
        let target = objectPath(address)
        let folder = (target as NSString).deletingLastPathComponent
        try Self.makeDirectory(folder)
        if contains(address) {
            unlink(path)
            return
        }
        guard rename(path, target) == 0 else { throw Self.failure("renaming to", target) }
        let fd = Glibc.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Self.failure("opening", folder) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw Self.failure("syncing", folder) }
    }

    /// Removes a file's bytes.
    func remove(_ address: String) { unlink(objectPath(address)) }

    /// Removes `person`'s upload under way.
    func removePartial(_ address: String, person: String) { unlink(partialPath(address, person: person)) }

    /// Opens a whole file for reading; `nil` if it is not here.
    func open(_ address: String) -> HubBlob? {
        let fd = Glibc.open(objectPath(address), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        let size = lseek(fd, 0, SEEK_END)
        guard size >= 0 else {
            close(fd)
            return nil
        }
        return HubBlob(fd: fd, size: Int64(size))
    }

    // MARK: POSIX

    static func sha256(of path: String) throws -> String {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("opening", path) }
        defer { close(fd) }
        var hash = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { chunk in SystemCall.retryingInterrupted { read(fd, chunk.baseAddress!, chunk.count) } }
            guard n >= 0 else { throw failure("reading", path) }
            if n == 0 { break }
            buffer.withUnsafeBytes { hash.update(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
        }
        return SHA256.hex(hash.finalize())
    }

    static func makeDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        // The failure reads errno, which the failed write left.
        do { try SystemCall.writeAll(fd, bytes) } catch { throw failure("writing", path) }
    }

    static func failure(_ what: String, _ path: String) -> HubError {
        HubError(.internal, "store", "hub files: \(what) \(path) failed: \(String(cString: strerror(errno)))")
    }
}

/// One whole file opened for reading; an open file stays readable if it is collected meanwhile.
public final class HubBlob: Sendable {
    private let fd: Int32
    /// Its size in bytes.
    public let size: Int64

    init(fd: Int32, size: Int64) {
        self.fd = fd
        self.size = size
    }

    deinit { close(fd) }

    /// Up to `count` bytes from `offset` (fewer only at the end).
    public func read(at offset: Int64, count: Int) throws -> [UInt8] {
        let wanted = Int(max(0, min(Int64(count), size - offset)))
        var bytes = [UInt8](repeating: 0, count: wanted)
        var done = 0
        while done < wanted {
            let n = bytes.withUnsafeMutableBytes { buffer in
                SystemCall.retryingInterrupted { pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done)) }
            }
            guard n > 0 else { throw HubError(.internal, "store", "hub files: reading failed (errno \(errno))") }
            done += n
        }
        return bytes
    }
}
