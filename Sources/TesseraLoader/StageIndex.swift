import Foundation

/// What identifies a build on disk without reading its bytes: the inode it lives in, its size, the
/// times it was last written and last changed, and the GNU build ID its linker stamped into it.
///
/// Staging a build means reading, hashing and copying all of it (about 600 µs of a 760 µs load for
/// the example plugin). A host that restarts with the same builds need not do that again: when a
/// build's identity is the one it had when it was staged, its staged copy is the same bytes.
struct BuildIdentity: Equatable {
    /// The cheap part, from one `stat`.
    struct Stamp: Equatable {
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
    }

    let stamp: Stamp
    /// The `.note.gnu.build-id` of an ELF build (the linker derives it from the contents), `nil`
    /// for a file that is not ELF or has none.
    let buildID: String?

    init?(path: String) {
        guard let stamp = Stamp(path: path) else { return nil }
        self.stamp = stamp
        buildID = (try? ELFFile(path: path))?.gnuBuildID
    }

    /// Whether the file was last written or changed at least `settleTime` ago. The kernel stamps
    /// times at the granularity of its clock tick (milliseconds), so a build rewritten in place
    /// within a tick of its staging keeps the same stamp; like git's "racily clean" entries, an
    /// identity that young is never trusted, and such a build is staged in full every time.
    func isSettled(for settleTime: Duration) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let nowNanos = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
        let settle = settleTime.components
        let settleNanos = settle.seconds * 1_000_000_000 + settle.attoseconds / 1_000_000_000
        return nowNanos - max(stamp.modified, stamp.changed) >= settleNanos
    }
}

/// The stage's memory of what it staged: one small file per build under `<root>/.index/`, named by
/// the build's device and inode, holding the identity it had and the content address it got.
///
/// A cache, not a record: a missing, torn or stale entry only means the build is staged in full.
struct StageIndex {
    let folder: String

    init(root: String) { folder = (root as NSString).appendingPathComponent(".index") }

    /// The sha256 the build had when it was staged under `name`, if it is still the same build.
    func contentAddress(of identity: BuildIdentity, name: String) -> String? {
        guard let text = try? String(contentsOfFile: entryPath(identity.stamp), encoding: .utf8) else { return nil }
        // The name comes last and may hold spaces: split off the five fields before it only.
        let fields = text.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 6, fields[5] == name, matches(fields, identity) else { return nil }
        return fields[4]
    }

    /// Remembers that the build with `identity` was staged as `sha256` under `name`.
    func record(_ identity: BuildIdentity, sha256: String, name: String) {
        if access(folder, F_OK) != 0 { try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        let target = entryPath(identity.stamp)
        let temporary = target + ".partial-\(getpid())"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(line(identity, sha256: sha256, name: name).utf8)) else { return }
        if rename(temporary, target) != 0 { unlink(temporary) }
    }

    private func entryPath(_ stamp: BuildIdentity.Stamp) -> String {
        (folder as NSString).appendingPathComponent("\(stamp.device)-\(stamp.inode)")
    }

    private func line(_ identity: BuildIdentity, sha256: String, name: String) -> String {
        "\(identity.stamp.size) \(identity.stamp.modified) \(identity.stamp.changed) \(identity.buildID ?? "-") \(sha256) \(name)"
    }

    private func matches(_ fields: [String], _ identity: BuildIdentity) -> Bool {
        fields[0] == String(identity.stamp.size) && fields[1] == String(identity.stamp.modified)
            && fields[2] == String(identity.stamp.changed) && fields[3] == (identity.buildID ?? "-")
    }
}
