import Foundation

/// What identifies a build file without reading its bytes: the inode it lives in, its size, and
/// the times it was last written and last changed.
///
/// Staging a build means reading, hashing and copying all of it (about 600 µs of a 760 µs load for
/// the example plugin). A host that restarts with the same builds need not do that again: when a
/// build's stamp is the one it had when it was staged, and so is its GNU build ID, its staged copy
/// is the same bytes.
struct BuildStamp: Equatable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    /// Last write, in nanoseconds since 1970: forgeable (`touch -d`), hence not trusted alone.
    let modified: Int64
    /// Last change of the inode, in nanoseconds: set by the kernel on every write, not forgeable.
    let changed: Int64

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
    }

    /// Whether the file was last written or changed at least `settleTime` ago. The kernel stamps
    /// times at the granularity of its clock tick (milliseconds), so a build rewritten in place
    /// within a tick of its staging keeps the same stamp; like git's "racily clean" entries, a
    /// stamp that young is never trusted, and such a build is staged in full every time.
    func isSettled(for settleTime: Duration) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let nowNanos = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
        let settle = settleTime.components
        let settleNanos = settle.seconds * 1_000_000_000 + settle.attoseconds / 1_000_000_000
        return nowNanos - max(modified, changed) >= settleNanos
    }
}

/// The `.note.gnu.build-id` of an ELF build (the linker derives it from the contents), or "-" for
/// a file that is not ELF or has none.
func buildID(of elf: () throws -> ELFFile) -> String {
    (try? elf())?.gnuBuildID ?? "-"
}

/// The build ID of the file at `path` as ``buildID(of:)`` gives it, read through the program
/// headers (``ELFFile/gnuBuildID(path:)``): the stage's look-up reads no section table.
func buildID(atPath path: String) -> String {
    (try? ELFFile.gnuBuildID(path: path)) ?? "-"
}

/// The stage's memory of what it staged: one small file per build under `<root>/.index/`, named by
/// the build's device and inode, holding the stamp and build ID it had and the content address
/// its copy got.
///
/// A cache, not a record: a missing, torn or stale entry only means the build is staged in full.
struct StageIndex {
    /// What the index remembers of one build.
    struct Entry {
        let buildID: String
        let sha256: String
    }

    let folder: String

    init(root: String) { folder = PathText.join(root, ".index") }

    /// What was staged from the build under `name` when it had this very stamp.
    ///
    /// Compared as bytes: this runs on every host start, where splitting the entry as a `String`
    /// (by grapheme) cost more than reading it.
    func entry(for stamp: BuildStamp, name: String) -> Entry? {
        guard let bytes = Self.smallFile(at: entryPath(stamp)) else { return nil }
        // The name comes last and may hold spaces: the five fields before it end at the first
        // five spaces.
        var fields: [ArraySlice<UInt8>] = []
        var start = 0
        for i in bytes.indices where bytes[i] == UInt8(ascii: " ") && fields.count < 5 {
            fields.append(bytes[start..<i])
            start = i + 1
        }
        guard fields.count == 5, bytes[start...].elementsEqual(name.utf8),
              fields[0].elementsEqual(String(stamp.size).utf8), fields[1].elementsEqual(String(stamp.modified).utf8),
              fields[2].elementsEqual(String(stamp.changed).utf8) else { return nil }
        return Entry(buildID: String(decoding: fields[3], as: UTF8.self), sha256: String(decoding: fields[4], as: UTF8.self))
    }

    /// Remembers that the build with `stamp` and `buildID` was staged as `sha256` under `name`.
    func record(_ stamp: BuildStamp, buildID: String, sha256: String, name: String) {
        if access(folder, F_OK) != 0 { try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        let target = entryPath(stamp)
        let temporary = target + ".partial-\(getpid())"
        let line = "\(stamp.size) \(stamp.modified) \(stamp.changed) \(buildID) \(sha256) \(name)"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(line.utf8)) else { return }
        if rename(temporary, target) != 0 { unlink(temporary) }
    }

    /// The bytes of the file at `path` if it is at most 4 KiB (an entry is about 200 bytes), read
    /// with `BoundedFile`'s `pread`: this is on every host start's path, where Foundation's file
    /// reading cost more than the look-up it serves.
    private static func smallFile(at path: String) -> [UInt8]? {
        do {
            let file = try BoundedFile(path: path)
            guard file.size <= 4096 else { return nil }
            return try file.read(at: 0, count: file.size, "stage index entry")
        } catch {
            return nil
        }
    }

    private func entryPath(_ stamp: BuildStamp) -> String {
        folder + "/\(stamp.device)-\(stamp.inode)"
    }
}
