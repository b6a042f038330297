import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
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
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
            request.httpMethod = method
            request.setValue(type, forHTTPHeaderField: "Content-Type")
            if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
            request.httpBody = Data(body)
            let (data, response) = try await URLSession.shared.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, try? JSONValue(parsing: Array(data)))
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
