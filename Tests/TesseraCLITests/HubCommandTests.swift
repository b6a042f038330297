import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TesseraSDK
import TesseraTestFixtures

/// `tessera hub person add` and `tessera serve` on a hub deployment, as separate processes sharing
/// the data directory: the person added by the CLI logs in over the served hub API (docs/hub.md).
@Suite struct HubCommandTests {
    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func addPersonThenLogInOnTheServedHub() async throws {
        let ws = FixtureWorkspace("hub-cli")
        ws.writeDeployment(plugins: [], extra: ["role": "hub"])
        func tessera(_ arguments: [String], input: String? = nil) throws -> ProcessResult {
            try run(Fixtures.tesseraExecutable, arguments + ["--deployment", ws.deploymentFile, "--data", ws.dataDirectory], input: input)
        }
        let added = try tessera(["hub", "person", "add", "ada"], input: "correct horse battery\n")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.hasPrefix("created ada ("))
        let again = try tessera(["hub", "person", "add", "ada"], input: "another password\n")
        #expect(again.status == 2 && again.stderr.contains("already exists"))
        let noPassword = try tessera(["hub", "person", "add", "bob"], input: "")
        #expect(noPassword.status == 2 && noPassword.stderr.contains("stdin"))
        #expect(FileManager.default.fileExists(atPath: ws.dataDirectory + "/hub.sqlite"))

        let (process, out, text) = try ServeTests.serve(ws)
        defer { if process.isRunning { process.terminate() } }
        #expect(text.contains("serving hub deployment 'test'"))
        let port = try #require(text.firstMatch(of: /127\.0\.0\.1:(\d+)\//).map { String($0.1) })
        var login = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/hub/login")!)
        login.httpMethod = "POST"
        login.setValue("application/json", forHTTPHeaderField: "Content-Type")
        login.httpBody = Data(#"{"name":"ada","password":"correct horse battery","device":"cli-test"}"#.utf8)
        let (body, response) = try await URLSession.shared.data(for: login)
        #expect((response as? HTTPURLResponse)?.statusCode == 201)
        let token = try #require(try JSONValue(parsing: Array(body))["token"]?.stringValue)
        var spaces = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/hub/spaces")!)
        spaces.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (listing, listed) = try await URLSession.shared.data(for: spaces)
        #expect((listed as? HTTPURLResponse)?.statusCode == 200)
        #expect(try JSONValue(parsing: Array(listing))["spaces"]?.arrayValue?.first?["id"]?.stringValue == "personal")
        process.terminate()  // SIGTERM
        _ = out.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test func hubCommandsRefuseADeviceDeployment() throws {
        let ws = FixtureWorkspace("hub-cli-device")
        ws.writeDeployment(plugins: [])
        let result = try run(Fixtures.tesseraExecutable, ["hub", "person", "add", "ada", "--deployment", ws.deploymentFile, "--data", ws.dataDirectory],
                             input: "correct horse battery\n")
        #expect(result.status == 6 && result.stderr.contains("needs a hub deployment"))
    }
}
