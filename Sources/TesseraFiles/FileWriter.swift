import Foundation
import Glibc
import Synchronization
import TesseraLoader
import TesseraSDK

/// One file being put: its bytes go to a temporary file as they come, hashed and sniffed on the
/// way, with the size limit and the quota checked at every chunk; ``finish()`` checks the media
/// type, `fsync`s, and publishes it under its address (``FileStore``). Only one chunk is ever in
/// memory. Dropped without ``finish()``, it leaves nothing behind.
public final class FileWriter: PluginFileWriter, Sendable {
    let store: FileStore
    let plugin: String
    let policy: FilePolicy
    let claimed: String?
    let now: @Sendable () -> Date
    /// The bytes the plugin's files took when the writer was made (the quota's early check;
    /// ``FileStore/publish`` checks again at the end, under its lock).
    let usedAtStart: Int64
    private let state: Mutex<State>

    struct State {
        var fd: Int32 = -1
        var path: String
        var size: Int64 = 0
        var hash = SHA256()
        var sniffer = MediaSniffer()
        var done = false
    }

    init(store: FileStore, plugin: String, policy: FilePolicy, claimed: String?, now: @escaping @Sendable () -> Date) throws {
        self.store = store
        self.plugin = plugin
        self.policy = policy
        self.claimed = claimed
        self.now = now
        usedAtStart = policy.quotaBytes == nil ? 0 : try store.usage(plugin: plugin)
        let folder = store.temporaryDirectory(plugin)
        try FileSystem.makeDirectory(folder)
        let path = "\(folder)/\(UUID().uuidString).part"
        state = Mutex(State(fd: try FileSystem.create(path), path: path))
    }

    deinit {
        state.withLock { state in
            guard !state.done else { return }
            close(state.fd)
            Glibc.unlink(state.path)
        }
    }

    public func write(_ chunk: [UInt8]) async throws {
        try chunk.withUnsafeBytes { try write($0) }
    }

    /// Appends `bytes`; refuses (and cancels) past the largest file or the quota.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        try state.withLock { state in
            guard !state.done else { throw PluginError(.conflict, "files: this writer was finished or cancelled") }
            let size = state.size + Int64(bytes.count)
            if let limit = policy.maxFileBytes, size > limit {
                Self.abandon(&state)
                throw PluginError(.payloadTooLarge, "files: the file is larger than the \(Self.megabytes(limit)) this plugin may store in one file (maxFileMB)")
            }
            if let quota = policy.quotaBytes, usedAtStart + size > quota {
                Self.abandon(&state)
                throw Self.quotaExceeded(used: usedAtStart, adding: size, quota: quota)
            }
            do { try FileSystem.write(state.fd, bytes, path: state.path) } catch {
                Self.abandon(&state)
                throw error
            }
            state.size = size
            state.hash.update(bytes)
            state.sniffer.feed(bytes)
        }
    }

    public func finish() async throws -> FileDescriptor {
        let (path, size, address, sniffer) = try state.withLock { state in
            guard !state.done else { throw PluginError(.conflict, "files: this writer was finished or cancelled") }
            state.done = true
            defer { close(state.fd) }
            do { try FileSystem.sync(state.fd, path: state.path) } catch {
                Glibc.unlink(state.path)
                throw error
            }
            return (state.path, state.size, SHA256.hex(state.hash.finalize()), state.sniffer)
        }
        do {
            let sniffed = sniffer.mediaType { Self.parsesAsJSON(path: path, size: size) }
            let type = try policy.accept(sniffed: sniffed, claimed: claimed)
            return try store.publish(plugin: plugin, temporary: path, descriptor: FileDescriptor(address: address, size: size, mediaType: type),
                                     quota: policy.quotaBytes, at: now())
        } catch {
            Glibc.unlink(path)
            throw error
        }
    }

    public func cancel() async {
        state.withLock { Self.abandon(&$0) }
    }

    private static func abandon(_ state: inout State) {
        guard !state.done else { return }
        state.done = true
        close(state.fd)
        Glibc.unlink(state.path)
    }

    /// Text that opens with `{` or `[` is JSON if it parses. Read back from the written file, and
    /// only up to 16 MiB: a larger text is stored as text/plain.
    static func parsesAsJSON(path: String, size: Int64) -> Bool {
        guard size <= 16 << 20, let data = FileManager.default.contents(atPath: path) else { return false }
        return (try? JSONValue(parsing: [UInt8](data))) != nil
    }

    static func quotaExceeded(used: Int64, adding: Int64, quota: Int64) -> PluginError {
        PluginError(.quotaExceeded, "files: the plugin's files would take more than its quota of \(megabytes(quota)) (quotaMB): \(used) bytes used, \(adding) more")
    }

    static func megabytes(_ bytes: Int64) -> String {
        let mb = Double(bytes) / 1_048_576
        return mb == mb.rounded() ? "\(Int64(mb)) MB" : String(format: "%.2f MB", mb)
    }
}
