import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// The baby diary through the real command line: `tessera call` and `tessera clock advance`, each
/// a process loading `libTesseraBaby.so` by dlopen, on one data directory and its virtual clock.
@Suite(.serialized, .hangWatchdog) struct BabyProcessTests {
    /// A device with the baby diary: its workspace, and `tessera` on it.
    struct Device {
        let name: String
        let workspace: FixtureWorkspace

        init(_ name: String, hubPort: String? = nil) {
            self.name = name
            workspace = FixtureWorkspace("baby-device-\(name)")
            Fixtures.write(try! String(contentsOfFile: Fixtures.repositoryRoot + "/manifests/baby.json", encoding: .utf8), to: workspace.root + "/baby.json")
            var grants: [String: Any] = [:]
            for capability in ["storage", "clock", "notifications", "files"] { grants[capability] = [:] as [String: Any] }
            var providers: [String: Any] = ["storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": "2026-03-02T08:00:00Z"]]
            if let hubPort {
                grants["sync"] = [:] as [String: Any]
                providers["sync"] = ["hub": "http://127.0.0.1:\(hubPort)"]
            }
            var entry: [String: Any] = ["id": "cz.tessera.baby", "grants": grants]
            // `TESSERA_TEST_ISOLATION=process` runs this suite's devices with the module in the process tier.
            if let tier = ProcessInfo.processInfo.environment["TESSERA_TEST_ISOLATION"] { entry["isolation"] = tier }
            workspace.writeDeployment(plugins: [entry], extra: ["providers": providers])
        }

        /// `tessera ARGUMENTS` on this device; an exit status other than `expecting` is a failure.
        @discardableResult
        func tessera(_ arguments: [String], input: String? = nil, expecting: Int32 = 0) async throws -> ProcessResult {
            let result = try await runDetached(Fixtures.tesseraExecutable,
                                               arguments + ["--deployment", workspace.deploymentFile, "--data", workspace.dataDirectory], input: input)
            if result.status != expecting {
                Issue.record("\(name): tessera \(arguments.joined(separator: " ")) → \(result.status), expected \(expecting): \(result.stderr)")
            }
            return result
        }

        func call(_ operation: String, _ input: String = "{}") async throws -> JSONValue {
            try JSONValue(parsing: await tessera(["call", "cz.tessera.baby", operation, input, "--json"]).stdout)
        }

        func sync() async throws { try await tessera(["sync", "now"]) }

