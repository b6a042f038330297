import Foundation
import TesseraFiles
import TesseraSDK
import TesseraSyncClient

/// A device's way to its hub for the files its plugins' synced records refer to (docs/files.md,
/// "Through the hub"): a plugin's read of a file that is not here fetches it with the device's
/// hub token (`DeviceFiles.fetch`, which makes two reads of one missing file share a transfer).
final class HubFileSource: RemoteFileSource {
    private let box: HostBox

    init(box: HostBox) {
        self.box = box
    }

    func fetch(_ address: String, into channel: PluginFileChannel) async throws {
        guard let host = box.host else { throw PluginError(.unavailable, "files: the host is stopping") }
        let access = try host.hub.hubAccess()
        do { try await DeviceFiles(hub: access.connection, channel: channel).fetch(address) } catch let error as SyncClientError {
            // The hub's refusal in the plugin's terms: not there for this plugin, or unreachable.
            let code: PluginError.Code = error.status == 404 ? .notFound : error.status == 0 ? .unavailable : .conflict
            throw PluginError(code, "files: \(address) is not here and the hub did not give it: \(error)")
        }
    }
}
