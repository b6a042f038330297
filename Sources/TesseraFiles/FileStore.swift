import Foundation
import Glibc
import Synchronization
import TesseraSDK
import TesseraSQLite
import TesseraSystem

/// The host's file store: each plugin's files, content-addressed, under its data directory, and
/// one index of them (`<data>/files.sqlite`).
///
/// On disk, for plugin `p` (docs/files.md):
/// - `<data>/plugins/p/files/objects/ab/abcd…` — a file's bytes, named by their SHA-256;
/// - `<data>/plugins/p/files/tmp/*.part` — files being written, never read.
///
/// A file becomes visible in three steps, each durable before the next: its bytes are written to
/// a temporary file and `fsync`ed, renamed to their address (and the directory `fsync`ed), then
/// recorded in the index. A crash before the index commit leaves no row, so nothing is visible;
/// ``recover(plugin:)`` removes what such a crash left. The index is keyed by plugin, so a plugin
/// names only its own files.
///
/// Everything that changes which files exist (publishing, linking, collecting) runs holding the
/// index's connection, one at a time: that is what keeps a collection from removing a file that a
/// put or a link made live after the collection looked (``FileCollector``).
public final class FileStore: Sendable {
    /// The data directory.
    public let dataDirectory: String
    private let opened = Mutex<SQLiteDatabase?>(nil)