        func notifications() async throws -> [JSONValue] {
            try JSONValue(parsing: await tessera(["notifications", "list", "--json"]).stdout)["notifications"]?.arrayValue ?? []
        }
    }

    /// `tessera serve` on `workspace` at a free port, once it says it is serving: the process and its port.
    static func serve(_ workspace: FixtureWorkspace) async throws -> (ChildProcess, Int) {
        let process = try ChildProcess(Fixtures.tesseraExecutable, ["serve", "--deployment", workspace.deploymentFile,
                                                                   "--data", workspace.dataDirectory, "--port", "0"])
        let text = try await onOwnThread {
            var text = ""
            while !text.contains("Ctrl-C to stop") {
                let chunk = process.standardOutput!.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            return text
        }
        guard let port = text.firstMatch(of: /127\.0\.0\.1:(\d+)\//).flatMap({ Int($0.1) }) else { throw SpawnFailure("tessera serve did not start: \(text)") }
        return (process, port)
    }

    /// One HTTP request to the served device with `token`: the status and the body.
    static func http(_ method: String, _ port: Int, _ path: String, token: String, body: Data? = nil,
                     contentType: String = "application/json") async throws -> (Int, Data, [String: String]) {
        let response = try await RawHTTPClient.request(method, url: "http://127.0.0.1:\(port)\(path)", token: token,
                                                       body: body.map { Array($0) }, contentType: contentType)
        return (response.status, Data(response.body), response.headers)
    }

    @Test func aPhotoUploadedOverHTTPIsKeptByAPostAndServedBack() async throws {
        let device = Device("http")
        func newToken(_ arguments: [String]) async throws -> String {
            try await device.tessera(["token"] + arguments).stdout.split(separator: "\n").last.map(String.init) ?? ""
        }
        let token = try await newToken(["create", "--role", "user", "ada"]), admin = try await newToken(["create", "--role", "admin", "operator"])
        let (server, port) = try await Self.serve(device.workspace)
        try await withCleanup({ await server.terminateAndWait() }) {
            let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!

            let (created, childBody, _) = try await Self.http("POST", port, "/v1/plugins/cz.tessera.baby/ops/child-create", token: token,
                                                               body: Data(#"{"name": "Ema", "birthDate": "2025-06-15"}"#.utf8))
            #expect(created == 200)
            let child = try #require(try JSONValue(parsing: String(decoding: childBody, as: UTF8.self))["id"]?.stringValue)
            let (uploaded, uploadBody, _) = try await Self.http("POST", port, "/v1/plugins/cz.tessera.baby/ops/photo-upload", token: token,
                                                                 body: png, contentType: "image/png")
            #expect(uploaded == 200)
            let address = try #require(try JSONValue(parsing: String(decoding: uploadBody, as: UTF8.self))["address"]?.stringValue)
            // Text is not a photo: refused before the module sees it.
            let (refused, _, _) = try await Self.http("POST", port, "/v1/plugins/cz.tessera.baby/ops/photo-upload", token: token,
                                                      body: Data("hello".utf8), contentType: "application/octet-stream")
            #expect(refused == 415)

            let post = #"{"childId": "\#(child)", "text": "U babičky", "date": "2026-02-28", "photos": ["\#(address)"]}"#
            let (posted, _, _) = try await Self.http("POST", port, "/v1/plugins/cz.tessera.baby/ops/post-add", token: token, body: Data(post.utf8))
            #expect(posted == 200)
            let (got, bytes, headers) = try await Self.http("GET", port, "/v1/plugins/cz.tessera.baby/ops/photo-get?address=\(address)", token: token)
            #expect(got == 200)
            #expect(bytes == png)
            #expect(headers["content-type"] == "image/png")
            // Days later the host's collector has run: the post still holds its photo.
            let (advanced, _, _) = try await Self.http("POST", port, "/v1/clock/advance", token: admin, body: Data(#"{"by": "3d"}"#.utf8))
            #expect(advanced == 200)
            let (kept, again, _) = try await Self.http("GET", port, "/v1/plugins/cz.tessera.baby/ops/photo-get?address=\(address)", token: token)
            #expect(kept == 200 && again == png)
        }
    }

    @Test func aVaccinationReminderFiresAtItsVirtualMinuteAndBadInputWritesNothing() async throws {
        let device = Device("alone")
        let child = try await device.call("child-create", #"{"name": "Ema", "birthDate": "2025-06-15", "weightKg": 8.2}"#)
        let id = try #require(child["id"]?.stringValue)
        #expect(child["age"]?["months"] == 8)

        // Bad input: each refused with its field named (exit 2) or the child unknown (exit 3).
        let future = try await device.tessera(["call", "cz.tessera.baby", "child-create", #"{"name": "Jan", "birthDate": "2027-01-01"}"#], expecting: 2)
        #expect(future.stderr.contains("birthDate") && future.stderr.contains("in the future"))
        let tooTall = try await device.tessera(["call", "cz.tessera.baby", "measurement-add",
                                                #"{"childId": "\#(id)", "kind": "height", "value": 510, "date": "2026-03-01"}"#], expecting: 2)
        #expect(tooTall.stderr.contains("$.value") && tooTall.stderr.contains("at most 220"))
        let cold = try await device.tessera(["call", "cz.tessera.baby", "temperature-add",
                                             #"{"childId": "\#(id)", "celsius": 29.5, "at": "2026-03-01T20:00"}"#], expecting: 2)
        #expect(cold.stderr.contains("celsius"))
        let nobody = try await device.tessera(["call", "cz.tessera.baby", "temperature-add",
                                               #"{"childId": "nobody", "celsius": 38.5, "at": "2026-03-01T20:00"}"#], expecting: 3)
        #expect(nobody.stderr.contains("unknown_child"))
        #expect(try await device.call("children-list")["children"]?.arrayValue?.count == 1)
        #expect(try await device.call("timeline")["items"]?.arrayValue?.count == 1, "only the initial weight")

        // A reminder at 2026-03-04 07:30 Prague (06:30Z): not a minute early, then exactly once.
        _ = try await device.call("vaccination-add", #"{"childId": "\#(id)", "name": "MMR", "date": "2026-03-04", "remindAt": "2026-03-04T07:30"}"#)
        try await device.tessera(["clock", "advance", "46h29m"])
        #expect(try await device.notifications().isEmpty)
        try await device.tessera(["clock", "advance", "1m"])
        let delivered = try await device.notifications()
        #expect(delivered.map { $0["title"] } == ["Očkování (Ema): MMR"])
        #expect(delivered.first?["dueAt"]?.stringValue?.hasPrefix("2026-03-04T06:30:00") == true)
        try await device.tessera(["clock", "advance", "1d"])
        #expect(try await device.notifications().count == 1)
    }
}
