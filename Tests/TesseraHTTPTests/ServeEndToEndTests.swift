import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// The real `tessera serve` with the real example plugin, over real HTTP: what an operator does
/// on first start, and what a client then sees.
@Suite struct ServeEndToEndTests {
    let ws: FixtureWorkspace

    init() {
        ws = FixtureWorkspace("http-serve")
        ws.addExampleManifest()
        ws.writeDeployment(plugins: [["id": "dev.tessera.example", "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any]]]])
    }

    func tessera(_ arguments: String...) async throws -> ProcessResult {
        let all = arguments + ["--deployment", ws.deploymentFile, "--data", ws.dataDirectory]
        return try await onThread { try run(Fixtures.tesseraExecutable, all) }
    }

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog, .needs("python:openapi_spec_validator")) func firstStartPrintsTheAdminTokenAndServesTheExamplePlugin() async throws {
        let serve = try await ServeProcess.start(ws)
        let admin = try #require(serve.adminToken, "no admin token in: \(serve.output)")
        #expect(serve.output.contains("only its SHA-256 is kept"))
        #expect(serve.output.contains("serving deployment 'test' at http://127.0.0.1:\(serve.port)/"))
        func request(_ method: String, _ path: String, token: String? = admin, json: String? = nil) async throws -> RawResponse {
            var headers = token.map { [("Authorization", "Bearer \($0)")] } ?? []
            if json != nil { headers.append(("Content-Type", "application/json")) }
            return try await RawHTTPClient.request(port: serve.port, method, path, headers: headers, body: json.map { Array($0.utf8) })
        }

        #expect(try await request("GET", "/healthz", token: nil).status == 200)
        #expect(try await request("GET", "/readyz").status == 200)
        let added = try await request("POST", "/v1/plugins/dev.tessera.example/ops/add-note", json: #"{"text": "over HTTP"}"#)
        #expect(added.status == 200, "\(added.text)")
        #expect(added.json?["at"] == "2026-03-02T08:00:00Z")  // the deployment's virtual clock
        let notes = try await request("POST", "/v1/plugins/dev.tessera.example/ops/list-notes", json: "{}")
        #expect(notes.json?["notes"]?.arrayValue?.first?["text"] == "over HTTP")
        let invalid = try await request("POST", "/v1/plugins/dev.tessera.example/ops/add-note", json: #"{"text": ""}"#)
        #expect(invalid.status == 400)
        #expect(invalid.json?["error"]?["field"] == "$.text")
        let plugins = try await request("GET", "/v1/plugins")
        let example = plugins.json?["plugins"]?.arrayValue?.first
        #expect(example?["state"] == "active")
        #expect(example?["generation"] == 1)
        #expect(try await request("GET", "/metrics").text.contains(#"tessera_operation_calls_total{plugin="dev.tessera.example",operation="add-note"} 2"#))

        let openAPI = try await request("GET", "/openapi.json")
        #expect(openAPI.json?["components"]?["schemas"]?["dev.tessera.example.echo.input"]?["properties"]?["note"] == ["type": ["string", "null"]])
        let file = ws.root + "/openapi.json"
        try Data(openAPI.body).write(to: URL(fileURLWithPath: file))
        let verdict = try await OpenAPIValidator.validate(file: file)
        #expect(verdict.status == 0, "\(verdict.stdout)\(verdict.stderr)")

        // Tokens made and rotated by other processes work at once.
        let created = try await tessera("token", "create", "--role", "user", "bob")
        #expect(created.status == 0, "\(created.stderr)")
        let bob = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try await request("POST", "/v1/plugins/dev.tessera.example/ops/list-notes", token: bob, json: "{}").status == 200)
        let rotated = try await tessera("token", "rotate")
        #expect(rotated.status == 0, "\(rotated.stderr)")
        let newAdmin = rotated.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(newAdmin.hasPrefix("tsr_") && newAdmin != admin)
        #expect(try await request("GET", "/v1/plugins").status == 401)
        #expect(try await request("GET", "/v1/plugins", token: newAdmin).status == 200)
        let listed = try await tessera("token", "list")
        #expect(listed.stdout.contains("admin") && listed.stdout.contains("bob"))
        #expect(!listed.stdout.contains(newAdmin))
        #expect(try await tessera("token", "create", "Not Valid").status == 2)
        #expect(try await tessera("token", "revoke", "nobody").status == 3)

        let stopped = try await serve.terminate()
        #expect(stopped.status == 0)
        #expect(stopped.rest.contains("stopped"))

        // A second start finds the admin token and prints none.
        let again = try await ServeProcess.start(ws)
        #expect(again.adminToken == nil)
        #expect(try await RawHTTPClient.request(port: again.port, "GET", "/readyz", headers: [("Authorization", "Bearer \(newAdmin)")]).status == 200)
        _ = try await again.terminate()
    }
}

/// `tessera serve --port 0` as a child process, read until it says it is serving.
struct ServeProcess: @unchecked Sendable {
    let process: ChildProcess
    let out: FileHandle
    /// What it printed up to "Ctrl-C to stop".
    let output: String
    let port: Int

    /// The admin token, if this start printed one.
    var adminToken: String? {
        output.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("tsr_") }.map(String.init)
    }

    static func start(_ ws: FixtureWorkspace, extraArguments: [String] = []) async throws -> ServeProcess {
        try await reading(try ChildProcess(Fixtures.tesseraExecutable,
                                           ["serve", "--deployment", ws.deploymentFile, "--data", ws.dataDirectory, "--port", "0"] + extraArguments))
    }

    /// A `tessera serve` started some other way (through a shell, with stderr piped), read until it
    /// says it is serving.
    static func reading(_ process: ChildProcess) async throws -> ServeProcess {
        let out = process.standardOutput!
        let handle = out
        let output = try await onThread {
            var text = ""
            while !text.contains("Ctrl-C to stop") {
                let chunk = handle.availableData
                if chunk.isEmpty { break }  // it died first
                text += String(decoding: chunk, as: UTF8.self)
            }
            return text
        }
        guard let range = output.range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression),
              let port = Int(output[range].split(separator: ":").last ?? "") else {
            process.terminate()
            throw RawHTTPClient.Failure(description: "tessera serve did not say where it listens: \(output)")
        }
        return ServeProcess(process: process, out: out, output: output, port: port)
    }

    /// Sends SIGTERM and waits for the exit: its status, and what it printed after starting.
    func terminate() async throws -> (status: Int32, rest: String) {
        process.terminate()
        return try await onThread {
            let rest = out.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: rest, as: UTF8.self))
        }
    }
}
