import Foundation
import Testing
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// The two C-ABI plugins shipped in `Plugins/` — one in C, one in Rust — through a real host, in
/// both tiers (docs/c-abi.md): the same notes, reminders on the virtual clock, notifications,
/// refusals in the plugin's own sentences, grants, and hot swap with the in-memory state carried.
@Suite(.hangWatchdog) struct CABIPluginTests {
    /// A plugin and a tier.
    struct Case: CustomTestStringConvertible, Sendable {
        let manifest: String
        let id: String
        let isolation: String
        var testDescription: String { "\(manifest) \(isolation)" }
    }

    static let cases: [Case] = ["c-notes", "rust-notes"].flatMap { name in
        ["inProcess", "process"].map { Case(manifest: name, id: "dev.tessera.\(name)", isolation: $0) }
    }

    func host(_ c: Case, grants: [String: Any] = ["storage": [:] as [String: Any], "clock": [:] as [String: Any],
                                                   "notifications": [:] as [String: Any]]) async throws -> PluginHost {
        try CABIPlugins.prepare()
        let ws = FixtureWorkspace("c-abi-\(c.manifest)")
        ws.addShippedManifest(c.manifest)
        ws.writeDeployment(plugins: [entry(c.id, grants: grants, extra: ["isolation": c.isolation])])
        let host = try await startHost(ws)
        #expect(host.status(of: c.id)?.state == .active, "\(host.status(of: c.id)?.history ?? [])")
        return host
    }

    @Test(arguments: cases)
    func notesAreStoredAndListedNewestFirst(_ c: Case) async throws {
        let host = try await host(c)
        let first = try await host.call(c.id, "add-note", input: ["text": "  first \"quoted\" \\ 🌍 "], as: user)
        #expect(first["at"] == "2026-03-02T08:00:00Z")
        _ = try await host.advanceClock(by: 60)
        _ = try await host.call(c.id, "add-note", input: ["text": "second"], as: user)
        let list = try await host.call(c.id, "list-notes", input: [:], as: user)
        let notes = list["notes"]?.arrayValue ?? []
        #expect(notes.compactMap { $0["text"]?.stringValue } == ["second", "first \"quoted\" \\ 🌍"])
        #expect(notes.compactMap { $0["at"]?.stringValue } == ["2026-03-02T08:01:00Z", "2026-03-02T08:00:00Z"])
        #expect(notes.last?["id"] == first["id"])
        let one = try await host.call(c.id, "list-notes", input: ["limit": 1], as: user)
        #expect(one["notes"]?.arrayValue?.count == 1)
    }

    @Test(arguments: cases)
    func theRefusalsAreThePluginsOwnSentences(_ c: Case) async throws {
        let host = try await host(c)
        let blank = await callError(host, c.id, "add-note", ["text": "   "], as: user)
        #expect(blank?.code == .invalidInput && blank?.field == "$.text", "\(String(describing: blank))")
        #expect(blank?.message == "A note needs some text.")
        let when = await callError(host, c.id, "remind", ["text": "tea", "in": "soon"], as: user)
        #expect(when?.code == .invalidInput && when?.field == "$.in", "\(String(describing: when))")
        #expect(when?.message == "Say how long to wait, like 30m, 2h or 1d.")
        // The host's own check comes first, from the manifest's schema: the plugin is not called.
        let schema = await callError(host, c.id, "add-note", ["words": "x"], as: user)
        #expect(schema?.code == .invalidInput)
        let stats = try await host.call(c.id, "stats", input: [:], as: user)
        #expect(stats["handled"] == 3, "two refusals by the plugin and this call: \(stats)")
    }

    @Test(arguments: cases)
    func aReminderFiresOnTheVirtualClockAndNotifies(_ c: Case) async throws {
        let host = try await host(c)
        let later = try await host.call(c.id, "remind", input: ["text": "later", "in": "2h"], as: user)
        _ = try await host.call(c.id, "remind", input: ["text": "sooner", "in": "1h30m"], as: user)
        #expect(later["at"] == "2026-03-02T10:00:00Z")
        let firings = try await host.advanceClock(by: 3 * 3600).filter { $0.timer.name == "reminder" }
        #expect(firings.count == 2 && firings.allSatisfy { $0.outcome == .delivered }, "\(firings)")
        let list = try await host.call(c.id, "list-reminders", input: [:], as: user)
        let reminders = list["reminders"]?.arrayValue ?? []
        #expect(reminders.compactMap { $0["text"]?.stringValue } == ["sooner", "later"])
        #expect(reminders.map { $0["fired"] } == ["2026-03-02T09:30:00Z", "2026-03-02T10:00:00Z"])
        // Each firing scheduled its notification for the moment it fired; a second later both are in.
        _ = try await host.advanceClock(by: 1)
        #expect(Set(try host.inbox().map(\.body)) == ["sooner", "later"])
    }

