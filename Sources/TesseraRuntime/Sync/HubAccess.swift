import Foundation
import TesseraSDK
import TesseraSyncClient

/// What a plugin's spaces reach the hub with: the deployment's hub, this device's token, and the
/// device's sync state (spaces created offline wait there for the next round).
struct HubAccess: Sendable {
    let hub: String
    let connection: HubConnection
    let state: SyncPeerState
    /// Who the token belongs to, if the login kept it (``PluginHost/hubPerson``).
    var person: LoggedInPerson? = nil
}

extension HubLink {
    /// The hub and this device's token, for a plugin's space calls; `notLoggedIn` without either.
    /// `timeout` bounds each request, the deployment's `providers.sync.timeout` unless given (the
    /// notification relay runs on the timer loop: it waits less).
    func hubAccess(timeout: TimeInterval? = nil) throws -> HubAccess {
        guard let hub = deployment.sync else {
            throw PluginError(.notLoggedIn, "this host syncs with no hub (deployment '\(deployment.name)' has no providers.sync.hub)")
        }
        guard let token = try secrets.value(plugin: Self.hubTokenOwner, name: Self.hubTokenName) else {
            throw PluginError(.notLoggedIn, "this device is not logged in to \(hub.hub): run `tessera sync login NAME`")
        }
        let connection = HubConnection(baseURL: hub.hub, token: token, timeout: timeout ?? hub.timeoutSeconds)
        return HubAccess(hub: hub.hub, connection: connection, state: try peerState(), person: hubPerson)
    }

    /// The hub's name and the device's sync state, which keep this person's per-plugin roles;
    /// `nil` when the deployment names no hub. Throws when the state cannot be opened: the write
    /// to a space is then refused, not let through unchecked.
    func roleBook() throws -> (hub: String, state: SyncPeerState)? {
        guard let hub = deployment.sync else { return nil }
        return (hub.hub, try peerState())
    }

    /// Registers, with their names, the spaces `pluginID` created while the hub was out of reach
    /// (before the round pushes their first records). A space the hub refuses to register (it
    /// cannot be the plugin's) is forgotten and logged; an unreachable hub fails the round.
    func registerOfflineSpaces(_ pluginID: String, with access: HubAccess) async throws {
        for (space, name) in try access.state.unregisteredSpaces(hub: access.hub, plugin: pluginID) {
            do {
                _ = try await access.connection.registerSpace(space, name: name, plugin: pluginID, roles: syncStores.roles(of: pluginID))
            } catch let error as SyncClientError where error.status != 0 && error.status != 401 && error.status < 500 {
                log(.warning, pluginID, "the space \(space) created offline could not be registered: \(error)")
            }
            try access.state.forgetUnregistered(space: space, hub: access.hub, plugin: pluginID)
        }
    }
}
