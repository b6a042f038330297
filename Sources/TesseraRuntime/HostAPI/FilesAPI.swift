import Foundation
import TesseraFiles
import TesseraManifest
import TesseraSDK

/// A plugin's files for the edges: the bytes of an upload operation stored before it is called,
/// and the file a download operation names, opened for serving (docs/files.md, "HTTP"). Every
/// check a call gets (the plugin is active, the operation declared, the role allowed) comes first,
/// and the plugin's own grant (media types, quota, size) applies.
extension PluginHost {
    /// A writer for the body of an upload operation (`"file": "upload"`), made only once the
    /// plugin is active, declares the operation as an upload, lets `principal`'s role call it, and
    /// is granted `files`. `mediaType` is the request's `Content-Type`, if it names one.
    public func uploadWriter(_ pluginID: String, _ operation: String, as principal: Principal, mediaType: String?) async throws(PluginError) -> FileWriter {
        let channel = try await fileChannel(pluginID, operation, .upload, as: principal)
        do { return try channel.makeWriter(mediaType: mediaType) } catch let error as PluginError { throw error } catch {
            throw PluginError(.unavailable, "files: \(error)")
        }
    }

    /// Calls a download operation (`"file": "download"`) and opens the file its answer names (its
    /// `address`, or `file.address`), among the plugin's own files.
    public func download(_ pluginID: String, _ operation: String, input: JSONValue, as principal: Principal) async throws(PluginError) -> StoredFile {
        let channel = try await fileChannel(pluginID, operation, .download, as: principal)
        let answer = try await call(pluginID, operation, input: input, as: principal)
        guard let address = answer["address"]?.stringValue ?? answer["file"]?["address"]?.stringValue else {
            log(.error, pluginID, "download operation '\(operation)' answered without an address")
            throw PluginError(.internal, "operation '\(operation)' of '\(pluginID)' failed")
        }
        do { return try channel.store.open(plugin: pluginID, address: address) } catch let error as PluginError { throw error } catch {
            throw PluginError(.unavailable, "files: \(error)")
        }
    }

    /// The plugin's files channel, after the checks a call of `operation` gets.
    private func fileChannel(_ pluginID: String, _ operation: String, _ transfer: FileTransfer, as principal: Principal) async throws(PluginError) -> PluginFileChannel {
        guard let slot = registry[pluginID] else { throw PluginError(.notFound, "no plugin '\(pluginID)' in this host") }
        guard let (manifest, _) = await slot.admit() else {
            throw PluginError(.unavailable, "plugin '\(pluginID)' is not active: \(slot.status.state.rawValue)")
        }
        defer { slot.endCall() }
        guard let declaration = manifest.operation(named: operation) else {
            throw PluginError(.notFound, "plugin '\(pluginID)' has no operation '\(operation)'")
        }
        guard declaration.file == transfer else {
            throw PluginError(.invalidInput, "operation '\(operation)' of '\(pluginID)' is not a file \(transfer.rawValue) (its manifest's \"file\")")
        }
        guard declaration.roles.contains(principal.role) else {
            throw PluginError(.forbidden, "operation '\(operation)' of '\(pluginID)' is not open to the role '\(principal.role)'")
        }
        guard let channel = fileChannels[pluginID] else {
            throw PluginError(.notGranted, "capability 'files' is not granted to plugin '\(pluginID)'")
        }
        return channel
    }
}
