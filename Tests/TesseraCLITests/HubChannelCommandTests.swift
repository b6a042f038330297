import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// Delivery channels through real processes (docs/hub.md, "Delivery channels"): `tessera serve`
/// on a hub deployment, and `tessera sync channels` on bob's device deployment. A notification
/// relayed to a space bob is in reaches his webhook (a real HTTP server on loopback) from the
/// served hub itself, with no device of his fetching anything.
@Suite struct HubChannelCommandTests {
    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func channelsAddedByTheCLIReceiveFromTheServedHub() async throws {
        let receiver = try LoopbackHTTPServer(.status(200))
        defer { receiver.close() }
        let hubSpace = FixtureWorkspace("hub-channels")
        hubSpace.writeDeployment(plugins: [], extra: ["role": "hub"])
        // Each command waited for on a thread of its own, never on a cooperative one.
        func hubCommand(_ arguments: [String], input: String? = nil) async throws -> ProcessResult {
            let arguments = arguments + ["--deployment", hubSpace.deploymentFile, "--data", hubSpace.dataDirectory]
            return try await onOwnThread { try run(Fixtures.tesseraExecutable, arguments, input: input) }
        }
        for name in ["ada", "bob"] { #expect(try await hubCommand(["hub", "person", "add", name], input: "correct horse battery\n").status == 0) }
        let (process, text) = try await ServeTests.serve(hubSpace)
        defer { if process.isRunning { process.terminate() } }
        let port = try #require(text.firstMatch(of: /127\.0\.0\.1:(\d+)\//).map { String($0.1) })

        let device = FixtureWorkspace("bob-device")
        device.writeDeployment(plugins: [], extra: ["providers": [
            "storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": "2026-03-02T08:00:00Z"],
            "sync": ["hub": "http://127.0.0.1:\(port)"],
        ]])
        func bob(_ arguments: [String], input: String? = nil) async throws -> ProcessResult {
            let arguments = ["sync"] + arguments + ["--deployment", device.deploymentFile, "--data", device.dataDirectory]
            return try await onOwnThread { try run(Fixtures.tesseraExecutable, arguments, input: input) }
        }
        #expect(try await bob(["channels", "list"]).status == 4)  // not logged in yet
        #expect(try await bob(["login", "bob"], input: "correct horse battery\n").status == 0)
        let added = try await bob(["channels", "add", "webhook", receiver.url("/bob"), "--plugin", "test.spaces"])
        #expect(added.status == 0, "\(added.stderr)")
        let secret = try #require(added.stdout.firstMatch(of: /whsec_[0-9a-f]{64}/).map { String($0.0) })
        let refused = try await bob(["channels", "add", "webhook", "http://example.org/hook"])
        #expect(refused.status == 2 && refused.stderr.contains("invalid_url"))
        let listed = try JSONValue(parsing: try await bob(["channels", "list", "--json"]).stdout)
        #expect(listed.arrayValue?.map { $0["url"] } == [.string(receiver.url("/bob"))])
        let id = try #require(listed.arrayValue?.first?["id"]?.stringValue)
        #expect(try await bob(["channels", "remove", "no-such-channel"]).status == 3)

        // ada shares a space with bob and a notification to its members is relayed.
        let hub = HubHTTP(port: port)
        let ada = try await hub.login("ada"), bobsLaptop = try await hub.login("bob")
        let space = "0b8f3c2e-5a6d-4e7f-8a9b-1c2d3e4f5a6b"
        #expect(try await hub.send("PUT", "/v1/hub/spaces/\(space)?plugin=test.spaces", token: ada, json: #"{"name":"Trip"}"#).0 == 201)
        let code = try #require(try await hub.send("POST", "/v1/hub/spaces/\(space)/invitations?plugin=test.spaces", token: ada,
                                                   json: #"{"role":"viewer"}"#).1?["code"]?.stringValue)
        #expect(try await hub.send("POST", "/v1/hub/invitations/accept", token: bobsLaptop, json: #"{"code":"\#(code)"}"#).0 == 200)
        let relayed = try await hub.send("POST", "/v1/hub/notifications", token: ada, json: """
            {"key": "tn1-cli", "notificationKey": "sos", "plugin": "test.spaces", "space": "\(space)", "excludingSender": true,
             "title": "SOS from ada", "body": "ada pressed SOS.", "payload": {"battery": 41}, "dueAtMillis": 1772438400000}
            """)
        #expect(relayed.0 == 201)

        let request = try #require(try await onOwnThread { receiver.waitForRequests(1) }.first)
        #expect(request.headers["idempotency-key"] == "tn1-cli.\(id)")
        let body = try JSONValue(parsing: request.body)
        #expect(body["title"]?.stringValue == "SOS from ada" && body["payload"]?["battery"]?.integerValue == 41)
        let signature = try #require(request.headers["tessera-signature"])
        let seconds = try #require(signature.firstMatch(of: /^t=(\d+),v1=/).map { String($0.1) })
        let expected = try await runDetached("/usr/bin/python3", [
            "-c", "import hmac, hashlib, sys; print(hmac.new(sys.argv[1].encode(), sys.stdin.buffer.read(), hashlib.sha256).hexdigest())", secret,
        ], input: "\(seconds).\(request.body)").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(signature == "t=\(seconds),v1=\(expected)")

        let removed = try await bob(["channels", "remove", id])
        #expect(removed.status == 0 && removed.stdout.contains("removed channel \(id)"))
        #expect(try await bob(["channels", "list"]).stdout.contains("no channels"))
        process.terminate()
        _ = await process.output()  // to its end, so a last line never blocks it on a full pipe
        #expect(await process.exitStatus() == 0)
    }
}

/// JSON requests to a served hub.
private struct HubHTTP {
    let port: String

    func send(_ method: String, _ path: String, token: String? = nil, json: String) async throws -> (Int, JSONValue?) {
        let response = try await RawHTTPClient.request(method, url: "http://127.0.0.1:\(port)\(path)", token: token, json: json)
        return (response.status, response.json)
    }

    func login(_ name: String) async throws -> String {
        let answer = try await send("POST", "/v1/hub/login", json: #"{"name":"\#(name)","password":"correct horse battery","device":"\#(name) laptop"}"#)
        guard let token = answer.1?["token"]?.stringValue else { throw SpawnFailure("login of \(name): \(answer.0)") }
        return token
    }
}
