import Foundation
import TesseraManifest
import TesseraSyncClient

extension HubLink {
    /// How long one wait at the hub lasts (a long poll), and the most a failed one is retried after.
    static let hubWaitSeconds = 25
    static let hubWaitMaxBackoffSeconds = 60
    /// The most the watch waits for a round to pull what the hub announced before it waits at the
    /// hub again: meanwhile it fetches no relayed notification, so this bounds how late one can be.
    static let hubFollowSeconds = 5

    /// While the host serves, waits at the hub for each syncing plugin (a long poll): when another
    /// device's change reaches the person's spaces, that plugin's round comes up as after a local
    /// change (2 s later on the host's clock), so other members' edits arrive in seconds, not at
    /// the next periodic round. Nothing waits until this device has logged in to the hub.
    func startHubWatch() -> [Task<Void, Never>] {
        guard let hub = deployment.sync, syncSchedule != nil else { return [] }
        return syncingPlugins.map { plugin in
            Task { [weak self] in
                var backoff = 1
                while !Task.isCancelled, let self {
                    switch await self.waitAtHub(hub, plugin: plugin) {
                    case .nothing: backoff = 1
                    case .changes(let cursor):
                        backoff = 1
                        await self.roundFollows(plugin, pastCursor: cursor)
                    case .failed:
                        try? await Task.sleep(for: .seconds(backoff))
                        backoff = min(backoff * 2, Self.hubWaitMaxBackoffSeconds)
                    }
                }
            }
        }
    }

    /// `changes` carries the pull cursor the wait was asked with.
    private enum WaitOutcome { case nothing, changes(Int64), failed }

    private func waitAtHub(_ hub: Deployment.SyncProvider, plugin: String) async -> WaitOutcome {
        guard let token = try? secrets.value(plugin: Self.hubTokenOwner, name: Self.hubTokenName) else { return .failed }
        let cursor = pullCursor(of: plugin) ?? 0
        do {
            let connection = HubConnection(baseURL: hub.hub, token: token, timeout: hub.timeoutSeconds)
            let answer = try await connection.waitForChangesOrNotifications(
                plugin: plugin, after: cursor, notificationsAfter: try hubNotificationCursor(), seconds: Self.hubWaitSeconds)
            if answer.notifications {
                do { _ = try await fetchHubNotifications() } catch {
                    log(.warning, "sync", "the hub has notifications for this device, but fetching them failed: \(error)")
                    return .failed  // waits out the failure's pause instead of asking again at once
                }
            }
            return answer.changes ? .changes(cursor) : .nothing
        } catch {
            // The sync rounds log a hub they cannot reach (once, not per retry); the wait only
            // backs off and asks again.
            return .failed
        }
    }

    /// Brings `plugin`'s round forward to now and waits (up to ``hubFollowSeconds``) for the pull
    /// cursor to move past the one the wait was asked with, so the next wait does not answer at once
    /// for the same changes. A round that takes longer (the timer loop busy with other due work, a
    /// slow hub) only costs one more wait at the hub, which answers at once — with the relayed
    /// notifications fetched on the way, which a longer wait here would hold back.
    ///
    /// The cursor compared is the wait's, not one read here: a round that ran between the hub's
    /// answer and this line already pulled the changes, and waiting for the cursor to move again
    /// kept this device from waiting at the hub — and from its relayed notifications — for a whole
    /// wait's length (an alert reached a guardian 25 s late in `tessera-bench travel`).
    private func roundFollows(_ plugin: String, pastCursor cursor: Int64) async {
        syncSchedule?.changedAtHub(plugin, now: clock.now())
        wake()
        let deadline = ContinuousClock.now + .seconds(Self.hubFollowSeconds)
        while (pullCursor(of: plugin) ?? 0) <= cursor, ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(50))
        }
    }
}
