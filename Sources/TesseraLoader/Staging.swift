import Foundation
import TesseraSDK
import TesseraSystem

/// A plugin library copied to its content-addressed path: the bytes that gate 1 checks and gate 2
/// loads are the same bytes, whatever happens to the original file meanwhile.
public struct StagedLibrary: Sendable {
    /// The file the build came from.
    public let sourcePath: String
    /// The content-addressed copy: `<root>/<sha256>-<file name>`.
    public let path: String
    /// The sha256 of the bytes, lowercase hex.
    public let sha256: String
    /// What gate 1 judges, read from the copy when it was staged (or remembered by the stage
    /// index since), or why it could not be read: gate 1's refusal of the file.
    public let facts: Result<LibraryFacts, GateRefusal>
    /// The copy's bytes, mapped, when this staging wrote them (the ones that were hashed); `nil`
    /// for a copy the stage index vouched for, which is not opened.
    public let contents: LibraryBytes?
}

/// Copies plugin builds to content-addressed paths before they are checked and loaded.
///
/// `dlopen` of a path that is already loaded returns the old image even when the file changed, so
/// every build is loaded from `<root>/<sha256>-<file name>`: a new build gets a new path, the same
/// build the same one.
///
/// The folder is the host's own, like its databases: what it holds is trusted as the host wrote
/// it. A copy the index vouches for is not hashed again, and gate 1 judges the facts the index
/// kept for it; whoever can write the folder can already replace what the host loads.
public struct GenerationStore: Sendable {
    /// The folder holding the staged copies (and `.index/`, what was staged from where).
    public let root: String
    /// How long ago a build must have been written for its identity to be trusted (see
    /// ``BuildStamp/isSettled(for:)``); tests set it to zero to reach the index at once.
    let settleTime: Duration

    public init(root: String) { self.init(root: root, settleTime: .seconds(2)) }

    init(root: String, settleTime: Duration) {
        self.root = root
        self.settleTime = settleTime
    }

    /// The build's staged copy: the one staged before when the build is unchanged since (same
    /// inode, size, write and change times, and build ID), otherwise a new one — the build copied
    /// under a temporary name, hashed from the copy, and renamed to its content address,
    /// replacing any copy of the same build.
    ///
    /// No fsync: a staged copy is a cache of the build, written again whenever the index does not
    /// vouch for it, so a copy torn by a power loss is replaced rather than trusted (its size is
    /// checked, and an entry is written only after its copy is complete).
    public func stage(_ sourcePath: String) throws -> StagedLibrary {
        let name = PathText.fileName(of: sourcePath)
        let index = StageIndex(root: root)
        var stamp: BuildStamp?
        if let build = OpenBuild(path: sourcePath) {
            if let staged = stagedBefore(build, name: name, sourcePath: sourcePath, index: index) { return staged }
            stamp = build.stamp
        }
        if access(root, F_OK) != 0 { try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true) }
        let staged = try stageInFull(sourcePath, name: name)
        // Only a build that did not change while it was copied, and is old enough for its times to
        // tell a rewrite apart, is remembered, with what gate 1 read from the copy.
        if let stamp, stamp.isSettled(for: settleTime), BuildStamp(path: sourcePath) == stamp,
           staged.contents?.count == Int(stamp.size), case .success(let facts) = staged.facts {
            index.record(stamp, sha256: staged.sha256, facts: facts, name: name)
        }
        return staged
    }

    /// The copy staged from this very build before, if the index vouches for it and the copy is
    /// whole (its size: a copy is renamed into place only once written, so a short one was cut by
    /// something else). The build ID is read (the build's first kilobyte) only once the stamp
    /// matches; the copy is not opened: gate 1 judges the facts the index kept.
    private func stagedBefore(_ build: borrowing OpenBuild, name: String, sourcePath: String, index: StageIndex) -> StagedLibrary? {
        guard build.stamp.isSettled(for: settleTime), let entry = index.entry(for: build.stamp, name: name),
              build.buildID() == entry.buildID else { return nil }
        let path = PathText.join(root, "\(entry.sha256)-\(name)")
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int64(info.st_size) == build.stamp.size else { return nil }
        return StagedLibrary(sourcePath: sourcePath, path: path, sha256: entry.sha256, facts: .success(entry.facts), contents: nil)
    }

    private func stageInFull(_ sourcePath: String, name: String) throws -> StagedLibrary {
        let temporary = PathText.join(root, ".partial-\(getpid())-\(Self.uniqueSuffix())-\(name)")
        let (contents, sha256): (LibraryBytes, String)
        do {
            contents = try Self.copy(sourcePath, to: temporary)
            sha256 = contents.withUnsafeBytes { SHA256.hex(of: $0) }
        } catch {
            unlink(temporary)
            throw error
        }
        // Hashed from the copy itself, not the build: if the build changes meanwhile, the name
        // still says what the copy holds. Renaming over an existing copy of the same build is
        // harmless: its content is the same, and a loaded image keeps its own inode.
        let target = PathText.join(root, "\(sha256)-\(name)")
        guard rename(temporary, target) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot rename \(temporary): \(reason)"])
        }
        let facts = Result { () throws(GateRefusal) in try LibraryFacts(contents: contents, path: target) }
        return StagedLibrary(sourcePath: sourcePath, path: target, sha256: sha256, facts: facts, contents: contents)
    }

    /// Copies the file at `source` to a new file at `target` in the kernel (`sendfile`, or
    /// `read`/`write` where that is refused) and maps the copy.
    static func copy(_ source: String, to target: String) throws -> LibraryBytes {
        func failure(_ what: String, _ path: String) -> CocoaError {
            CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot \(what) \(path): \(String(cString: strerror(errno)))"])
        }
        let (input, info): (Int32, stat)
        switch RegularFile.open(source) {
        case .success(let opened): (input, info) = opened
        case .failure(let error):
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "\(source): \(error.reason)"])
        }
        defer { close(input) }
        let size = Int(info.st_size)
        let output = open(target, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        guard output >= 0 else { throw failure("create", target) }
        defer { close(output) }
        var copied = 0
        while copied < size {
            let n = SystemCall.retryingInterrupted { sendfile(output, input, nil, size - copied) }
            if n > 0 { copied += n; continue }
            if n == 0 { break }  // the build shrank meanwhile: the copy is what there was
            if errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP {
                copied += try copyByReading(input, to: output, from: copied, path: source)
                break
            }
            throw failure("copy", source)
        }
        return try LibraryBytes(mapping: output, count: copied, path: target)
    }

    /// The rest of `input` from `offset`, through a 64 KiB buffer: for file systems that refuse
    /// `sendfile` between files.
    private static func copyByReading(_ input: Int32, to output: Int32, from offset: Int, path: String) throws -> Int {
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { chunk.deallocate() }
        var total = 0
        while true {
            let n = SystemCall.retryingInterrupted { pread(input, chunk.baseAddress, chunk.count, off_t(offset + total)) }
            if n < 0 { throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot read \(path): \(String(cString: strerror(errno)))"]) }
            if n == 0 { return total }
            do { try SystemCall.writeAll(output, UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(chunk)[..<n])) } catch {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot write the staged copy: \(String(cString: strerror(error.errno)))"])
            }
            total += n
        }
    }

    private static func uniqueSuffix() -> String {
        String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }
}
