import Foundation
import Testing
import TesseraSDK
import TesseraSecrets
import TesseraTestFixtures

/// The secrets capability's store and per-plugin channel.
@Suite(.hangWatchdog) struct SecretStoreTests {
    let now: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_767_225_600) }

    @Test func aSecretIsStoredReadReplacedAndRemoved() async throws {
        let ws = Fixtures.temporaryDirectory("secrets")
        let store = try SecretStore(path: ws + "/secrets.sqlite")
        let channel = PluginSecretChannel(pluginID: "cz.tessera.finance", store: store, now: now)
        #expect(try await channel.secret(named: "fio-token") == nil)
        try await channel.store(Secret("t0k3n"), named: "fio-token")
        #expect(try await channel.secret(named: "fio-token")?.revealed == "t0k3n")
        try await channel.store(Secret("n3w"), named: "fio-token")
        #expect(try await channel.secret(named: "fio-token")?.revealed == "n3w")
        #expect(try await channel.secretNames() == ["fio-token"])
        try await channel.removeSecret(named: "fio-token")
        #expect(try await channel.secret(named: "fio-token") == nil)
        #expect(try await channel.secretNames().isEmpty)
    }

    @Test func secretsSurviveReopening() async throws {
        let ws = Fixtures.temporaryDirectory("secrets")
        try await PluginSecretChannel(pluginID: "p", store: SecretStore(path: ws + "/s.sqlite"), now: now)
            .store(Secret("kept"), named: "ticket")
        let reopened = PluginSecretChannel(pluginID: "p", store: try SecretStore(path: ws + "/s.sqlite"), now: now)
        #expect(try await reopened.secret(named: "ticket")?.revealed == "kept")
    }

    @Test func aPluginSeesOnlyItsOwnSecrets() async throws {
        let ws = Fixtures.temporaryDirectory("secrets")
        let store = try SecretStore(path: ws + "/secrets.sqlite")
        let finance = PluginSecretChannel(pluginID: "cz.tessera.finance", store: store, now: now)
        let stag = PluginSecretChannel(pluginID: "cz.tessera.stag", store: store, now: now)
        try await finance.store(Secret("bank"), named: "token")
        #expect(try await stag.secret(named: "token") == nil)
        #expect(try await stag.secretNames().isEmpty)
        try await stag.removeSecret(named: "token")
        #expect(try await finance.secret(named: "token")?.revealed == "bank")
    }

    @Test func theFileIsReadableByItsOwnerOnly() throws {
        let ws = Fixtures.temporaryDirectory("secrets")
        let path = ws + "/secrets.sqlite"
        let store = try SecretStore(path: path)
        #expect(!FileManager.default.fileExists(atPath: path))  // opened, and made, on first use
        try store.set(plugin: "p", name: "n", value: "v", at: now())
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode & 0o077 == 0, "mode \(String(mode, radix: 8))")
    }

    @Test func badNamesAndOversizedValuesAreRefused() async throws {
        let ws = Fixtures.temporaryDirectory("secrets")
        let channel = PluginSecretChannel(pluginID: "p", store: try SecretStore(path: ws + "/s.sqlite"), now: now)
        for name in ["", "a b", "../x", String(repeating: "a", count: 65), "tokén"] {
            let error = await #expect(throws: PluginError.self) { try await channel.store(Secret("v"), named: name) }
            #expect(error?.code == .invalidInput, "\(name)")
        }
        let error = await #expect(throws: PluginError.self) {
            try await channel.store(Secret(String(repeating: "x", count: PluginSecretChannel.maxValueBytes + 1)), named: "big")
        }
        #expect(error?.code == .invalidInput)
        #expect(try await channel.secretNames().isEmpty)
    }

    @Test func aSecretNeverPrintsItsValue() {
        let secret = Secret("hunter2")
        var dumped = ""
        dump(secret, to: &dumped)
        for text in ["\(secret)", String(describing: secret), String(reflecting: secret), dumped, "\([secret])"] {
            #expect(!text.contains("hunter2"), "\(text)")
        }
        #expect("\(secret)" == "Secret(•••)")
    }
}

/// Issue 23: a secret removed or replaced leaves no readable copy in the data directory — not in
/// the database, its write-ahead log, or freed pages.
@Suite(.hangWatchdog) struct SecretErasureTests {
    /// The files of `directory` whose bytes contain `needle`.
    static func filesHolding(_ needle: String, in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted().filter { name in
            try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)).range(of: Data(needle.utf8)) != nil
        }
    }

    @Test func aRemovedOrReplacedSecretIsGoneFromEveryFile() async throws {
        let ws = Fixtures.temporaryDirectory("secrets")
        let store = try SecretStore(path: ws + "/secrets.sqlite")
        let now = Date(timeIntervalSince1970: 1_767_225_600)
        let first = "ticket-" + UUID().uuidString, second = "ticket-" + UUID().uuidString, kept = "bank-" + UUID().uuidString
        try store.set(plugin: "cz.tessera.finance", name: "token", value: kept, at: now)
        try store.set(plugin: "cz.tessera.stag", name: "stag-ticket", value: first, at: now)
        try store.set(plugin: "cz.tessera.stag", name: "stag-ticket", value: second, at: now)
        #expect(try Self.filesHolding(first, in: ws) == [], "the replaced value")
        #expect(try Self.filesHolding(second, in: ws).allSatisfy { $0.hasPrefix("secrets.sqlite") })
        try store.remove(plugin: "cz.tessera.stag", name: "stag-ticket")
        #expect(try Self.filesHolding(second, in: ws) == [], "the removed value")
        // Another plugin's secret is untouched.
        #expect(try store.value(plugin: "cz.tessera.finance", name: "token") == kept)
        #expect(try Self.filesHolding(kept, in: ws).isEmpty == false)
    }
}
