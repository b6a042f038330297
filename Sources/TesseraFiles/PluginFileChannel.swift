import Foundation
import TesseraSDK

/// One plugin's `files` object: the store, scoped to the plugin and its policy. Every address it
/// is given is looked up among this plugin's files only, so another plugin's address is `notFound`.
public struct PluginFileChannel: PluginFiles {
    public let pluginID: String
    public let store: FileStore
    public let policy: FilePolicy
    let now: @Sendable () -> Date
    /// Where a file that a synced record refers to is fetched from when it is not here (the hub),
    /// if this device syncs (docs/files.md, "Through the hub").
    public var remote: (any RemoteFileSource)?

    public init(pluginID: String, store: FileStore, policy: FilePolicy, now: @escaping @Sendable () -> Date) {
        self.pluginID = pluginID
        self.store = store
        self.policy = policy
        self.now = now
    }

    public func writer(mediaType: String?) async throws -> any PluginFileWriter {
        try makeWriter(mediaType: mediaType)
    }

    /// The concrete writer (the HTTP edge writes request bytes into it without copying them to arrays).
    public func makeWriter(mediaType: String?) throws -> FileWriter {
        try FileWriter(store: store, plugin: pluginID, policy: policy, claimed: mediaType, now: now)
    }

    public func stat(_ address: String) async throws -> FileDescriptor {
        if let descriptor = try store.descriptor(plugin: pluginID, address: address) { return descriptor }
        guard try await fetchIfReferenced(address), let descriptor = try store.descriptor(plugin: pluginID, address: address) else {
            throw FileStore.notFound(address)
        }
        return descriptor
    }

    public func read(_ address: String, range: Range<Int64>?) async throws -> [UInt8] {
        let file: StoredFile
        do { file = try store.open(plugin: pluginID, address: address) } catch let error as PluginError where error.code == .notFound {
            guard try await fetchIfReferenced(address) else { throw error }
            file = try store.open(plugin: pluginID, address: address)
        }
        let size = file.descriptor.size
        let wanted = range ?? 0..<size
        guard wanted.lowerBound >= 0, wanted.lowerBound <= size else {
            throw PluginError(.invalidInput, "files: the range starts at \(wanted.lowerBound), past the end of the file (\(size) bytes)")
        }
        let clamped = wanted.clamped(to: 0..<size)
        return try file.read(at: clamped.lowerBound, count: Int(clamped.upperBound - clamped.lowerBound))
    }

    public func link(_ address: String, table: String, id: String) async throws {
        try Self.checkLink(table: table, id: id)
        try store.link(plugin: pluginID, address: address, table: table, id: id)
    }

    public func unlink(_ address: String, table: String, id: String) async throws {
        try store.unlink(plugin: pluginID, address: address, table: table, id: id)
    }

    public func links(of address: String) async throws -> [FileLink] {
        try store.links(plugin: pluginID, address: address)
    }

    /// Fetches a file that is not here from ``remote``, if one of the plugin's records refers to
    /// it (a plugin cannot make the host fetch an address none of its records names). Whether
    /// it was fetched.
    func fetchIfReferenced(_ address: String) async throws -> Bool {
        guard let remote, try store.isLinked(plugin: pluginID, address: address) else { return false }
        try await remote.fetch(address, into: self)
        return true
    }

    static func checkLink(table: String, id: String) throws(PluginError) {
        guard !table.isEmpty, table.utf8.count <= 128 else { throw PluginError(.invalidInput, "files: a link names a table of 1–128 characters", field: "table") }
        guard !id.isEmpty, id.utf8.count <= 512 else { throw PluginError(.invalidInput, "files: a link names a record id of 1–512 characters", field: "id") }
    }
}

/// Where a device fetches the bytes of a file that a synced record refers to and that it lacks:
/// the hub (`TesseraSyncClient.DeviceFiles`). Fetching resumes what an earlier attempt received,
/// checks the bytes against the address, and stores them in the plugin's files.
public protocol RemoteFileSource: Sendable {
    /// Fetches `address` into `channel`'s files; throws when the hub cannot give it.
    func fetch(_ address: String, into channel: PluginFileChannel) async throws
}