    @Test(arguments: cases)
    func aCapabilityNotGrantedIsRefusedToThePlugin(_ c: Case) async throws {
        // No notifications: the plugin's call is refused by the host, and the plugin goes on.
        let host = try await host(c, grants: ["storage": [:] as [String: Any], "clock": [:] as [String: Any]])
        _ = try await host.call(c.id, "remind", input: ["text": "quiet", "in": "1m"], as: user)
        let firings = try await host.advanceClock(by: 120).filter { $0.timer.name == "reminder" }
        #expect(firings.map(\.outcome) == [.delivered])
        let list = try await host.call(c.id, "list-reminders", input: [:], as: user)
        #expect(list["reminders"]?.arrayValue?.first?["fired"] == "2026-03-02T08:01:00Z")
        _ = try await host.advanceClock(by: 1)
        #expect(try host.inbox().isEmpty)
    }

    @Test(arguments: cases)
    func aHotSwapCarriesTheInMemoryState(_ c: Case) async throws {
        let host = try await host(c)
        _ = try await host.call(c.id, "add-note", input: ["text": "before"], as: user)
        let before = try await host.call(c.id, "stats", input: [:], as: user)
        #expect(before["handled"] == 2)
        _ = try await host.advanceClock(by: 600)
        let library = try #require(CABIPlugins.library(c.manifest))
        let report = try await host.swap(c.id, to: .library(library), drainTimeout: .seconds(60))
        #expect(report.stateBytes > 0)
        let after = try await host.call(c.id, "stats", input: [:], as: user)
        #expect(after["handled"] == 3, "the count went on across the swap: \(after)")
        #expect(after["since"] == before["since"] && after["since"] == "2026-03-02T08:00:00Z")
        let list = try await host.call(c.id, "list-notes", input: [:], as: user)
        #expect(list["notes"]?.arrayValue?.count == 1)
    }
}

/// Where the C-ABI plugins' libraries are: the C one is a SwiftPM product; the Rust one is built by
/// `scripts/build-rust-plugin.sh` into the same folder (scripts/test.sh runs it after the build).
enum CABIPlugins {
    static func library(_ manifest: String) -> String? {
        switch manifest {
        case "c-notes": Fixtures.buildDirectory + "/libTesseraCNotes.so"
        case "rust-notes": Fixtures.buildDirectory + "/libtessera_rust_notes.so"
        default: nil
        }
    }

    /// Fails with the command to run when the Rust plugin was not built.
    static func prepare() throws {
        for name in ["c-notes", "rust-notes"] {
            guard let path = library(name), FileManager.default.fileExists(atPath: path) else {
                throw PluginError(.unavailable, "\(library(name) ?? name) is missing: run swift build, then scripts/build-rust-plugin.sh (it needs cargo)")
            }
        }
    }
}

/// The shipped deployment `manifests/deployments/any-language.json` serves the Swift example, the
/// C plugin in the host's process and the Rust plugin in the process tier, side by side.
@Suite(.hangWatchdog) struct AnyLanguageDeploymentTests {
    @Test func theShippedDeploymentStartsAllThreeAndEachAnswers() async throws {
        try CABIPlugins.prepare()
        let deployment = try DeploymentReader.read(file: Fixtures.repositoryRoot + "/manifests/deployments/any-language.json")
        let host = try PluginHost(deployment: deployment, options: HostOptions(dataDirectory: Fixtures.temporaryDirectory("any-language"),
                                                                                libraryPaths: [Fixtures.buildDirectory]))
        await host.start()
        for id in ["dev.tessera.example", "dev.tessera.c-notes", "dev.tessera.rust-notes"] {
            #expect(host.status(of: id)?.state == .active, "\(id): \(host.status(of: id)?.history ?? [])")
            let note = try await host.call(id, "add-note", input: ["text": "from the any-language deployment"], as: user)
            #expect(note["at"] == "2026-03-02T08:00:00Z", "\(id): \(note)")
        }
        #expect(host.isolatedProcessID("dev.tessera.rust-notes") != nil, "the Rust plugin runs in the process tier")
        #expect(host.isolatedProcessID("dev.tessera.c-notes") == nil, "the C plugin runs in the host's process")
        await host.stop()
    }
}
