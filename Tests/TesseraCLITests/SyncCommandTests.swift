import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// `tessera sync login|now|status` against a hub served by another `tessera` process.
@Suite struct SyncCommandTests {
    @Test(.hangWatchdog) func loginThenStatusAgainstAServedHub() async throws {
        let hubWS = FixtureWorkspace("sync-cli-hub")
        hubWS.writeDeployment(plugins: [], extra: ["role": "hub"])
        let added = try await runDetached(Fixtures.tesseraExecutable, ["hub", "person", "add", "ada", "--deployment", hubWS.deploymentFile,
                                                                    "--data", hubWS.dataDirectory], input: "correct horse battery\n")
        #expect(added.status == 0, "\(added.stderr)")
        let (process, text) = try await ServeTests.serve(hubWS)
        defer { if process.isRunning { process.terminate() } }
        let port = try #require(text.firstMatch(of: /127\.0\.0\.1:(\d+)\//).map { String($0.1) })

        let device = FixtureWorkspace("sync-cli-device")
        device.addExampleManifest()
        device.writeDeployment(plugins: [["id": "dev.tessera.example", "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any]]]],
                               extra: ["providers": ["storage": ["kind": "sqlite"], "clock": ["kind": "virtual"], "sync": ["hub": "http://127.0.0.1:\(port)"]]])
        func tessera(_ arguments: [String], input: String? = nil) async throws -> ProcessResult {
            try await runDetached(Fixtures.tesseraExecutable, arguments + ["--deployment", device.deploymentFile, "--data", device.dataDirectory], input: input)
        }
        let before = try await tessera(["sync", "status"])
        #expect(before.status == 0, "\(before.stderr)")
        #expect(before.stdout.contains("not logged in"))
        let wrong = try await tessera(["sync", "login", "ada"], input: "not the password\n")
        #expect(wrong.status == 4 && wrong.stderr.contains("invalid_credentials"))
        let login = try await tessera(["sync", "login", "ada", "--device", "test laptop"], input: "correct horse battery\n")
        #expect(login.status == 0, "\(login.stderr)")
        let after = try await tessera(["sync", "status", "--json"])
        #expect(try JSONValue(parsing: after.stdout)["loggedIn"] == true)
        let secrets = try await tessera(["secrets", "list"])
        #expect(secrets.stdout.contains("tessera.host hub-device-token") && !secrets.stdout.contains("tsd_"))
        let now = try await tessera(["sync", "now"])
        #expect(now.status == 0 && now.stdout.contains("no plugin syncs here"))
        let conflicts = try await tessera(["sync", "conflicts", "--json"])
        #expect(conflicts.status == 0 && conflicts.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
        process.terminate()
        _ = await process.output()  // to its end, so a last line never blocks it on a full pipe
        _ = await process.exitStatus()
    }

    @Test func withoutAHubTheCommandsSaySo() async throws {
        let ws = FixtureWorkspace("sync-cli-nohub")
        ws.writeDeployment(plugins: [])
        let status = try await runDetached(Fixtures.tesseraExecutable, ["sync", "status", "--deployment", ws.deploymentFile, "--data", ws.dataDirectory])
        #expect(status.status == 0 && status.stdout.contains("hub: none"))
        let login = try await runDetached(Fixtures.tesseraExecutable, ["sync", "login", "ada", "--deployment", ws.deploymentFile,
                                                                   "--data", ws.dataDirectory], input: "correct horse battery\n")
        #expect(login.status != 0 && login.stderr.contains("providers.sync.hub"))
    }
}
