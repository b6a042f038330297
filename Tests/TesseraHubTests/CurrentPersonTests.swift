import Foundation
import Testing
import TesseraRuntime
import TesseraSDK
import TesseraSyncClient
import TesseraHubFixtures
import TesseraTestFixtures
import TesseraTesting

/// SDK 1.6 `PluginSpaces.currentPerson()`: the person this device is logged in as, against a real
/// hub with open registration — `nil` before a login and after a logout, the hub's id and account
/// name in between (the device's own login, kept beside its token). In-process with ``SpacesPlugin``,
/// and in the process tier with the shipped baby diary's library, whose records take their author
/// from it rather than from the profile's guess.
@Suite("The logged-in person (SDK 1.6)", .hangWatchdog)
struct CurrentPersonTests {
    static let ada = HubRegistration(firstName: "Ada", surname: "Lovelace", email: "Ada@Example.org", password: "correct horse battery",
                                     acceptTerms: true, device: "Ada's phone")

    @Test func aPluginSeesNobodyThenThePersonItRegisteredAsThenNobodyAfterLogout() async throws {
        try await HubTestServer.start().use { hub in
            let device = try await PluginTestHost(manifest: PluginSpacesTests.manifest(), plugin: { SpacesPlugin() },
                                                  grants: ["storage": [:], "sync": [:], "notifications": ["spaces": true]],
                                                  syncHub: "http://127.0.0.1:\(hub.port)")
            try await withCleanup({ await device.stop() }) {
                #expect(try await device.call("do", ["action": "me"]) == .null)
                let person = try await device.host.syncRegister(Self.ada)
                #expect(person.name == "ada@example.org")
                let me = try await device.call("do", ["action": "me"])
                #expect(me == ["id": .string(person.id), "name": "ada@example.org"])
                // The hub names the same person as the owner of a space the plugin creates.
                let space = try #require(try await device.call("do", ["action": "create", "name": "Ema"])["id"])
                let owner = try await device.call("do", ["action": "members", "space": space])["members"]?.arrayValue?.first
                #expect(owner?["person"] == me["id"] && owner?["name"] == me["name"])
                _ = try await device.host.syncLogout()
                #expect(try await device.call("do", ["action": "me"]) == .null)
                await device.stop()
            }
        }
    }

    @Test func theBabyDiaryInTheProcessTierTakesItsPersonFromTheLogin() async throws {
        try await HubTestServer.start().use { hub in
            let device = try await PluginTestHost(manifest: Fixtures.repositoryRoot + "/manifests/baby.json",
                                                  plugin: { fatalError("the process tier loads the library") },
                                                  grants: ["storage": [:], "clock": [:], "notifications": [:], "files": [:], "sync": [:]],
                                                  start: try Date("2026-03-02T08:00:00Z", strategy: .iso8601),
                                                  syncHub: "http://127.0.0.1:\(hub.port)", isolation: "process")
            try await withCleanup({ await device.stop() }) {
                #expect(device.host.isolatedProcessID(device.pluginID) != nil)
                // The profile guesses someone else; the login says who it is.
                _ = try await device.call("profile-set", ["person": "nana", "name": "Ada"])
                try await device.host.syncRegister(Self.ada)
                let child = try await device.call("child-create", ["name": "Ema", "birthDate": "2025-06-15"])
                #expect(child["createdBy"] == "ada@example.org")
                let id = try #require(child["id"])
                #expect(try await device.call("child-get", ["id": id])["level"] == "owner")
                await device.stop()
            }
        }
    }

    /// Issue 41, defect 8 (SDK 1.9): a person who registered as "Ada Lovelace" and never used
    /// `profile-set` signs her records with that name, not her e-mail address — through the
    /// process tier's wire, and again after logging in anew on the same device.
    @Test func theBabyDiarySignsWithTheNamesThePersonRegisteredWith() async throws {
        try await HubTestServer.start().use { hub in
            let device = try await PluginTestHost(manifest: Fixtures.repositoryRoot + "/manifests/baby.json",
                                                  plugin: { fatalError("the process tier loads the library") },
                                                  grants: ["storage": [:], "clock": [:], "notifications": [:], "files": [:], "sync": [:]],
                                                  start: try Date("2026-03-02T08:00:00Z", strategy: .iso8601),
                                                  syncHub: "http://127.0.0.1:\(hub.port)", isolation: "process")
            try await withCleanup({ await device.stop() }) {
                let person = try await device.host.syncRegister(Self.ada)
                #expect(person.displayName == "Ada Lovelace")
                let child = try #require(try await device.call("child-create", ["name": "Ema", "birthDate": "2025-06-15"])["id"])
                let weight = try await device.call("measurement-add", ["childId": child, "kind": "weight", "value": 8, "date": "2026-03-01"])
                #expect(weight["authorName"] == "Ada Lovelace", "\(weight)")
                #expect(weight["createdBy"] == "ada@example.org")
                _ = try await device.host.syncLogout(discardUnsynced: true)
                let again = try await device.host.syncLogin(name: "ada@example.org", password: Self.ada.password, device: "Ada's phone")
                #expect(again.displayName == "Ada Lovelace", "the hub's login answers the names too")
                #expect(device.host.hubPerson?.displayName == "Ada Lovelace", "kept beside the token")
                await device.stop()
            }
        }
    }

    /// Issue 41: the invitee sees who invites by the names they registered with (SDK 1.9
    /// `SpaceInvitation.inviterDisplayName`), not only by their e-mail address.
    @Test func anInvitationNamesTheInviterByTheNamesTheyRegisteredWith() async throws {
        try await HubTestServer.start().use { hub in
            func device() async throws -> PluginTestHost {
                // The shipped library in the process tier: the names cross its wire too.
                try await PluginTestHost(manifest: Fixtures.repositoryRoot + "/manifests/baby.json",
                                         plugin: { fatalError("the process tier loads the library") },
                                         grants: ["storage": [:], "clock": [:], "notifications": [:], "files": [:], "sync": [:]],
                                         start: try Date("2026-03-02T08:00:00Z", strategy: .iso8601), syncHub: "http://127.0.0.1:\(hub.port)",
                                         isolation: "process")
            }
            let ada = try await device(), bob = try await device()
            try await ada.host.syncRegister(Self.ada)
            try await bob.host.syncRegister(HubRegistration(firstName: "Bob", surname: "Novák", email: "bob@example.org",
                                                            password: "correct horse battery", acceptTerms: true, device: "Bob's phone"))
            let child = try #require(try await ada.call("child-create", ["name": "Ema", "birthDate": "2025-06-15"])["id"])
            _ = try await ada.call("share-invite", ["childId": child, "person": "bob@example.org", "level": "parent"])
            let waiting = try await bob.call("invitations-list")["invitations"]?.arrayValue?.first
            #expect(waiting?["from"] == "ada@example.org" && waiting?["fromName"] == "Ada Lovelace", "\(String(describing: waiting))")
            await ada.stop()
            await bob.stop()
        }
    }
}
