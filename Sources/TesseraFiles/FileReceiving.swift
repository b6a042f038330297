import Foundation
import Glibc
import TesseraLoader
import TesseraSDK
import TesseraSystem

/// Files that come from the hub (docs/files.md, "Through the hub"): a synced record refers to a
/// file this device does not have; its bytes arrive in pieces into `incoming/<address>.part`
/// (each piece `fsync`ed, so an interrupted transfer resumes where it stopped, even after a
/// restart), are checked against their address, and then stored like any put.
extension FileStore {
    func incomingPath(_ plugin: String, _ address: String) -> String { "\(directory(of: plugin))/incoming/\(address).part" }

    /// How many bytes of `address` have arrived so far.
    public func receivedSize(plugin: String, address: String) throws -> Int64 {
        try Self.checkAddress(address)
        let attributes = try? FileManager.default.attributesOfItem(atPath: incomingPath(plugin, address))
        return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// Appends the next piece of `address`'s bytes (durable when this returns).
    public func appendReceived(plugin: String, address: String, bytes: [UInt8]) throws {
        try Self.checkAddress(address)
        let path = incomingPath(plugin, address)
        try FileSystem.makeDirectory((path as NSString).deletingLastPathComponent)
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileSystem.failure("opening", path) }
        defer { close(fd) }
        try bytes.withUnsafeBytes { try FileSystem.write(fd, $0, path: path) }
        try FileSystem.sync(fd, path: path)
    }

    /// Forgets what arrived of `address`.
    public func discardReceived(plugin: String, address: String) {
        guard Self.isAddress(address) else { return }
        Glibc.unlink(incomingPath(plugin, address))
    }

    /// Stores the bytes that arrived for `address` through `channel` (its media types and quota
    /// apply, as to any put) once they hash to the address; bytes that do not are deleted and
    /// refused (`unprocessable`), never stored.
    public func adoptReceived(address: String, through channel: PluginFileChannel) async throws -> FileDescriptor {
        let path = incomingPath(channel.pluginID, address)
        let found = try Self.sha256(of: path)
        guard found == address else {
            Glibc.unlink(path)
            throw PluginError(.unprocessable, "files: the bytes fetched from the hub hash to \(found), not to \(address): they were discarded")
        }
        let writer = try channel.makeWriter(mediaType: nil)
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystem.failure("opening", path) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { chunk in SystemCall.retryingInterrupted { read(fd, chunk.baseAddress!, chunk.count) } }
            guard n >= 0 else { throw FileSystem.failure("reading", path) }
            if n == 0 { break }
            try buffer.withUnsafeBytes { try writer.write(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
        }
        let descriptor = try await writer.finish()
        Glibc.unlink(path)
        return descriptor
    }

    static func sha256(of path: String) throws -> String {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystem.failure("opening", path) }
        defer { close(fd) }
        var hash = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { chunk in SystemCall.retryingInterrupted { read(fd, chunk.baseAddress!, chunk.count) } }
            guard n >= 0 else { throw FileSystem.failure("reading", path) }
            if n == 0 { break }
            buffer.withUnsafeBytes { hash.update(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
        }
        return SHA256.hex(hash.finalize())
    }

    // MARK: Uploads still owed to the hub

    /// Notes (or, with `pending` false, clears) that `address` is still to be uploaded.
    public func setPendingUpload(plugin: String, address: String, pending: Bool) throws {
        try Self.checkAddress(address)
        try index.withConnection { db in
            try db.cachedStatement(pending ? "INSERT OR IGNORE INTO pending_uploads (plugin, address) VALUES (?, ?)"
                                           : "DELETE FROM pending_uploads WHERE plugin = ? AND address = ?")
                .execute([.text(plugin), .text(address)])
        }
    }

    /// The files of the plugin still to be uploaded, sorted.
    public func pendingUploads(plugin: String) throws -> [String] {
        try index.withConnection { db in
            try db.fetchAll("SELECT address FROM pending_uploads WHERE plugin = ? ORDER BY address", [.text(plugin)]).compactMap { $0[0].text }
        }
    }

    // MARK: References that came with synced records

    /// Links a record to a file the plugin may not have yet (the record came from another
    /// device): when the file arrives it is linked already, and reading it fetches it.
    public func linkReference(plugin: String, address: String, table: String, id: String) throws {
        try Self.checkAddress(address)
        try index.withConnection { db in
            try db.cachedStatement("INSERT OR IGNORE INTO links (plugin, address, table_name, record_id) VALUES (?, ?, ?, ?)")
                .execute([.text(plugin), .text(address), .text(table), .text(id)])
        }
    }

    /// Whether some record of the plugin is linked to `address`.
    public func isLinked(plugin: String, address: String) throws -> Bool {
        try Self.checkAddress(address)
        return try index.withConnection { db in
            try db.cachedStatement("SELECT 1 FROM links WHERE plugin = ? AND address = ? LIMIT 1").fetchOne([.text(plugin), .text(address)]) != nil
        }
    }

    /// The addresses the plugin's records are linked to whose bytes are not here, sorted.
    public func missingLinked(plugin: String) throws -> [String] {
        try index.withConnection { db in
            try db.fetchAll("""
                SELECT DISTINCT address FROM links l WHERE plugin = ?
                AND NOT EXISTS (SELECT 1 FROM files f WHERE f.plugin = l.plugin AND f.address = l.address) ORDER BY address
                """, [.text(plugin)]).compactMap { $0[0].text }
        }
    }

    /// Drops the links of records this device no longer holds (a space it left or was removed
    /// from), and at once the files no other record links to: a revoked member's device keeps no
    /// copy, without waiting for the collector's grace. The addresses removed.
    @discardableResult
    public func dropCopies(plugin: String, records: [(table: String, id: String)]) throws -> [String] {
        try index.withConnection { db in
            var touched = Set<String>()
            for record in records {
                let addresses = try db.cachedStatement("SELECT address FROM links WHERE plugin = ? AND table_name = ? AND record_id = ?")
                    .fetchAll([.text(plugin), .text(record.table), .text(record.id)]).compactMap { $0[0].text }
                touched.formUnion(addresses)
                try db.cachedStatement("DELETE FROM links WHERE plugin = ? AND table_name = ? AND record_id = ?")
                    .execute([.text(plugin), .text(record.table), .text(record.id)])
            }
            var removed: [String] = []
            for address in touched.sorted() {
                try db.cachedStatement("""
                    DELETE FROM files WHERE plugin = ? AND address = ?
                    AND NOT EXISTS (SELECT 1 FROM links l WHERE l.plugin = files.plugin AND l.address = files.address)
                    """).execute([.text(plugin), .text(address)])
                guard db.changes > 0 else { continue }
                Glibc.unlink(objectPath(plugin, address))
                Glibc.unlink(incomingPath(plugin, address))
                removed.append(address)
            }
            return removed
        }
    }
}
