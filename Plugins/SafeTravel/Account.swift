import Foundation
import TesseraSDK

/// Setting up the traveller (F2, F4): the username the hub knows them by, the PIN, and the travel
/// space whose members are their guardians.
extension Travel {
    struct SetupInput: Decodable, Sendable { var username: String; var pin: String }

    func setUp(_ input: SetupInput) async throws -> JSONValue {
        if try await meIfSetUp() != nil { throw PluginError.refused(.alreadySetUp, "the account is already set up; change the PIN with pin-change") }
        try Self.checkPINForm(input.pin, field: "$.pin")
        let space = try await travelSpace(for: input.username)
        let hash = PINHash.make(pin: input.pin, salt: Self.salt(), iterations: config.pinIterations)
        let at = now
        try await storage.write { batch in
            batch.put("account", id: "me", ["username": .text(input.username), "space_id": .text(space), "created_at": SQLValue(at)])
            batch.put("pin", id: "pin", ["hash": .text(hash), "failed": 0, "locked_until": "", "set_at": SQLValue(at)])
        }
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
    /// lock it for `pinLockout` on the host's clock. The PIN itself is never stored or logged.
    func verifyPIN(_ pin: String, field: String) async throws {
        _ = try await me()
        guard let stored = try await row("SELECT hash, failed, locked_until FROM pin WHERE id = 'pin'") else {
            throw PluginError.refused(.notSetUp, "no PIN is set")
        }
        let at = now
        if let until = stored.date("locked_until"), until > at {
            throw PluginError.refused(.pinLocked, "too many wrong PINs: locked until \(Instant.text(until))")
        }
        guard Self.isPINForm(pin), PINHash.verify(pin: pin, stored: stored.string("hash")) else {
            let failed = Int(stored["failed"].integer ?? 0) + 1
            let locks = failed >= config.pinAttempts
            let until = at.addingTimeInterval(config.pinLockout)
            try await storage.write { $0.patch("pin", id: "pin", ["failed": .integer(Int64(locks ? 0 : failed)),
                                                                  "locked_until": locks ? SQLValue(until) : ""]) }
            if locks { throw PluginError.refused(.pinLocked, "wrong PIN \(config.pinAttempts) times: locked until \(Instant.text(until))") }
            throw PluginError(.invalidInput, "wrong PIN (\(config.pinAttempts - failed) attempts left) (code \(Reason.invalidPIN.rawValue))", field: field)
        }
        if stored["failed"].integer != 0 { try await storage.write { $0.patch("pin", id: "pin", ["failed": 0]) } }
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

    /// The traveller's travel space at the hub, whose members are their guardians. Offline or
    /// without a hub it is a new lowercase UUID: the first push registers it (docs/sync.md).
    private func travelSpace(for username: String) async throws -> String {
        guard let spaces else { return newID() }
        do {
            return try await spaces.create(name: "Safe travel: \(username)").id
        } catch let error as PluginError where error.code == .notLoggedIn || error.code == .hubUnreachable {
            log.info("no hub to register the travel space with yet (\(error.code)): it is registered on the first push")
            return newID()
        }
    }
}
