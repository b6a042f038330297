import Foundation
import Synchronization
import TesseraFiles
import TesseraSDK
import TesseraSync

/// The bytes of one plugin's files between a device and its hub (docs/files.md, "Through the
/// hub"). A synced record carries a file's address; the bytes move apart from it:
///
/// - **up**, just before the push of a record that refers to a file this device has, unless the
///   hub holds it from this person already; an interrupted upload resumes from what the hub kept;
/// - **down**, when the plugin first reads a file that a record refers to and that is not here
///   (or at once after a round, for a plugin whose grant says `"fetch": "eager"`), in pieces
///   each made durable before the next, so an interrupted download resumes; the bytes are
///   checked against the address before they are stored;
/// - **dropped**, with the records of a space this device no longer belongs to.
public struct DeviceFiles: Sendable {
    public let hub: HubConnection
    public let channel: PluginFileChannel
    /// Bytes per upload or download request: a lost connection costs at most one piece.
    public var pieceSize = 1 << 20
    /// Files moved at once: each waits mostly on round trips and `fsync`s, not on the CPU.
    public var concurrency = 4

    public init(hub: HubConnection, channel: PluginFileChannel) {
        self.hub = hub
        self.channel = channel
    }

    var plugin: String { channel.pluginID }
    var store: FileStore { channel.store }

