import Foundation
import TesseraSDK
import TesseraSync
import TesseraSyncClient

/// Logging a device out of its hub (specs/baby-diary.md UC4: the device never holds data of more
/// than one person): the person's synced rows, the files linked to them, their pending
/// notifications and the host's sync state go; then another person may log in.
extension HubLink {
    /// Logs this device out: first a sync round of every syncing plugin, so nothing written here
    /// is lost (refused with `conflict` when a round fails, unless `discardUnsynced`); then every
    /// synced row of every space is removed (the plugins are told, as for a dropped space), with
    /// the files no record links any more, every pending notification of every plugin, the
    /// device's sync state and its token. The hub forgets the device too, if it can be reached.
    func syncLogout(discardUnsynced: Bool = false) async throws -> PluginHost.LogoutReport {
        let hub = try configuredHub()
        guard let token = try secrets.value(plugin: Self.hubTokenOwner, name: Self.hubTokenName) else {
            throw PluginError(.conflict, "this device is not logged in to \(hub.hub)")
        }
        if !discardUnsynced {
            for plugin in syncingPlugins {
                do { _ = try await syncNow(plugin) } catch {
                    throw PluginError(.conflict, """
                        the last sync round of \(plugin) failed (\(error)): what this device wrote may not be on the hub yet. \
                        Sync first, or log out with --discard-unsynced to drop it
                        """)
                }
            }
        }
        var report = PluginHost.LogoutReport()
        for plugin in syncingPlugins {
            guard let store = syncStore(of: plugin) else { continue }
            var removed: [ChangedRow] = []
            let spaces = try store.spaces()
            for space in spaces { removed += try store.dropSpace(space) }
            report.rows[plugin] = removed.count
            var dropped = DeviceSync.Report()
            dropped.changedRows = removed
            dropped.dropped = spaces
            await tellRemoteChanges(plugin, dropped)
        }
        report.notifications = try cancelAllPendingNotifications()
        // Links to the removed records are pruned, and every file no record links goes now.
        report.files = try await fileCollector.collect(now: clock.now().addingTimeInterval(fileCollector.grace + 1))
        // Best effort: the hub forgets this device's token (a later login makes a new one).
        let connection = HubConnection(baseURL: hub.hub, token: token, timeout: 10)
        do { _ = try await connection.revokeThisDevice() } catch {
            // The device forgets the token either way; the hub keeps it live until it is revoked
            // there, which the operator must know (`tessera hub person` lists the devices).
            log(.warning, "sync", "logged out here, but \(hub.hub) did not revoke this device's token (\(error)); it stays valid at the hub until revoked there")
        }
        try peerState().forget(hub: hub.hub)
        _ = try secrets.remove(plugin: Self.hubTokenOwner, name: Self.hubTokenName)
        _ = try secrets.remove(plugin: Self.hubTokenOwner, name: Self.hubPersonName)
        return report
    }

    /// Cancels every plugin's pending notifications; how many.
    private func cancelAllPendingNotifications() throws -> Int {
        var cancelled = 0
        for entry in deployment.plugins {
            for pending in try notifications.store.pending(plugin: entry.id) where try notifications.store.remove(plugin: entry.id, key: pending.request.key) {
                cancelled += 1
            }
        }
        return cancelled
    }
}
