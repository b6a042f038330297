import Foundation
import TesseraSDK

/// The always-on watcher (F8): the same module on a host beside the hub, logged in there as a
/// service member (`watcherName` in its config). Each traveller's device invites that member into
/// its travel space (`watcher` in the device's config); the watcher joins every travel space it is
/// invited to, receives the records by sync, and keeps their deadlines on its own clock with the
/// same code as the device (Deadlines.swift), so that an alert goes out when the phone is switched
/// off, smashed or out of signal. It writes only decisions (`alerts`, check-in slots), never the
/// traveller's records. docs/safetravel.md, "Deadlines on the hub", says how a double and a lost
/// alert are prevented.
extension Travel {
    static let watchTimer = "watch-invitations"

    static let pairingTimer = "pairing-poll"

    /// On a watcher host: its account (no PIN, no space of its own) and the invitation poll. On a
    /// person's device that can reach a hub: the poll that tells them of guardian requests and
    /// acceptances (``pairingPoll(_:)``).
    func startWatching() async throws {
        guard let name = config.watcherName else {
            guard spaces != nil else { return }
            try await clock.schedule(TimerRequest(key: Self.pairingTimer, name: Self.pairingTimer, fireAt: now.addingTimeInterval(config.pairingEvery)))
            return
        }
        if try await meIfSetUp() == nil {
            let at = now
            try await storage.write { $0.put("account", id: "me", ["username": .text(name), "space_id": "", "created_at": SQLValue(at)]) }
        }
        try await clock.schedule(TimerRequest(key: Self.watchTimer, name: Self.watchTimer, fireAt: now))
    }

    /// Joins every travel space the watcher was invited to, then looks again after `watchEvery`.
    func watchInvitations(_ firing: TimerFiring) async throws {
        guard config.watcherName != nil else { return }
        try await clock.schedule(TimerRequest(key: Self.watchTimer, name: Self.watchTimer, fireAt: firing.dueAt.addingTimeInterval(config.watchEvery)))
        guard let spaces else { return }
        do {
            for invitation in try await spaces.invitationsForMe() {
                let joined = try await spaces.accept(invitationID: invitation.id)
                let at = now
                try await storage.write { batch in
                    batch.put("guardians", id: "in:\(invitation.inviter)", ["username": .text(invitation.inviter), "direction": "incoming",
                                                                            "status": "ACCEPTED", "their_space": .text(joined.id),
                                                                            "created_at": SQLValue(at), "accepted_at": SQLValue(at)])
                }
                log.info("watching \(invitation.inviter)'s travel space")
            }
        } catch let error as PluginError where error.code == .notLoggedIn || error.code == .hubUnreachable {
            log.warning("the watcher cannot reach its hub (\(error.code)): it looks again in \(Int(config.watchEvery)) s")
        }
    }

    /// On a traveller's device: the watcher is invited into the travel space once (a service
    /// member, not a guardian: it does not count for the guardian precondition).
    func inviteWatcher() async throws {
        guard let watcher = config.watcher, let me = try await meIfSetUp(), !me.space.isEmpty, let spaces,
              try await row("SELECT id FROM guardians WHERE id = ?", [.text("svc:\(watcher)")]) == nil else { return }
        let membership = try await spaces.members(of: me.space)
        if !membership.members.contains(where: { $0.name == watcher }), !membership.invitations.contains(where: { $0.invitee == watcher }) {
            _ = try await spaces.invite(to: me.space, role: .editor, pluginRole: "watcher", person: watcher, expiresIn: 2_592_000)
        }
        let at = now
        try await storage.write { batch in
            batch.put("guardians", id: "svc:\(watcher)", ["username": .text(watcher), "direction": "service", "status": "INVITED", "created_at": SQLValue(at)])
        }
    }

    /// Every `pairingEvery` (2 min) on a person's device: a guardian request waiting for them is
    /// told once ("ada asks you to be her guardian"), and so is a request of theirs that was
    /// accepted (``refreshGuardians()``). Not logged in to a hub (or not set up), it looks again in
    /// an hour: a host's clock advanced by days fires every missed poll, so the poll is sparse where
    /// there is nothing to find.
    func pairingPoll(_ firing: TimerFiring) async throws {
        let next = try await lookForPairing() ? config.pairingEvery : 3_600
        try await clock.schedule(TimerRequest(key: Self.pairingTimer, name: Self.pairingTimer, fireAt: firing.dueAt.addingTimeInterval(next)))
    }

    /// One look; false where there is no hub to ask (not set up, not logged in).
    private func lookForPairing() async throws -> Bool {
        guard let spaces, try await meIfSetUp() != nil else { return false }
        do {
            try await refreshGuardians()
            for invitation in try await spaces.invitationsForMe() where invitation.pluginRole == "guardian" {
                let key = "pairing-request-\(invitation.id)"
                guard try await !wasHandled(key) else { continue }
                try await markHandled(key)
                await notifyTraveller(key: key, title: "\(invitation.inviter) asks you to be their guardian",
                                      body: "Accept or decline it on the Safe travel page.",
                                      message: NotificationMessage("notify.pairingAsked", ["name": .text(invitation.inviter)]),
                                      payload: ["requestId": .string(invitation.id), "from": .string(invitation.inviter)], at: now)
            }
            return true
        } catch let error as PluginError where error.code == .notLoggedIn || error.code == .hubUnreachable {
            return error.code == .hubUnreachable
        }
    }
}
