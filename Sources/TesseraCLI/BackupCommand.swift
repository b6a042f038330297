import ArgumentParser
import Foundation
import TesseraLoader
import TesseraSDK
import TesseraSQLite

/// `tessera backup` and `tessera restore` (issue 46): one archive of a host's data directory,
/// written while the host serves, and a data directory made again from it.
///
/// Every SQLite store is copied with SQLite's online backup API, each in one step under a read
/// transaction: a consistent state of that store, with every write committed before the copy
/// began (a writer waits the moment the copy takes, then goes on). The other files (the files
/// capability's content, the console's accounts) are copied as they are. Left out: what the host
/// makes again (`generations/`, the staged builds), and what belongs to a running process (WAL and
/// shared-memory files, locks, `host.json`, a first start's `admin-token`). The secrets store and
/// the API's token hashes are in unless `--without-secrets`; the archive is 0600 either way.
/// The archive is a tar file: `data/…` and, last, `tessera-backup.json` listing every member with
/// its size and SHA-256, which `restore` checks before it makes anything.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Write one consistent archive of a host's data, also while it serves.",
        discussion: "Every store through SQLite's online backup; the files as they are; the secrets and token hashes unless --without-secrets. Restore it with `tessera restore`.")
    @OptionGroup var host: HostArguments
    @Option(name: .long, help: "The archive to write (a tar file); it must not exist.") var to: String
    @Flag(name: .long, help: "Leave out the secrets (a module's stored passwords and bank tokens) and the API's tokens.") var withoutSecrets = false
    @Flag(name: .long, help: "Print JSON.") var json = false

    func run() async throws {
        try await reportingErrors {
            let data = try host.resolvedDataDirectory()
            guard FileManager.default.fileExists(atPath: data) else { throw CLIError(code: .notFound, message: "no data directory at \(data)") }
            umask(0o077)
            let summary: BackupArchive.Summary
            do { summary = try BackupArchive.write(dataDirectory: data, to: to, secrets: !withoutSecrets) } catch let error as BackupError {
                throw CLIError(code: .failure, message: error.description)
            }
            if json { say(summary.json.serialized()); return }
            say("backup of \(data) written to \(to): \(summary.stores) stores and \(summary.files) other files, \(summary.bytes) bytes"
                + (withoutSecrets ? " (without the secrets and tokens)" : "; it holds the secrets and token hashes: keep it as safe as the host"))
        }
    }
}

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Make a data directory again from a `tessera backup` archive.",
        discussion: "Checks every member's SHA-256 and every store's integrity before the data directory appears; the directory must not exist or be empty.")
    @Argument(help: "The archive `tessera backup` wrote.") var archive: String
    @OptionGroup var host: HostArguments
    @Flag(name: .long, help: "Print JSON.") var json = false

    func run() async throws {
        try await reportingErrors {
            let data = try host.resolvedDataDirectory()
            umask(0o077)
            let summary: BackupArchive.Summary
            do { summary = try BackupArchive.restore(archive, into: data) } catch let error as BackupError {
                throw CLIError(code: .invalidInput, message: error.description)
            }
            if json { say(summary.json.serialized()); return }
            say("restored \(data) from \(archive): \(summary.stores) stores and \(summary.files) other files, \(summary.bytes) bytes, each checked")
        }
    }
}

/// The archive's contents and the two directions.
enum BackupArchive {
    static let manifestName = "tessera-backup.json"
    static let format = "tessera-backup 1"

    struct Summary {
        var stores = 0, files = 0, bytes = 0
        var json: JSONValue { ["stores": .integer(Int64(stores)), "files": .integer(Int64(files)), "bytes": .integer(Int64(bytes))] }
    }

    /// The names a backup leaves out: the host makes them again, or they belong to a process.
    static func leftOut(_ relative: String, secrets: Bool) -> Bool {
        let name = (relative as NSString).lastPathComponent
        if relative == "generations" || relative.hasPrefix("generations/") { return true }
        if name.hasSuffix("-wal") || name.hasSuffix("-shm") || name.hasSuffix("-journal") || name.hasSuffix(".lock") { return true }
        if ["host.json", "admin-token"].contains(relative) { return true }
        return !secrets && ["secrets.sqlite", "http-tokens.json"].contains(relative)
    }

