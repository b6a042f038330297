import Foundation
import TesseraSystem

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
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The stamp of the file `fstat` described; `nil` unless it is a regular file.
    init?(_ info: stat) {
        guard (info.st_mode & S_IFMT) == S_IFREG else { return nil }
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

/// A build file held open for the stage's look-up, so that its stamp (from `fstat`) and its build
/// ID are read from the same inode, with one `open` between them.
struct OpenBuild: ~Copyable {
    let descriptor: Int32
    let stamp: BuildStamp

    /// `nil` if the file cannot be opened or is not a regular file.
    init?(path: String) {
        guard case .success(let (fd, info)) = RegularFile.open(path) else { return nil }
        guard let stamp = BuildStamp(info) else {
            close(fd)
            return nil
        }
        descriptor = fd
        self.stamp = stamp
    }

    deinit { close(descriptor) }

    /// The build ID as ``ELFFile/gnuBuildID(path:)`` reads it (through the program headers, no
    /// section table), or "-" for a file that is not ELF or has none.
    func buildID() -> String {
        (try? ELFFile.gnuBuildID(descriptor: descriptor, size: Int(stamp.size))) ?? "-"
    }
}

/// The stage's memory of what it staged: one small file per build under `<root>/.index/`, named by
/// the build's device and inode, holding the stamp and build ID it had and the content address
/// its copy got.
///
/// A cache, not a record: a missing, torn or stale entry only means the build is staged in full.
struct StageIndex {
    /// What the index remembers of one build.
    struct Entry {
        /// The content address of its staged copy.
        let sha256: String
        /// What gate 1 read from the staged copy.
        let facts: LibraryFacts
        /// The build ID the build had, as ``OpenBuild/buildID()`` reads it ("-" for none).
        var buildID: String { facts.buildID ?? "-" }
    }

    /// The first field of an entry: the format it is written in. An entry in another format (an
    /// older host's) is not read, and the build is staged in full again.
    static let format = "v2"

    let folder: String

    init(root: String) { folder = PathText.join(root, ".index") }

    /// What was staged from the build under `name` when it had this very stamp.
    func entry(for stamp: BuildStamp, name: String) -> Entry? {
        guard let bytes = Self.smallFile(at: entryPath(stamp)) else { return nil }
        return bytes.withUnsafeBufferPointer { Self.entry(in: $0, for: stamp, name: name) }
    }

    /// Remembers that the build with `stamp` was staged as `sha256` under `name`, and what gate 1
    /// read from the copy.
    func record(_ stamp: BuildStamp, sha256: String, facts: LibraryFacts, name: String) {
        // The stage's folder exists (the copy was just written into it): only the index's may not.
        // Plain system calls, not `FileManager`: Foundation's first file write in a process costs
        // more (its type look-ups) than staging a small build.
        guard mkdir(folder, 0o755) == 0 || errno == EEXIST else { return }
        let target = entryPath(stamp)
        let temporary = target + ".partial-\(getpid())"
        let stampText = facts.stampSection.map { "x" + ELFFile.hexBytes($0) } ?? "-"
        let links = (facts.linksSharedSDK ? "1" : "0") + (facts.linksSharedSwiftRuntime ? "1" : "0")
        let line = "\(Self.format) \(stamp.size) \(stamp.modified) \(stamp.changed) \(facts.buildID ?? "-") \(sha256) "
            + "\(stampText) \(facts.embeddedSDKTypes) \(links) \(name)"
        guard Self.write(Array(line.utf8), to: temporary), rename(temporary, target) == 0 else {
            unlink(temporary)
            return
        }
    }

    /// The entry a line holds, if it is whole, in this format, and of this stamp and name.
    ///
    /// The line, fields apart by one space: the format; the size, write time and change time; the
    /// build ID (`-` for none); the sha256; then gate 1's facts: the stamp section (`x` and its
    /// bytes in hex, or `-`), how many SDK types the file defines, and two digits, 1 or 0, for
    /// whether it links the shared SDK and the shared Swift runtime; last the name, which may
    /// hold spaces. Read on the bytes, without a `String` per field: this runs on every host
    /// start, where splitting the line by grapheme cost more than reading the file.
    static func entry(in line: UnsafeBufferPointer<UInt8>, for stamp: BuildStamp, name: String) -> Entry? {
        var cursor = 0
        func next() -> Slice<UnsafeBufferPointer<UInt8>>? {
            guard let end = line[cursor...].firstIndex(of: UInt8(ascii: " ")) else { return nil }
            defer { cursor = end + 1 }
            return line[cursor..<end]
        }
        guard let format = next(), format.elementsEqual(Self.format.utf8),
              let size = next(), decimal(size) == stamp.size,
              let modified = next(), decimal(modified) == stamp.modified,
              let changed = next(), decimal(changed) == stamp.changed,
              let buildID = next(), let sha256 = next(),
              let stampField = next(), let stampSection = Self.stampSection(stampField),
              let embedded = next().flatMap(decimal),
              let links = next(), links.count == 2, links.allSatisfy({ $0 == UInt8(ascii: "0") || $0 == UInt8(ascii: "1") }),
              line[cursor...].elementsEqual(name.utf8)
        else { return nil }
        let id = String(decoding: buildID, as: UTF8.self)
        let facts = LibraryFacts(stampSection: stampSection.bytes, embeddedSDKTypes: Int(embedded),
                                 linksSharedSDK: links.first == UInt8(ascii: "1"), linksSharedSwiftRuntime: links.last == UInt8(ascii: "1"),
                                 buildID: id == "-" ? nil : id, size: Int(stamp.size))
        return Entry(sha256: String(decoding: sha256, as: UTF8.self), facts: facts)
    }

    /// A decimal integer, optionally negative (a write time before 1970); `nil` if malformed.
    private static func decimal(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> Int64? {
        var rest = digits[...]
        let negative = rest.first == UInt8(ascii: "-")
        if negative { rest = rest.dropFirst() }
        guard !rest.isEmpty else { return nil }
        var value: Int64 = 0
        for c in rest {
            guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int64(c - UInt8(ascii: "0")))
            guard !o1, !o2 else { return nil }
            value = sum
        }
        return negative ? -value : value
    }

    /// The stamp section's field read back: `-` for no section, else `x` and its bytes in hex.
    private struct StampField {
        let bytes: [UInt8]?
    }

    /// `nil` if the field is malformed.
    private static func stampSection(_ field: Slice<UnsafeBufferPointer<UInt8>>) -> StampField? {
        if field.elementsEqual("-".utf8) { return StampField(bytes: nil) }
        guard field.first == UInt8(ascii: "x"), field.count % 2 == 1 else { return nil }
        let hex = field.dropFirst()
        var valid = true
        let bytes = [UInt8](unsafeUninitializedCapacity: hex.count / 2) { buffer, initialized in
            var i = hex.startIndex
            while i < hex.endIndex {
                guard let high = hexDigit(hex[i]), let low = hexDigit(hex[i + 1]) else { valid = false; break }
                buffer[initialized] = high << 4 | low
                initialized += 1
                i += 2
            }
        }
        return valid ? StampField(bytes: bytes) : nil
    }

    private static func hexDigit(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    /// Writes `bytes` to a new file at `path`; `false` if any of it could not be written.
    private static func write(_ bytes: [UInt8], to path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        do { try bytes.withUnsafeBytes { buffer in try SystemCall.writeAll(fd, buffer) } } catch { return false }
        return true
    }

    /// The bytes of the file at `path` if it is at most 4 KiB (an entry is about 300 bytes): one
    /// `open`, one `read`, one `close`. This is on every host start's path, where Foundation's file
    /// reading cost more than the look-up it serves.
    private static func smallFile(at path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let limit = 4096
        // One read: a regular file gives all it has up to the count asked (a signal aside), so a
        // second read would only see the end.
        var count = -1
        let bytes = [UInt8](unsafeUninitializedCapacity: limit + 1) { buffer, initialized in
            count = SystemCall.retryingInterrupted { read(fd, buffer.baseAddress!, limit + 1) }
            initialized = max(count, 0)
        }
        return count >= 0 && count <= limit ? bytes : nil
    }

    private func entryPath(_ stamp: BuildStamp) -> String {
        folder + "/\(stamp.device)-\(stamp.inode)"
    }
}
