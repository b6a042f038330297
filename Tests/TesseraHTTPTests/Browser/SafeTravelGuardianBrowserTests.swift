import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// The guardian's console page end to end, with real processes only: a hub (`tessera serve`, role
/// hub), ada's and bob's devices (`tessera call`, `tessera sync now`, each its own data directory
/// and virtual clock, the module's `.so` by dlopen), paired through the hub. ada's SOS goes
/// unanswered; the alert reaches bob's device by sync; bob, in a real headless Chromium against his
/// own `tessera serve`, sees ada among those he watches and the open alert — a sentence saying why
/// it went out and when, never the module's codes — with its live view, and acknowledges it; synced
/// back, the acknowledgement stops the ladder on ada's device: no repeat. Screenshots
/// artifacts/safetravel-guardian-*.png.
@Suite(.serialized, .needs("chromium")) struct SafeTravelGuardianBrowserTests {
    struct Device {
        let name: String
        let workspace: FixtureWorkspace

        init(_ name: String, hubPort: Int) throws {
            self.name = name
            workspace = FixtureWorkspace("safetravel-guardian-\(name)")
            try ConsoleBrowserTests.copyShippedManifest("safetravel", into: workspace)
            workspace.writeDeployment(plugins: [["id": "cz.tessera.safetravel", "config": ["pinIterations": 1000] as [String: Any],
                                                 "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any], "location": [:] as [String: Any],
                                                            "notifications": ["spaces": true], "sync": [:] as [String: Any]]]],
                                      extra: ["providers": ["storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": "2026-03-02T08:00:00Z"],
                                                            "sync": ["hub": "http://127.0.0.1:\(hubPort)"]]])
        }

        @discardableResult
        func tessera(_ arguments: [String], input: String? = nil) async throws -> ProcessResult {
            let result = try await runDetached(Fixtures.tesseraExecutable,
                                               arguments + ["--deployment", workspace.deploymentFile, "--data", workspace.dataDirectory], input: input)
            if result.status != 0 { Issue.record("\(name): tessera \(arguments.joined(separator: " ")) → \(result.status): \(result.stderr)") }
            return result
        }

        func call(_ operation: String, _ input: String = "{}") async throws -> JSONValue {
            try JSONValue(parsing: await tessera(["call", "cz.tessera.safetravel", operation, input, "--json"]).stdout)
        }
    }

    /// A hub (`tessera serve`, role hub) with ada and bob (and `others`) as its people, their
    /// password "correct horse battery".
    static func hubWithAdaAndBob(_ name: String, others: [String] = []) async throws -> ServeProcess {
        let hubWorkspace = FixtureWorkspace(name)
        hubWorkspace.writeDeployment(plugins: [], extra: ["role": "hub"])
        for person in ["ada", "bob"] + others {
            let added = try await runDetached(Fixtures.tesseraExecutable, ["hub", "person", "add", person, "--deployment", hubWorkspace.deploymentFile,
                                                                         "--data", hubWorkspace.dataDirectory], input: "correct horse battery\n")
            #expect(added.status == 0, "\(added.stderr)")
        }
        return try await ServeProcess.start(hubWorkspace)
    }

    @Test(.hangWatchdog) func aGuardianAcknowledgesAnSOSOnTheirPageAndTheLadderStops() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let hub = try await Self.hubWithAdaAndBob("safetravel-guardian-hub")
        defer { hub.process.terminate() }
        let ada = try Device("ada", hubPort: hub.port), bob = try Device("bob", hubPort: hub.port)
        for device in [ada, bob] {
            try await device.tessera(["sync", "login", device.name, "--device", "\(device.name)'s phone"], input: "correct horse battery\n")
            _ = try await device.call("account-setup", #"{"username": "\#(device.name)", "pin": "4826"}"#)
        }
        _ = try await ada.call("guardian-add", #"{"username": "bob"}"#)
        let request = try #require(try await bob.call("guardian-requests")["requests"]?.arrayValue?.first?["requestId"]?.stringValue)
        _ = try await bob.call("guardian-accept", #"{"requestId": "\#(request)"}"#)
        _ = try await ada.call("guardian-requests")

        // ada's SOS, held and released, unanswered: the alert at release + 15 s, synced to bob.
        _ = try await ada.call("position-report", #"{"lat": 50.08, "lon": 14.42, "accuracy": 8, "battery": 30}"#)
        _ = try await ada.call("sos-touch-down")
        try await ada.tessera(["clock", "advance", "3s"])
        let sos = try #require(try await ada.call("sos-touch-up")["sosId"]?.stringValue)
        try await ada.tessera(["clock", "advance", "15s"])
        try await ada.tessera(["sync", "now"])
        try await bob.tessera(["sync", "now"])
        let held = try await bob.call("alerts")["alerts"]?.arrayValue ?? []
        #expect(held.map { $0["id"] } == [.string("sos-\(sos)")], "bob's device holds ada's alert")

        let serve = try await ServeProcess.start(bob.workspace)
        defer { serve.process.terminate() }
        let admin = try #require(serve.adminToken)
        let base = "http://127.0.0.1:\(serve.port)"
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }
        try await onThread {
            try ConsoleBrowserTests.signIn(page, at: base, with: admin)
            try page.navigate(base + "/ui/cz.tessera.safetravel/guardian.html")
            try page.waitFor("document.body.dataset.ready === 'true' && document.querySelector('#open-alerts button.acknowledge')", "the open alert")
        }
        let watched = try await onThread { try page.evaluate("[...document.querySelectorAll('#watched li')].map((li) => li.textContent).join(',')") }
        #expect(watched.stringValue == "ada")
        let live = try await onThread { try page.evaluate("document.querySelector('#open-alerts a.live-view').getAttribute('href')") }
        #expect(live.stringValue?.hasPrefix("/ui/cz.tessera.safetravel/live.html#") == true)
        #expect(try await onThread { try page.evaluate("document.querySelector('#open-alerts a.live-view').textContent") } == "Live view: ada")
        let line = try await onThread { try page.evaluate("document.querySelector('#open-alerts li').textContent").stringValue ?? "" }
        #expect(line.contains("ada: SOS pressed, and the PIN was not entered in time."), "\(line)")
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread { try page.use(.phone) }
        #expect(try await onThread { try page.fitsItsWidth() })
        try await onThread {
            try page.screenshots("safetravel-guardian-open", in: ConsoleBrowserTests.artifacts)
            try page.click("#open-alerts button.acknowledge")
            try page.waitFor("document.body.dataset.ready === 'true' && !document.querySelector('#open-alerts li') && document.querySelector('#done-alerts li')", "acknowledged")
        }
        #expect(try await onThread { try page.evaluate("document.getElementById('status').textContent") }
                == "Acknowledged: ada: SOS pressed, and the PIN was not entered in time. It will not be repeated.")
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread { try page.use(.phone) }
        #expect(try await onThread { try page.fitsItsWidth() })
        try await onThread { try page.screenshots("safetravel-guardian", in: ConsoleBrowserTests.artifacts) }
        _ = try await serve.terminate()

        // Synced back: ada's device holds bob's acknowledgement, and the 5-minute repeat does not go out.
        try await bob.tessera(["sync", "now"])
        try await ada.tessera(["sync", "now"])
        let alert = try #require(try await ada.call("alerts")["alerts"]?.arrayValue?.first)
        #expect(alert["acks"] == 1)
        try await ada.tessera(["clock", "advance", "10m"])
        let listed = try JSONValue(parsing: try await ada.tessera(["notifications", "list", "--json"]).stdout)
        let keys = listed["notifications"]?.arrayValue?.compactMap { $0["key"]?.stringValue } ?? []
        #expect(keys.contains("alert-sos-\(sos)") && !keys.contains("alert-sos-\(sos)-r1"), "\(keys)")
        _ = try await hub.terminate()
    }
}