    static func write(dataDirectory: String, to archive: String, secrets: Bool) throws -> Summary {
        let root = URL(fileURLWithPath: dataDirectory).standardizedFileURL.path
        let fd = open(archive, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw BackupError(errno == EEXIST ? "\(archive) exists: give a new file" : "cannot create \(archive): errno \(errno)")
        }
        var finished = false
        defer {
            close(fd)
            if !finished { unlink(archive) }  // never a half archive that looks whole
        }
        let writer = TarArchive.Writer(fd: fd)
        let now = Int(Date().timeIntervalSince1970)
        var summary = Summary()
        var listed: [JSONValue] = []
        let scratch = NSTemporaryDirectory() + "tessera-backup-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        for relative in try members(of: root, secrets: secrets) {
            let source = root + "/" + relative
            let isStore = relative.hasSuffix(".sqlite")
            // A store: a consistent copy first, through SQLite's online backup, then archived.
            let path = isStore ? try copyStore(source, into: scratch) : source
            var hash = SHA256()
            let size = try fileSize(path)
            try writer.add("data/" + relative, size: size, mtime: now) { write in
                try forEachChunk(of: path) { chunk in
                    hash.update(chunk)
                    try write(chunk)
                }
            }
            if isStore { try? FileManager.default.removeItem(atPath: path); summary.stores += 1 } else { summary.files += 1 }
            summary.bytes += size
            listed.append(["path": .string(relative), "size": .integer(Int64(size)), "sha256": .string(SHA256.hex(hash.finalize()))])
        }
        let manifest = Array(JSONValue.object(["format": .string(format), "members": .array(listed)]).prettySerialized().utf8)
        try writer.add(manifestName, size: manifest.count, mtime: now) { write in try manifest.withUnsafeBytes { try write($0) } }
        try writer.finish()
        guard fsync(fd) == 0 else { throw BackupError("cannot write \(archive) to disk: errno \(errno)") }
        finished = true
        return summary
    }

    /// Every regular file under `root` a backup keeps, folders first in name order.
    static func members(of root: String, secrets: Bool) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: root) else { throw BackupError("cannot read \(root)") }
        var found: [String] = []
        for case let relative as String in walker {
            if leftOut(relative, secrets: secrets) { if relative == "generations" { walker.skipDescendants() }; continue }
            var info = stat()
            guard lstat(root + "/" + relative, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            found.append(relative)
        }
        return found.sorted()
    }

    static func copyStore(_ source: String, into scratch: String) throws -> String {
        let copy = scratch + "/" + UUID().uuidString + ".sqlite"
        do {
            let from = try SQLiteConnection(path: source, mode: .readOnly)
            let to = try SQLiteConnection(path: copy)
            try from.copyDatabase(to: to)
        } catch {
            throw BackupError("cannot copy the store \(source): \(error)")
        }
        return copy
    }

    static func fileSize(_ path: String) throws -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { throw BackupError("cannot read \(path): errno \(errno)") }
        return Int(info.st_size)
    }

    static func forEachChunk(of path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw BackupError("cannot read \(path)") }
        defer { try? handle.close() }
        while let chunk = try handle.read(upToCount: 1 << 16), !chunk.isEmpty {
            try chunk.withUnsafeBytes { try body($0) }
        }
    }

    // MARK: Restore

    /// Restores into `dataDirectory`, which must not exist or be empty. Everything is written to a
    /// folder beside it, checked (every member's SHA-256 against the list, every store's
    /// `PRAGMA integrity_check`), and only then renamed into place: a damaged archive leaves nothing.
    static func restore(_ archive: String, into dataDirectory: String) throws -> Summary {
        let target = URL(fileURLWithPath: dataDirectory).standardizedFileURL.path
        try requireAbsentOrEmptyFolder(target)
        let staging = target + ".restoring-\(getpid())"
        try? FileManager.default.removeItem(atPath: staging)
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        var done = false
        defer { if !done { try? FileManager.default.removeItem(atPath: staging) } }
        var hashes: [String: (size: Int, sha256: String)] = [:]
        var manifest: JSONValue?
        try TarArchive.read(archive) { member, chunks in
            if member.name == manifestName {
                var bytes: [UInt8] = []
                while let chunk = try chunks() { bytes += chunk }
                manifest = try? JSONValue(parsing: bytes)
                return
            }
            guard member.name.hasPrefix("data/"), !member.name.contains("/../"), !member.name.hasSuffix("/..") else {
                throw BackupError("\(archive): a member outside the data directory (\(member.name)): not a tessera backup")
            }
            let relative = String(member.name.dropFirst("data/".count))
            let path = staging + "/" + relative
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw BackupError("cannot write \(path): errno \(errno)") }
            defer { close(fd) }
            let writer = TarArchive.Writer(fd: fd)
            var hash = SHA256()
            while let chunk = try chunks() {
                hash.update(chunk)
                try writer.writeAll(chunk)
            }
            hashes[relative] = (member.size, SHA256.hex(hash.finalize()))
        }
        guard let manifest, manifest["format"]?.stringValue == format, let listed = manifest["members"]?.arrayValue else {
            throw BackupError("\(archive) has no list of its members (\(manifestName)): not a whole tessera backup")
        }
        var summary = Summary()
        for entry in listed {
            guard let path = entry["path"]?.stringValue, let sha = entry["sha256"]?.stringValue else { continue }
            guard let found = hashes.removeValue(forKey: path) else { throw BackupError("\(archive) lacks \(path), which its list names") }
            guard found.sha256 == sha else { throw BackupError("\(path) in \(archive) is damaged: its SHA-256 is not the one listed") }
            if path.hasSuffix(".sqlite") {
                try checkStore(staging + "/" + path)
                summary.stores += 1
            } else {
                summary.files += 1
            }
            summary.bytes += found.size
        }
        if let extra = hashes.keys.sorted().first { throw BackupError("\(archive) holds \(extra), which its list does not name") }
        try? FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        // An empty folder, checked above: rmdir, which removes nothing else whatever happened meanwhile.
        guard Glibc.rmdir(target) == 0 || errno == ENOENT else { throw BackupError("cannot replace the empty folder \(target): errno \(errno)") }
        guard rename(staging, target) == 0 else { throw BackupError("cannot move the restored data to \(target): errno \(errno)") }
        done = true
        return summary
    }

    /// Refuses a target that exists and is not an empty folder (a file, a folder with anything in
    /// it, or one that cannot be read): only a target that is absent or empty is ever replaced.
    static func requireAbsentOrEmptyFolder(_ target: String) throws {
        var info = stat()
        guard lstat(target, &info) == 0 else {
            if errno == ENOENT { return }
            throw BackupError("cannot look at \(target): errno \(errno); restore into a new or empty data directory")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw BackupError("\(target) is a file, not a folder: restore into a new or empty data directory")
        }
        let existing: [String]
        do { existing = try FileManager.default.contentsOfDirectory(atPath: target) } catch {
            throw BackupError("cannot read \(target) (\(error.localizedDescription)): restore into a new or empty data directory")
        }
        guard existing.isEmpty else {
            throw BackupError("\(target) is not empty: restore into a new or empty data directory (move the old one aside first)")
        }
    }

    static func checkStore(_ path: String) throws {
        do {
            let store = try SQLiteConnection(path: path, mode: .readOnly)
            let verdict = try store.fetchOne("PRAGMA integrity_check")?.first
            guard case .text("ok") = verdict else { throw BackupError("the store \(path) fails SQLite's integrity check: \(String(describing: verdict))") }
        } catch let error as BackupError { throw error } catch {
            throw BackupError("the store \(path) cannot be read: \(error)")
        }
        // The check's reader left an empty log and its index beside the store: the host makes its own.
        if (try? fileSize(path + "-wal")) == 0 { unlink(path + "-wal"); unlink(path + "-shm") }
    }
}
