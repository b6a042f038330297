import Foundation
import Testing
import TesseraSDK
@testable import TesseraSafeTravel
import TesseraTesting
import TesseraTestFixtures

/// F4: the PIN, set once, stored only as a slow salted hash, with a retry limit and a lockout.
@Suite(.hangWatchdog) struct PINTests {
    /// The shipped cost (210,000 iterations), printed beside SHA-256 of the same number of blocks
    /// in the same run: the derivation is two compressions an iteration, in a module compiled
    /// optimised in debug builds too: the SDK's C (issue 43: in unoptimised Swift it took 13.5 s of CPU).
    @Test func theShippedDerivationCost() {
        let iterations = TravelConfig(.object([:])).pinIterations
        let started = ContinuousClock.now
        let derived = PINHash.pbkdf2(password: Array("1234".utf8), salt: Array("salt".utf8), iterations: iterations)
        let took = ContinuousClock.now - started
        #expect(derived.count == 32)
        print("PBKDF2-HMAC-SHA256, \(iterations) iterations: \(took)")
    }

    @Test func sha256AndPBKDF2MatchPublishedVectors() {
        #expect(PINHash.hex(SHA256.digest(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(PINHash.hex(SHA256.digest([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        // RFC 7914 §11 (PBKDF2-HMAC-SHA256), the first 32 bytes of each.
        #expect(PINHash.hex(PINHash.pbkdf2(password: Array("passwd".utf8), salt: Array("salt".utf8), iterations: 1))
                == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc")
        #expect(PINHash.hex(PINHash.pbkdf2(password: Array("Password".utf8), salt: Array("NaCl".utf8), iterations: 80000))
                == "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56")
    }

    @Test func aBadPINFormIsRefusedNamingTheFieldAndNothingIsWritten() async throws {
        let host = try await TravelFixture.host()
        for bad in ["12", "12a4", "123456789", ""] {
            let refused = await refusal { try await host.call("account-setup", ["username": "ada", "pin": .string(bad)]) }
            #expect(refused?.code == "invalid_input" && refused?.field == "$.pin", "\(bad): \(String(describing: refused))")
        }
        #expect(try await TravelFixture.count(host, "account") == 0)
        #expect(try await TravelFixture.count(host, "pin") == 0)
        #expect(try await host.call("account-state")["setUp"] == false)
        await host.stop()
    }

    @Test func thePINIsStoredAsASaltedHashOnlyAndNeverSynced() async throws {
        let host = try await TravelFixture.ada()
        let stored = try #require(try await host.query("SELECT hash FROM pin").first?["hash"].text)
        #expect(stored.hasPrefix("pbkdf2-sha256$1000$"))
        #expect(PINHash.verify(pin: TravelFixture.pin, stored: stored) && !PINHash.verify(pin: "4827", stored: stored))
        // Two accounts with the same PIN get different hashes (the salt).
        let other = try await TravelFixture.ada()
        #expect(try await other.query("SELECT hash FROM pin").first?["hash"].text != stored)
        // The PIN table is not synced: no change of it is in the sync log.
        #expect(try await host.query("SELECT COUNT(*) AS n FROM _tessera_sync_messages WHERE tbl = 'pin'").first?["n"].integer ?? 0 == 0)
        #expect(await refusal { try await host.call("account-setup", ["username": "ada", "pin": "1111"]) }?.reason == "already_set_up")
        await host.stop(); await other.stop()
    }

    /// Issue 39: the lockout escalates (a minute, two, four…), so guessing a 4-digit PIN at five
    /// tries a minute for ever is over; a right PIN starts it over.
    @Test func eachLockoutInARowIsTwiceAsLong() async throws {
        let host = try await TravelFixture.ada()
        var lockedUntil: [String] = []
        for lockout in [60.0, 120, 240] {
            for _ in 1...5 { _ = await refusal { try await host.call("pin-change", ["oldPin": "0000", "newPin": "1111"]) } }
            lockedUntil.append(try await host.call("account-state")["pinLockedUntil"]?.stringValue ?? "")
            try await host.advanceClock(by: lockout + 1)
        }
        #expect(lockedUntil == ["2026-03-02T08:01:00.000Z", "2026-03-02T08:03:01.000Z", "2026-03-02T08:07:02.000Z"], "\(lockedUntil)")
        #expect(Travel.lockout(after: 30, first: 60) == 86_400, "at most a day")
        // The right PIN starts the ladder over.
        #expect(try await host.call("pin-change", ["oldPin": .string(TravelFixture.pin), "newPin": "1111"])["changed"] == true)
        #expect(try await host.query("SELECT lockouts FROM pin").first?["lockouts"].integer == 0)
        await host.stop()
    }

    @Test func fiveWrongPINsLockForAMinuteOnTheClock() async throws {
        let host = try await TravelFixture.ada()
        for attempt in 1...4 {
            let refused = await refusal { try await host.call("pin-change", ["oldPin": "0000", "newPin": "1111"]) }
            #expect(refused?.reason == "invalid_pin" && refused?.field == "$.oldPin", "attempt \(attempt)")
        }
        #expect(await refusal { try await host.call("pin-change", ["oldPin": "0000", "newPin": "1111"]) }?.reason == "pin_locked")
        // Locked: even the right PIN is refused until the minute is over.
        #expect(await refusal { try await host.call("pin-change", ["oldPin": .string(TravelFixture.pin), "newPin": "1111"]) }?.reason == "pin_locked")
        #expect(try await host.call("account-state")["pinLockedUntil"] == "2026-03-02T08:01:00.000Z")
        try await host.advanceClock(by: 60)
        #expect(try await host.call("pin-change", ["oldPin": .string(TravelFixture.pin), "newPin": "1111"])["changed"] == true)
        #expect(await refusal { try await host.call("pin-change", ["oldPin": .string(TravelFixture.pin), "newPin": "2222"]) }?.reason == "invalid_pin")
        await host.stop()
    }
}
