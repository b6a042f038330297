import Foundation
import Testing
import TesseraLoader
import TesseraSDK
import TesseraTestFixtures

/// `tessera hub person add` and `tessera serve` on a hub deployment, as separate processes sharing
/// the data directory: the person added by the CLI logs in over the served hub API (docs/hub.md).
@Suite struct HubCommandTests {
    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func addPersonThenLogInOnTheServedHub() async throws {
        let ws = FixtureWorkspace("hub-cli")
        ws.writeDeployment(plugins: [], extra: ["role": "hub"])
        func tessera(_ arguments: [String], input: String? = nil) async throws -> ProcessResult {
            try await runDetached(Fixtures.tesseraExecutable, arguments + ["--deployment", ws.deploymentFile, "--data", ws.dataDirectory], input: input)
        }
        let added = try await tessera(["hub", "person", "add", "ada"], input: "correct horse battery\n")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.hasPrefix("created ada ("))
        let again = try await tessera(["hub", "person", "add", "ada"], input: "another password\n")
        #expect(again.status == 2 && again.stderr.contains("already exists"))
        let noPassword = try await tessera(["hub", "person", "add", "bob"], input: "")
        #expect(noPassword.status == 2 && noPassword.stderr.contains("stdin"))
        #expect(FileManager.default.fileExists(atPath: ws.dataDirectory + "/hub.sqlite"))

        let (process, text) = try await ServeTests.serve(ws)
        defer { if process.isRunning { process.terminate() } }
        #expect(text.contains("serving hub deployment 'test'"))
        let port = try #require(text.firstMatch(of: /127\.0\.0\.1:(\d+)\//).map { String($0.1) })
        let login = try await RawHTTPClient.request("POST", url: "http://127.0.0.1:\(port)/v1/hub/login",
                                                    json: #"{"name":"ada","password":"correct horse battery","device":"cli-test"}"#)
        #expect(login.status == 201)
        let token = try #require(login.json?["token"]?.stringValue)
        let spaces = try await RawHTTPClient.request("GET", url: "http://127.0.0.1:\(port)/v1/hub/spaces", token: token)
        #expect(spaces.status == 200)
        #expect(spaces.json?["spaces"]?.arrayValue?.first?["id"]?.stringValue == "personal")
        process.terminate()  // SIGTERM
        _ = await process.output()  // to its end, so a last line never blocks it on a full pipe
        #expect(await process.exitStatus() == 0)
    }

    /// Files through a served hub: the operator's quota from the deployment refuses an upload with
    /// its named error; `tessera hub person quota` raises it for one person while the hub runs.
    @Test(.hangWatchdog) func fileQuotaOfAServedHub() async throws {
        let ws = FixtureWorkspace("hub-cli-files")
        ws.writeDeployment(plugins: [], extra: [
            "role": "hub",
            "providers": ["storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": "2026-03-02T08:00:00Z"],
                          "hubFiles": ["quotaMBPerPerson": 0.1, "maxFileMB": 5]],
        ])
        func tessera(_ arguments: [String], input: String? = nil) async throws -> ProcessResult {
            try await runDetached(Fixtures.tesseraExecutable, arguments + ["--deployment", ws.deploymentFile, "--data", ws.dataDirectory], input: input)
        }
        #expect(try await tessera(["hub", "person", "add", "ada"], input: "correct horse battery\n").status == 0)
        let (process, text) = try await ServeTests.serve(ws)
        defer { if process.isRunning { process.terminate() } }
        let port = try #require(text.firstMatch(of: /127\.0\.0\.1:(\d+)\//).map { String($0.1) })
        func send(_ method: String, _ path: String, token: String? = nil, body: [UInt8], type: String) async throws -> (Int, JSONValue?) {
            let response = try await RawHTTPClient.request(method, url: "http://127.0.0.1:\(port)\(path)", token: token, body: body, contentType: type)
            return (response.status, response.json)
        }
        let login = try await send("POST", "/v1/hub/login", body: Array(#"{"name":"ada","password":"correct horse battery","device":"cli"}"#.utf8),
                                   type: "application/json")
        let token = try #require(login.1?["token"]?.stringValue)
        var photo = [UInt8](repeating: 0x5A, count: 200 * 1024)
        photo[0] = 0xFF; photo[1] = 0xD8; photo[2] = 0xFF
        let address = SHA256.hex(of: photo)
        let refused = try await send("PUT", "/v1/hub/files/\(address)?size=\(photo.count)", token: token, body: photo, type: "application/octet-stream")
        #expect(refused.0 == 507 && refused.1?["error"]?["code"]?.stringValue == "quota_exceeded")
        let raised = try await tessera(["hub", "person", "quota", "ada", "1"])
        #expect(raised.status == 0 && raised.stdout.contains("ada may keep 1 MB"), "\(raised.stderr)")
        #expect(try await tessera(["hub", "person", "quota", "nobody", "1"]).stderr.contains("no person named 'nobody'"))
        #expect(try await tessera(["hub", "person", "quota", "ada", "lots"]).status == 2)
        let taken = try await send("PUT", "/v1/hub/files/\(address)?size=\(photo.count)", token: token, body: photo, type: "application/octet-stream")
        #expect(taken.0 == 201 && taken.1?["complete"]?.boolValue == true)
        #expect(FileManager.default.fileExists(atPath: ws.dataDirectory + "/hub-files/objects/\(address.prefix(2))/\(address)"))
        process.terminate()
        _ = await process.output()  // to its end, so a last line never blocks it on a full pipe
        _ = await process.exitStatus()
    }

    @Test func hubCommandsRefuseADeviceDeployment() async throws {
        let ws = FixtureWorkspace("hub-cli-device")
        ws.writeDeployment(plugins: [])
        let result = try await runDetached(Fixtures.tesseraExecutable, ["hub", "person", "add", "ada", "--deployment", ws.deploymentFile, "--data", ws.dataDirectory],
                                           input: "correct horse battery\n")
        #expect(result.status == 6 && result.stderr.contains("needs a hub deployment"))
    }
}
