import Foundation
import Synchronization
import TesseraClock
import TesseraFiles
import TesseraManifest
import TesseraSDK

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

    /// A manifest must declare at least one media type, each one the host can recognise by content.
    func check(grant: JSONValue, manifest: PluginManifest) throws {
        let types = grant["mediaTypes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard !types.isEmpty else {
            throw PluginHost.Refusal(reason: "\(manifest.file): $.permissions.files.mediaTypes: expected the media types the plugin stores, found none")
        }
        let known = MediaSniffer.recognised.union([MediaSniffer.anyContent])
        if let unknown = types.first(where: { !known.contains($0) }) {
            throw PluginHost.Refusal(reason: "\(manifest.file): $.permissions.files.mediaTypes: expected types the host recognises by content (\(known.sorted().joined(separator: ", "))), found '\(unknown)'")
        }
    }

    func prepare(_ request: CapabilityRequest) throws -> any CapabilityBinding {
        let clock = self.clock
        let channel = PluginFileChannel(pluginID: request.manifest.id, store: store, policy: FilePolicy(grant: request.grant),
                                        now: { clock.now() })
        return FilesBinding(channel: channel, channels: channels, recovers: !request.replacing)
    }
}

/// The generation's files: once committed, the edges reach them with its policy. A first
/// generation first clears what a crash left half-written.
final class FilesBinding: CapabilityBinding, @unchecked Sendable {
    let channel: PluginFileChannel
    let channels: FileChannels
    let recovers: Bool
    private var previous: PluginFileChannel?

    init(channel: PluginFileChannel, channels: FileChannels, recovers: Bool) {
        self.channel = channel
        self.channels = channels
        self.recovers = recovers
    }

    var granted: GrantedCapability? { GrantedCapability(.files, channel as any PluginFiles) }

    func commit() throws {
        if recovers {
            do { try channel.store.recover(plugin: channel.pluginID) } catch {
                throw PluginHost.StartFailure(reason: "files: \(error)")
            }
        }
        previous = channels.replace(channel.pluginID, with: channel)
    }

    func undo() { channels.replace(channel.pluginID, with: previous) }
}

/// Each plugin's files channel, as its serving generation was granted it, by plugin id.
final class FileChannels: Sendable {
    private let channels = Mutex<[String: PluginFileChannel]>([:])

    subscript(id: String) -> PluginFileChannel? { channels.withLock { $0[id] } }

    /// Registers `channel` for `id` (removes the entry for `nil`); the one it replaced.
    @discardableResult
    func replace(_ id: String, with channel: PluginFileChannel?) -> PluginFileChannel? {
        channels.withLock { all in
            defer { all[id] = channel }
            return all[id]
        }
    }
}
