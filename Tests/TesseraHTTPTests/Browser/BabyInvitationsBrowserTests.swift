import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// The baby diary's invitations inbox (UC30) end to end, with real processes only: a hub
/// (`tessera serve`, role hub), Ada's and Bob's devices (`tessera call`, `tessera sync now`, each
/// its own data directory, the module's `.so` by dlopen). Ada invites Bob to Ema as a parent and to
/// Jan as a guardian; Bob, in a real headless Chromium against his own `tessera serve`, sees both
/// in his inbox, accepts Ema's and declines Jan's. Checked through the hub afterwards: Bob is Ema's
/// parent, Jan has neither Bob nor an open invitation, and only Ema comes to Bob's device. The inbox
/// says when each invitation expires in words ("next week"), shows nothing meant for developers, and
/// fits a phone; the screenshots are artifacts/baby-invitations-phone.png and -desktop.png.
@Suite(.serialized, .needs("chromium")) struct BabyInvitationsBrowserTests {
    static let password = "correct horse battery\n"

    struct Device {
        let name: String
        let workspace: FixtureWorkspace

        init(_ name: String, hubPort: Int) throws {
            self.name = name
            workspace = FixtureWorkspace("baby-invitations-\(name)")
            try ConsoleBrowserTests.copyShippedManifest("baby", into: workspace)
            var grants: [String: Any] = [:]
            for capability in ["storage", "clock", "notifications", "files", "sync"] { grants[capability] = [:] as [String: Any] }
            workspace.writeDeployment(plugins: [["id": "cz.tessera.baby", "grants": grants]],
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
            try JSONValue(parsing: await tessera(["call", "cz.tessera.baby", operation, input, "--json"]).stdout)
        }
    }

    @Test(.hangWatchdog) func bobAcceptsOneInvitationAndDeclinesTheOtherOnHisPage() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let hubWorkspace = FixtureWorkspace("baby-invitations-hub")
        hubWorkspace.writeDeployment(plugins: [], extra: ["role": "hub"])
        for person in ["ada", "bob"] {
            let added = try await runDetached(Fixtures.tesseraExecutable, ["hub", "person", "add", person, "--deployment", hubWorkspace.deploymentFile,
                                                                         "--data", hubWorkspace.dataDirectory], input: Self.password)
            #expect(added.status == 0, "\(added.stderr)")
        }
        let hub = try await ServeProcess.start(hubWorkspace)
        defer { hub.process.terminate() }
        let ada = try Device("ada", hubPort: hub.port), bob = try Device("bob", hubPort: hub.port)
        for device in [ada, bob] {
            try await device.tessera(["sync", "login", device.name, "--device", "\(device.name)'s laptop"], input: Self.password)
        }
        let ema = try #require(try await ada.call("child-create", #"{"name": "Ema", "birthDate": "2025-06-15"}"#)["id"]?.stringValue)
        let jan = try #require(try await ada.call("child-create", #"{"name": "Jan", "birthDate": "2023-01-20"}"#)["id"]?.stringValue)
        try await ada.tessera(["sync", "now"])
        _ = try await ada.call("share-invite", #"{"childId": "\#(ema)", "person": "bob", "level": "parent"}"#)
        _ = try await ada.call("share-invite", #"{"childId": "\#(jan)", "person": "bob", "level": "guardian"}"#)
        try await ada.tessera(["sync", "now"])

        let serve = try await ServeProcess.start(bob.workspace)
        defer { serve.process.terminate() }
        let admin = try #require(serve.adminToken)
        let base = "http://127.0.0.1:\(serve.port)"
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }
        try await onThread {
            try ConsoleBrowserTests.signIn(page, at: base, with: admin)
            try page.navigate(base + "/ui/cz.tessera.baby/")
            try page.waitFor("document.body.dataset.ready === 'true'", "the page to load")
            // The overview says two invitations wait, and leads to them.
            try page.waitFor("document.getElementById('invitations-hint-text').textContent === '2 invitations to share a child are waiting for you.'",
                             "the overview's line about the invitations")
            try page.click("#invitations-hint a")
            try page.waitFor("location.hash === '#/sharing' && !document.getElementById('panel-sharing').hidden", "the part with the invitations")
            try page.waitFor("document.querySelectorAll('#invitations li[data-id]').length === 2", "both invitations in the inbox")
            try page.waitFor("document.getElementById('invitations').innerText.includes('Ema from ada — the invitation expires ')", "Ema's invitation")
            #expect(try page.evaluate("/\\d{4}-\\d{2}-\\d{2}/.test(document.getElementById('invitations').innerText)") == false)
            // Both invitations on the page: nothing meant for developers, it fits a phone, and the screenshots show them.
            #expect(try page.developerText() == [])
            try page.use(.phone)
            #expect(try page.fitsItsWidth())
            try page.screenshots("baby-invitations", in: ConsoleBrowserTests.artifacts)
            try page.click("#invitations button[aria-label=\"Accept the invitation to Ema from ada\"]")
            try page.waitFor("document.getElementById('status').textContent.startsWith('Invitation accepted: Ema')", "Ema's invitation accepted")
            try page.waitFor("document.querySelectorAll('#invitations li[data-id]').length === 1", "one invitation left")
            try page.click("#invitations button[aria-label=\"Decline the invitation to Jan from ada\"]")
            try page.waitFor("document.getElementById('status').textContent === 'Invitation declined.'", "Jan's invitation declined")
            try page.waitFor("document.getElementById('invitations').innerText.includes('No invitations.')", "the inbox empty")
        }
        #expect(try await onThread { try page.developerText() } == [])
        let left = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/plugins/cz.tessera.baby/ops/invitations-list",
                                                   headers: [("Authorization", "Bearer \(admin)"), ("Content-Type", "application/json")], body: Array("{}".utf8))
        #expect(left.json?["invitations"] == [])
        _ = try await serve.terminate()

        // Through the hub: Bob is Ema's parent; Jan has neither Bob nor an open invitation.
        let emaMembers = try await ada.call("share-members", #"{"childId": "\#(ema)"}"#)
        #expect(emaMembers["members"]?.arrayValue?.first { $0["person"] == "bob" }?["level"] == "parent")
        let janMembers = try await ada.call("share-members", #"{"childId": "\#(jan)"}"#)
        #expect(janMembers["members"]?.arrayValue?.map { $0["person"] } == ["ada"])
        #expect(janMembers["invitations"] == [])
        try await bob.tessera(["sync", "now"])
        let children = try await bob.call("children-list")["children"]?.arrayValue ?? []
        #expect(children.map { $0["name"] } == ["Ema"])
        _ = try await hub.terminate()
    }
}
