import Foundation
import TesseraSyncClient

extension PluginHost {
    /// How long one wait at the hub lasts (a long poll), and the most a failed one is retried after.
    static let hubWaitSeconds = 25
    static let hubWaitMaxBackoffSeconds = 60

    /// While the host serves, waits at the hub for each syncing plugin (a long poll): when another
    /// device's change reaches the person's spaces, that plugin's round comes up as after a local
    /// change (2 s later on the host's clock), so other members' edits arrive in seconds, not at
    /// the next periodic round. Nothing waits until this device has logged in to the hub.
    public func startHubWatch() -> [Task<Void, Never>] {
        guard let hub = deployment.sync, syncSchedule != nil else { return [] }
        return syncingPlugins.map { plugin in
            Task { [weak self] in
                var backoff = 1
                while !Task.isCancelled, let self {
                    switch await self.waitAtHub(hub.hub, plugin: plugin) {
                    case .nothing: backoff = 1
                    case .changes:
                        backoff = 1
                        await self.roundFollows(plugin)
                    case .failed:
                        try? await Task.sleep(for: .seconds(backoff))
                        backoff = min(backoff * 2, Self.hubWaitMaxBackoffSeconds)
                    }
                }
            }
        }
    }

    private enum WaitOutcome { case nothing, changes, failed }

    private func waitAtHub(_ hub: String, plugin: String) async -> WaitOutcome {
        guard let token = try? secrets.value(plugin: Self.hubTokenOwner, name: Self.hubTokenName) else { return .failed }
        do {
            let answer = try await HubConnection(baseURL: hub, token: token).waitForChangesOrNotifications(
                plugin: plugin, after: pullCursor(of: plugin) ?? 0, notificationsAfter: hubNotificationCursor(), seconds: Self.hubWaitSeconds)
            if answer.notifications { _ = try? await fetchHubNotifications() }
            return answer.changes ? .changes : .nothing
        } catch {
            return .failed
        }
    }

    /// Brings `plugin`'s round forward and waits (up to a wait's length) for it to move the pull
    /// cursor, so the next wait does not answer at once for the same changes.
    private func roundFollows(_ plugin: String) async {
        let before = pullCursor(of: plugin)
        syncSchedule?.changed(plugin, now: clock.now())
        timers.wakeup.kick()
        for _ in 0..<Self.hubWaitSeconds where pullCursor(of: plugin) == before && !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
        }
    }
}
