import Foundation
import Synchronization
import TesseraClock
import TesseraFiles
import TesseraIsolation
import TesseraManifest
import TesseraSDK
import TesseraSQLite
import TesseraStorage

/// `files`: photos and documents, content-addressed under `<data>/plugins/<id>/files/`, indexed in
/// `<data>/files.sqlite` (docs/files.md). The grant's `mediaTypes`, `quotaMB` and `maxFileMB` are
/// the plugin's policy; the host's edges reach the plugin's files through ``FileChannels`` (an
/// upload or download operation), with the same policy.
struct FilesProvider: CapabilityProvider {
    let name = "files"
    let version = SemanticVersion(1, 0, 0)
    let store: FileStore
    let clock: any ClockSource
    let channels: FileChannels
    /// The hub, for files synced records refer to (a device that syncs); `nil` otherwise.
    var remote: (any RemoteFileSource)?

    /// A manifest must declare at least one media type, each one the host can recognise by content.
    func check(grant: JSONValue, manifest: PluginManifest) throws {
        let types = grant["mediaTypes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard !types.isEmpty else {
            throw PluginRefusal(reason: "\(manifest.file): $.permissions.files.mediaTypes: expected the media types the plugin stores, found none")
        }
        let known = MediaSniffer.recognised.union([MediaSniffer.anyContent])
        if let unknown = types.first(where: { !known.contains($0) }) {
            throw PluginRefusal(reason: "\(manifest.file): $.permissions.files.mediaTypes: expected types the host recognises by content (\(known.sorted().joined(separator: ", "))), found '\(unknown)'")
        }
    }

    func prepare(_ request: CapabilityRequest) throws -> any CapabilityBinding {
        let clock = self.clock
        var channel = PluginFileChannel(pluginID: request.manifest.id, store: store, policy: FilePolicy(grant: request.grant),
                                        now: { clock.now() })
        channel.remote = remote
        return FilesBinding(channel: channel, channels: channels, storage: request.resources.storage, recovers: !request.replacing)
    }
}

/// The generation's files: once committed, the edges reach them with its policy. A first
/// generation first clears what a crash left half-written.
final class FilesBinding: CapabilityBinding, @unchecked Sendable {
    let channel: PluginFileChannel
    let channels: FileChannels
    /// The plugin's database, if it has storage: where the collector looks for linked records.
    let storage: SQLitePluginStorage?
    let recovers: Bool
    private var previous: FileChannels.Entry?

    init(channel: PluginFileChannel, channels: FileChannels, storage: SQLitePluginStorage?, recovers: Bool) {
        self.channel = channel
        self.channels = channels
        self.storage = storage
        self.recovers = recovers
    }

    var granted: GrantedCapability? { GrantedCapability(.files, channel as any PluginFiles) }

    func commit() throws {
        if recovers {
            do { try channel.store.recover(plugin: channel.pluginID) } catch {
                throw PluginStartFailure(reason: "files: \(error)")
            }
        }
        previous = channels.replace(channel.pluginID, with: FileChannels.Entry(channel: channel, storage: storage))
    }

    func undo() { channels.replace(channel.pluginID, with: previous) }
}

/// Each plugin's files channel, as its serving generation was granted it, and its database, by
/// plugin id.
final class FileChannels: Sendable {
    struct Entry: Sendable {
        let channel: PluginFileChannel
        let storage: SQLitePluginStorage?
    }

    private let entries = Mutex<[String: Entry]>([:])

    subscript(id: String) -> PluginFileChannel? { entries.withLock { $0[id]?.channel } }

    /// Registers `entry` for `id` (removes it for `nil`); the one it replaced.
    @discardableResult
    func replace(_ id: String, with entry: Entry?) -> Entry? {
        entries.withLock { all in
            defer { all[id] = entry }
            return all[id]
        }
    }

    /// Whether the plugin's record exists (records are keyed by a TEXT `id`, docs/storage.md);
    /// `nil` when that cannot be told: the plugin has no storage, or no such table.
    var recordExists: @Sendable (_ plugin: String, _ table: String, _ id: String) -> Bool? {
        { [self] plugin, table, id in
            guard let storage = entries.withLock({ $0[plugin]?.storage }),
                  table.utf8.allSatisfy({ $0 == 0x5F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }),
                  !table.isEmpty, !table.hasPrefix("_") else { return nil }
            return try? storage.database.withConnection { db in
                try db.fetchOne("SELECT 1 FROM \"\(table)\" WHERE id = ?", [.text(id)]) != nil
            }
        }
    }
}

extension FilesProvider {
    /// The process tier's file calls (``FilesMethods``). The writers the child opens are held by
    /// its process tier between calls (`Isolation/FilesForwarding.swift`).
    var childCalls: [ChildCallHandler] {
        [ChildCallHandler(FilesMethods.writerOpen) { call in try await call.session.fileWriters.open(call.params, on: call.context, pluginID: call.context.pluginID) },
         ChildCallHandler(FilesMethods.writerWrite, returningNothing: { call in
            try await call.session.fileWriters.named(call.params).write(try BytesWire.decode(call.params["bytes"]))
         }),
         ChildCallHandler(FilesMethods.writerFinish) { call in try await call.session.fileWriters.finish(call.params) },
         ChildCallHandler(FilesMethods.writerCancel, returningNothing: { call in await call.session.fileWriters.cancel(call.params) }),
         ChildCallHandler(FilesMethods.stat) { call in try await call.context.capability(.files).stat(call.params.stringValue ?? "").wire },
         ChildCallHandler(FilesMethods.read) { call in
            let files = try call.context.capability(.files)
            return BytesWire.encode(try await files.read(try call.params.wireField("address"), range: try RangeWire.decode(call.params["range"])))
         },
         ChildCallHandler(FilesMethods.link, returningNothing: { call in
            try await call.context.capability(.files).link(try call.params.wireField("address"), table: try call.params.wireField("table"),
                                                            id: try call.params.wireField("id"))
         }),
         ChildCallHandler(FilesMethods.unlink, returningNothing: { call in
            try await call.context.capability(.files).unlink(try call.params.wireField("address"), table: try call.params.wireField("table"),
                                                              id: try call.params.wireField("id"))
         }),
         ChildCallHandler(FilesMethods.links) { call in
            .array(try await call.context.capability(.files).links(of: call.params.stringValue ?? "").map(\.wire))
         }]
    }
}
