import Foundation
import TesseraSDK

/// Setting up the traveller (F2, F4): the username the hub knows them by, the PIN, and the travel
/// space whose members are their guardians.
extension Travel {
    struct SetupInput: Decodable, Sendable { var username: String; var pin: String }

    func setUp(_ input: SetupInput) async throws -> JSONValue {
        if try await meIfSetUp() != nil { throw PluginError.refused(.alreadySetUp, "the account is already set up; change the PIN with pin-change") }
        try Self.checkPINForm(input.pin, field: "$.pin")
        let (space, adopted) = try await travelSpace(for: input.username)
        let hash = PINHash.make(pin: input.pin, salt: Self.salt(), iterations: config.pinIterations)
        let at = now
        try await storage.write { batch in
            batch.put("account", id: "me", ["username": .text(input.username), "space_id": .text(space), "created_at": SQLValue(at)])
            batch.put("pin", id: "pin", ["hash": .text(hash), "failed": 0, "locked_until": "", "set_at": SQLValue(at)])
        }
        if adopted { try await adoptGuardians(space: space, username: input.username) }
        await inviteWatcherIfReachable()
        return try await accountState()
    }

    func accountState() async throws -> JSONValue {
        guard let me = try await meIfSetUp() else { return ["setUp": false] }
        let pin = try await row("SELECT failed, locked_until, set_at FROM pin WHERE id = 'pin'")
        let lockedUntil = pin?.date("locked_until").flatMap { $0 > now ? Instant.text($0) : nil }
        return ["setUp": true, "username": .string(me.username), "space": .string(me.space),
                "pinSetAt": .string(pin?.string("set_at") ?? ""), "pinLockedUntil": lockedUntil.map(JSONValue.string) ?? .null]
    }

    struct PINChange: Decodable, Sendable { var oldPin: String; var newPin: String }

    func changePIN(_ input: PINChange) async throws -> JSONValue {
        try Self.checkPINForm(input.newPin, field: "$.newPin")
        try await verifyPIN(input.oldPin, field: "$.oldPin")
        let hash = PINHash.make(pin: input.newPin, salt: Self.salt(), iterations: config.pinIterations)
        let at = now
        try await storage.write { $0.patch("pin", id: "pin", ["hash": .text(hash), "failed": 0, "locked_until": "", "set_at": SQLValue(at)]) }
        return ["changed": true]
    }

    /// Checks `pin` against the stored hash, counting failures: `pinAttempts` wrong ones in a row
    /// lock it for `pinLockout` on the host's clock, and each further lockout before a right PIN
    /// twice as long as the one before (a minute, two, four…, at most a day), so that guessing a
    /// four-digit PIN takes months, not a week. The PIN itself is never stored or logged.
    func verifyPIN(_ pin: String, field: String) async throws {
        _ = try await me()
        guard let stored = try await row("SELECT hash, failed, locked_until, lockouts FROM pin WHERE id = 'pin'") else {
            throw PluginError.refused(.notSetUp, "no PIN is set")
        }
        let at = now
        if let until = stored.date("locked_until"), until > at {
            throw PluginError.refused(.pinLocked, "too many wrong PINs: locked until \(Instant.text(until))")
        }
        guard Self.isPINForm(pin), PINHash.verify(pin: pin, stored: stored.string("hash")) else {
            let failed = Int(stored["failed"].integer ?? 0) + 1
            let locks = failed >= config.pinAttempts
            let lockouts = Int(stored["lockouts"].integer ?? 0)
            let until = at.addingTimeInterval(Self.lockout(after: lockouts, first: config.pinLockout))
            try await storage.write { $0.patch("pin", id: "pin", ["failed": .integer(Int64(locks ? 0 : failed)),
                                                                  "locked_until": locks ? SQLValue(until) : "",
                                                                  "lockouts": .integer(Int64(locks ? lockouts + 1 : lockouts))]) }
            if locks { throw PluginError.refused(.pinLocked, "wrong PIN \(config.pinAttempts) times: locked until \(Instant.text(until))") }
            throw PluginError(.invalidInput, "wrong PIN (\(config.pinAttempts - failed) attempts left)", field: field, reason: Reason.invalidPIN.code)
        }
        if stored["failed"].integer != 0 || stored["lockouts"].integer != 0 {
            try await storage.write { $0.patch("pin", id: "pin", ["failed": 0, "lockouts": 0]) }
        }
    }