    /// The store of `dataDirectory`; its index is opened (and created) on first use, as most hosts
    /// never keep a file.
    public init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
    }

    /// The index, opened and migrated on first use.
    var index: SQLiteDatabase {
        get throws {
            try opened.withLock { opened in
                if let opened { return opened }
                let database = try SQLiteDatabase(path: (dataDirectory as NSString).appendingPathComponent("files.sqlite"))
                try database.migrate(FileIndexSchema.schema)
                opened = database
                return database
            }
        }
    }

    // MARK: Layout

    /// `<data>/plugins/<id>/files`.
    public func directory(of plugin: String) -> String {
        "\(dataDirectory)/plugins/\(plugin)/files"
    }

    func objectPath(_ plugin: String, _ address: String) -> String {
        "\(directory(of: plugin))/objects/\(address.prefix(2))/\(address)"
    }

    func temporaryDirectory(_ plugin: String) -> String { "\(directory(of: plugin))/tmp" }

    /// Whether `address` is a SHA-256 in lowercase hex: checked before it names a path.
    public static func isAddress(_ address: String) -> Bool {
        address.utf8.count == 64 && address.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Refuses an address that is not one (`invalid_input`), so no text reaches a path unchecked.
    static func checkAddress(_ address: String) throws(PluginError) {
        guard isAddress(address) else {
            throw PluginError(.invalidInput, "files: an address is 64 lowercase hex digits (a SHA-256), found '\(address.prefix(80))'")
        }
    }

    // MARK: Reading

    /// The plugin's file at `address`, or `nil`.
    public func descriptor(plugin: String, address: String) throws -> FileDescriptor? {
        try Self.checkAddress(address)
        return try index.withConnection { db in
            try db.cachedStatement("SELECT size, media_type FROM files WHERE plugin = ? AND address = ?")
                .fetchOne([.text(plugin), .text(address)])
                .map { FileDescriptor(address: address, size: $0[0].integer ?? 0, mediaType: $0[1].text ?? "") }
        }
    }

    /// Opens the plugin's file at `address` for reading; `notFound` if the plugin has no such file.
    public func open(plugin: String, address: String) throws -> StoredFile {
        guard let descriptor = try descriptor(plugin: plugin, address: address) else { throw Self.notFound(address) }
        let fd = Glibc.open(objectPath(plugin, address), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            // Collected between the lookup and the open: as if it had not been there. Any other
            // failure (no descriptors left, no permission) is not "no such file".
            if errno == ENOENT { throw Self.notFound(address) }
            throw PluginError(.internal, "files: \(address) could not be opened: \(String(cString: strerror(errno)))")
        }
        return StoredFile(descriptor: descriptor, fd: fd)
    }

    static func notFound(_ address: String) -> PluginError {
        PluginError(.notFound, "files: no file \(address) in this plugin's files")
    }

    /// The bytes the plugin's files take together.
    public func usage(plugin: String) throws -> Int64 {
        try index.withConnection { db in
            try db.cachedStatement("SELECT COALESCE(SUM(size), 0) FROM files WHERE plugin = ?").fetchOne([.text(plugin)])?[0].integer ?? 0
        }
    }

    // MARK: Publishing

    /// Makes a written, `fsync`ed temporary file visible under its address: checks the quota (a
    /// file the plugin already has costs nothing), renames it into place, `fsync`s the directory,
    /// and records it, so it is durable when this returns. Putting a file again restarts its grace
    /// period.
    func publish(plugin: String, temporary: String, descriptor: FileDescriptor, quota: Int64?, at now: Date) throws -> FileDescriptor {
        let target = objectPath(plugin, descriptor.address)
        let folder = (target as NSString).deletingLastPathComponent
        return try index.withConnection { db in
            let existing = try db.cachedStatement("SELECT media_type FROM files WHERE plugin = ? AND address = ?")
                .fetchOne([.text(plugin), .text(descriptor.address)])?[0].text
            if existing == nil, let quota {
                let used = try db.cachedStatement("SELECT COALESCE(SUM(size), 0) FROM files WHERE plugin = ?").fetchOne([.text(plugin)])?[0].integer ?? 0
                if used + descriptor.size > quota { throw FileWriter.quotaExceeded(used: used, adding: descriptor.size, quota: quota) }
            }
            try FileSystem.makeDirectory(folder)
            if existing == nil {
                try FileSystem.rename(temporary, to: target)
                try FileSystem.syncDirectory(folder)
            } else {
                Glibc.unlink(temporary)  // the same bytes are there already
            }
            try db.cachedStatement("""
                INSERT INTO files (plugin, address, size, media_type, created_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (plugin, address) DO UPDATE SET created_at = excluded.created_at
                """).execute([.text(plugin), .text(descriptor.address), .integer(descriptor.size), .text(descriptor.mediaType),
                              .real(now.timeIntervalSince1970)])
            // The first type recorded stays: the same bytes have one type.
            return FileDescriptor(address: descriptor.address, size: descriptor.size, mediaType: existing ?? descriptor.mediaType)
        }
    }

    // MARK: Links

    /// Links the plugin's file to a record; `notFound` if the plugin has no such file (it may have
    /// just been collected: put it again).
    public func link(plugin: String, address: String, table: String, id: String) throws {
        try Self.checkAddress(address)
        try index.withConnection { db in
            guard try db.cachedStatement("SELECT 1 FROM files WHERE plugin = ? AND address = ?").fetchOne([.text(plugin), .text(address)]) != nil else {
                throw Self.notFound(address)
            }
            try db.cachedStatement("INSERT OR IGNORE INTO links (plugin, address, table_name, record_id) VALUES (?, ?, ?, ?)")
                .execute([.text(plugin), .text(address), .text(table), .text(id)])
        }
    }

    /// Removes a link, if there is one.
    public func unlink(plugin: String, address: String, table: String, id: String) throws {
        try Self.checkAddress(address)
        try index.withConnection { db in
            try db.cachedStatement("DELETE FROM links WHERE plugin = ? AND address = ? AND table_name = ? AND record_id = ?")
                .execute([.text(plugin), .text(address), .text(table), .text(id)])
        }
    }

    /// The records linked to the plugin's file, sorted.
    public func links(plugin: String, address: String) throws -> [FileLink] {
        try Self.checkAddress(address)
        return try index.withConnection { db in
            try db.cachedStatement("SELECT table_name, record_id FROM links WHERE plugin = ? AND address = ? ORDER BY table_name, record_id")
                .fetchAll([.text(plugin), .text(address)]).map { FileLink(table: $0[0].text ?? "", id: $0[1].text ?? "") }
        }
    }

    // MARK: Collection (see FileCollector)

    /// Removes the links whose record is gone: `exists(plugin, table, id)` says whether the record
    /// is there (`nil`: it cannot tell, and the link stays). Each check and removal runs under the
    /// index's lock, which `link` takes too, so a record written and linked meanwhile keeps its
    /// link. The links removed.
    func pruneLinks(exists: (_ plugin: String, _ table: String, _ id: String) -> Bool?) throws -> Int {
        try index.withConnection { db in
            var removed = 0
            let links = try db.fetchAll("SELECT plugin, address, table_name, record_id FROM links ORDER BY plugin, address")
            for link in links {
                let (plugin, address, table, id) = (link[0].text ?? "", link[1].text ?? "", link[2].text ?? "", link[3].text ?? "")
                guard exists(plugin, table, id) == false else { continue }
                try db.cachedStatement("DELETE FROM links WHERE plugin = ? AND address = ? AND table_name = ? AND record_id = ?")
                    .execute([.text(plugin), .text(address), .text(table), .text(id)])
                removed += 1
            }
            return removed
        }
    }

    /// Files no record links to, put before `cutoff`: what a collection may remove.
    func unreferenced(before cutoff: Date) throws -> [(plugin: String, address: String)] {
        try index.withConnection { db in
            try db.fetchAll("""
                SELECT plugin, address FROM files f WHERE created_at < ?
                AND NOT EXISTS (SELECT 1 FROM links l WHERE l.plugin = f.plugin AND l.address = f.address)
                ORDER BY plugin, address
                """, [.real(cutoff.timeIntervalSince1970)]).map { ($0[0].text ?? "", $0[1].text ?? "") }
        }
    }

    /// Removes the file if it is still unreferenced and still put before `cutoff`, checked and
    /// removed under the index's lock, so a link or a put since the scan keeps it. Whether it was
    /// removed.
    func collect(plugin: String, address: String, before cutoff: Date) throws -> Bool {
        try index.withConnection { db in
            try db.cachedStatement("""
                DELETE FROM files WHERE plugin = ? AND address = ? AND created_at < ?
                AND NOT EXISTS (SELECT 1 FROM links l WHERE l.plugin = files.plugin AND l.address = files.address)
                """).execute([.text(plugin), .text(address), .real(cutoff.timeIntervalSince1970)])
            guard db.changes > 0 else { return false }
            Glibc.unlink(objectPath(plugin, address))
            return true
        }
    }

    /// Removes what a crash left in the plugin's files: temporary files, and bytes renamed into
    /// place whose index row was never committed (the put was never acknowledged). Call it only
    /// while nothing writes the plugin's files (before its first generation serves).
    public func recover(plugin: String) throws {
        let fm = FileManager.default
        let tmp = temporaryDirectory(plugin)
        for name in (try? fm.contentsOfDirectory(atPath: tmp)) ?? [] { Glibc.unlink("\(tmp)/\(name)") }
        try index.withConnection { db in
            let objects = "\(directory(of: plugin))/objects"
            for folder in (try? fm.contentsOfDirectory(atPath: objects)) ?? [] {
                for name in (try? fm.contentsOfDirectory(atPath: "\(objects)/\(folder)")) ?? [] {
                    let known = try db.cachedStatement("SELECT 1 FROM files WHERE plugin = ? AND address = ?").fetchOne([.text(plugin), .text(name)]) != nil
                    if !known { Glibc.unlink("\(objects)/\(folder)/\(name)") }
                }
            }
        }
    }
}

/// One stored file opened for reading. Its bytes never change (they are named by their hash), and
/// an open file stays readable even if it is collected meanwhile.
public final class StoredFile: Sendable {
    /// What the file is.
    public let descriptor: FileDescriptor
    private let fd: Int32

    init(descriptor: FileDescriptor, fd: Int32) {
        self.descriptor = descriptor
        self.fd = fd
    }

    deinit { close(fd) }

    /// Up to `count` bytes from `offset` (fewer only at the end of the file).
    public func read(at offset: Int64, count: Int) throws -> [UInt8] {
        let wanted = max(0, min(Int64(count), descriptor.size - offset))
        var bytes = [UInt8](repeating: 0, count: Int(wanted))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { buffer in
                SystemCall.retryingInterrupted { pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done)) }
            }
            guard n > 0 else { throw PluginError(.internal, "files: reading \(descriptor.address) failed (errno \(errno))") }
            done += n
        }
        return bytes
    }
}