    /// A file that could not be moved, and why.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public var address: String
        public var reason: String
        public var description: String { "\(address): \(reason)" }
    }

    // MARK: Up

    /// Uploads the files that `changes` refer to and that this plugin has here, unless the hub
    /// holds them from this person. The addresses sent, and those that failed (the push goes on:
    /// the record matters more than its bytes, which a later round sends).
    public func upload(referencedBy changes: [SyncChange]) async -> (sent: [String], failed: [Failure]) {
        await upload(Set(changes.compactMap(\.fileAddress)).sorted())
    }

    /// Uploads the files an earlier round could not (noted as pending when they failed).
    public func uploadPending() async -> (sent: [String], failed: [Failure]) {
        do { return await upload(try store.pendingUploads(plugin: plugin)) } catch {
            return ([], [Failure(address: "(the files waiting to go up)", reason: "they could not be listed: \(error)")])
        }
    }

    /// Uploads each of `addresses`; one that fails is noted as pending, to go with the next round.
    private func upload(_ addresses: [String]) async -> (sent: [String], failed: [Failure]) {
        let outcomes = await Self.each(addresses, concurrency: concurrency) { address -> Result<Bool, Failure> in
            do {
                let sent = try await upload(address)
                try store.setPendingUpload(plugin: plugin, address: address, pending: false)
                return .success(sent)
            } catch {
                do { try store.setPendingUpload(plugin: plugin, address: address, pending: true) } catch let noted {
                    // Not noted as pending, a later round would not try it again.
                    return .failure(Failure(address: address, reason: "\(error); and it could not be kept for the next round (\(noted)), so it is sent again only when a record names it anew"))
                }
                return .failure(Failure(address: address, reason: "\(error)"))
            }
        }
        let (sent, failed) = Self.split(addresses, outcomes)
        return (sent, failed)
    }

    /// The addresses whose outcome was `true`, and the failures, in the addresses' order.
    static func split(_ addresses: [String], _ outcomes: [Result<Bool, Failure>]) -> (moved: [String], failed: [Failure]) {
        var moved: [String] = [], failed: [Failure] = []
        for (address, outcome) in zip(addresses, outcomes) {
            switch outcome {
            case .success(true): moved.append(address)
            case .success(false): break
            case .failure(let failure): failed.append(failure)
            }
        }
        return (moved, failed)
    }

    /// `work` for each of `items`, at most `concurrency` at a time; the results in the items' order.
    static func each<T: Sendable>(_ items: [String], concurrency: Int, _ work: @escaping @Sendable (String) async -> T) async -> [T] {
        await withTaskGroup(of: (Int, T).self) { group in
            var results = [T?](repeating: nil, count: items.count)
            var next = 0
            func start() {
                let index = next
                group.addTask { (index, await work(items[index])) }
                next += 1
            }
            while next < min(max(concurrency, 1), items.count) { start() }
            while let (index, value) = await group.next() {
                results[index] = value
                if next < items.count { start() }
            }
            return results.map { $0! }
        }
    }

    /// Uploads one file of this plugin's, resuming what the hub kept of an earlier attempt.
    /// Whether bytes were sent (false: the plugin has no such file, or the hub holds it).
    @discardableResult
    public func upload(_ address: String) async throws -> Bool {
        let file: StoredFile
        do { file = try store.open(plugin: plugin, address: address) } catch let error as PluginError where error.code == .notFound {
            return false  // the plugin has no such file (anymore): nothing to send
        }
        let (held, kept) = try await hub.fileUploadState(address)
        if held { return false }
        let size = file.descriptor.size
        var offset = kept
        while true {
            let bytes = try file.read(at: offset, count: pieceSize)
            let answer = try await hub.uploadFilePiece(address, size: size, offset: offset, bytes: bytes)
            if answer.complete { return true }
            guard answer.offset > offset else {
                throw SyncClientError(status: 0, code: "upload_stalled", message: "the hub kept no more of \(address) than \(offset) bytes")
            }
            offset = answer.offset
        }
    }

    // MARK: Down

    /// Links the records that `changes` (just applied from the hub) write an address into, so
    /// that reading the file fetches it and the collector keeps it while they refer to it.
    public func noteReferences(_ changes: [SyncChange]) throws {
        for change in changes {
            guard let address = change.fileAddress else { continue }
            try store.linkReference(plugin: plugin, address: address, table: change.table, id: change.row)
        }
    }

    /// Fetches `address` from the hub into the plugin's files: resumes what arrived before,
    /// appends piece by piece, then checks the bytes against the address and stores them.
    @discardableResult
    public func fetch(_ address: String) async throws -> FileDescriptor {
        if let here = try store.descriptor(plugin: plugin, address: address) { return here }
        // One transfer per file in this process: a read and an eager fetch of the same file (or
        // two reads) share it rather than append to one `.part` together.
        let key = "\(store.dataDirectory)\u{0}\(plugin)\u{0}\(address)"
        let task = Self.transfers.withLock { transfers in
            if let running = transfers[key] { return running }
            let task = Task { try await transfer(address) }
            transfers[key] = task
            return task
        }
        defer { Self.transfers.withLock { if $0[key] == task { $0[key] = nil } } }
        return try await task.value
    }

    /// The transfers under way in this process, by store, plugin and address.
    private static let transfers = Mutex<[String: Task<FileDescriptor, any Error>]>([:])

    /// Downloads `address` (resuming), then verifies and stores it.
    private func transfer(_ address: String) async throws -> FileDescriptor {
        var offset = try store.receivedSize(plugin: plugin, address: address)
        while true {
            let piece: (bytes: [UInt8], size: Int64)
            do {
                piece = try await hub.downloadFilePiece(address, plugin: plugin, from: offset, count: pieceSize)
            } catch let error as SyncClientError where error.status == 416 {
                // What arrived is longer than the file: not these bytes. Start again.
                store.discardReceived(plugin: plugin, address: address)
                throw error
            }
            if !piece.bytes.isEmpty { try store.appendReceived(plugin: plugin, address: address, bytes: piece.bytes) }
            offset += Int64(piece.bytes.count)
            if offset >= piece.size || piece.bytes.isEmpty { break }
        }
        return try await store.adoptReceived(address: address, through: channel)
    }

    /// Fetches every file the plugin's records refer to that is not here (the eager setting).
    public func fetchMissing() async -> (fetched: [String], failed: [Failure]) {
        let addresses: [String]
        do { addresses = try store.missingLinked(plugin: plugin) } catch {
            return ([], [Failure(address: "(the files records name)", reason: "which are missing could not be listed: \(error)")])
        }
        let outcomes = await Self.each(addresses, concurrency: concurrency) { address -> Result<Bool, Failure> in
            do {
                try await fetch(address)
                return .success(true)
            } catch {
                return .failure(Failure(address: address, reason: "\(error)"))
            }
        }
        let (fetched, failed) = Self.split(addresses, outcomes)
        return (fetched, failed)
    }

    // MARK: Dropped

    /// Drops the links of `rows` (the records of a space this device no longer belongs to) and the
    /// files nothing else links to. The addresses removed.
    @discardableResult
    public func dropCopies(of rows: [ChangedRow]) throws -> [String] {
        try store.dropCopies(plugin: plugin, records: rows.map { (table: $0.table, id: $0.row) })
    }
}