    /// The length of the next lockout after `lockouts` in a row: `first`, doubling, at most a day.
    static func lockout(after lockouts: Int, first: TimeInterval) -> TimeInterval {
        min(first * pow(2, Double(min(lockouts, 20))), 86_400)
    }

    static func isPINForm(_ pin: String) -> Bool { (4...8).contains(pin.count) && pin.allSatisfy { $0.isASCII && $0.isNumber } }

    static func checkPINForm(_ pin: String, field: String) throws {
        guard isPINForm(pin) else { throw PluginError.invalid("a PIN is 4 to 8 digits", field: field) }
    }

    static func salt() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// The watcher's invitation is retried on each guardian listing until the hub is reachable.
    func inviteWatcherIfReachable() async {
        do { try await inviteWatcher() } catch {
            log.info("the watcher \(config.watcher ?? "") is not invited yet: \(error)")
        }
    }

    /// The traveller's travel space at the hub, whose members are their guardians: the one they
    /// own already (set up on another of their devices: one space per person, so the guardians,
    /// the watcher and every alert stay with it), or a new one. Offline or without a hub it is a
    /// new lowercase UUID: the first push registers it (docs/sync.md); a second device is set up
    /// online, or it starts a space of its own (docs/safetravel.md, "A person with several devices").
    private func travelSpace(for username: String) async throws -> (id: String, adopted: Bool) {
        guard let spaces else { return (newID(), false) }
        do {
            let name = Self.travelSpaceName(username)
            if let existing = try await spaces.list().first(where: { $0.role == .owner && $0.name == name }) {
                return (existing.id, true)
            }
            return (try await spaces.create(name: name).id, false)
        } catch let error as PluginError where error.code == .notLoggedIn || error.code == .hubUnreachable {
            log.info("no hub to register the travel space with yet (\(error.code)): it is registered on the first push")
            return (newID(), false)
        }
    }

    static func travelSpaceName(_ username: String) -> String { "Safe travel: \(username)" }

    /// On a device set up into a travel space the person has already: this device's guardian rows
    /// from the hub's word — who is a member of the space or invited into it (with the guardian
    /// role), the watcher, and whose spaces this person guards.
    func adoptGuardians(space: String, username: String) async throws {
        guard let spaces else { return }
        let membership = try await spaces.members(of: space)
        let guarding = try await spaces.list().filter { $0.role != .owner && $0.pluginRole == "guardian" }
        let at = now
        try await storage.write { batch in
            for member in membership.members where member.name != username {
                if member.pluginRole == "watcher" {
                    batch.put("guardians", id: "svc:\(member.name)", ["username": .text(member.name), "direction": "service",
                                                                      "status": "ACCEPTED", "created_at": SQLValue(at)])
                } else if member.pluginRole == "guardian" {
                    batch.put("guardians", id: "out:\(member.name)", ["username": .text(member.name), "direction": "outgoing", "status": "ACCEPTED",
                                                                      "created_at": SQLValue(at), "accepted_at": SQLValue(at)])
                }
            }
            for invitation in membership.invitations {
                guard let invitee = invitation.invitee else { continue }
                if invitation.pluginRole == "watcher" {
                    batch.put("guardians", id: "svc:\(invitee)", ["username": .text(invitee), "direction": "service", "status": "INVITED",
                                                                  "created_at": SQLValue(at)])
                } else if invitation.pluginRole == "guardian" {
                    batch.put("guardians", id: "out:\(invitee)", ["username": .text(invitee), "direction": "outgoing", "status": "PENDING",
                                                                  "invitation_id": .text(invitation.id), "created_at": SQLValue(at)])
                }
            }
            for theirs in guarding {
                let traveller = theirs.name.hasPrefix(Self.travelSpaceName("")) ? String(theirs.name.dropFirst(Self.travelSpaceName("").count)) : theirs.name
                batch.put("guardians", id: "in:\(traveller)", ["username": .text(traveller), "direction": "incoming", "status": "ACCEPTED",
                                                               "their_space": .text(theirs.id), "created_at": SQLValue(at), "accepted_at": SQLValue(at)])
            }
        }
    }
}
