import Foundation
import Testing
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// The capabilities added to the process tier's boundary (docs/isolation.md, "What crosses the
/// boundary"): files, the HTTP client, the location feed and its handler, and sync — each answered
/// in the host by the object the provider built, with the grant's checks there.
@Suite(.hangWatchdog) struct ProcessCapabilitiesTests {
    /// `fixture.isolated` in the process tier, granted storage, files, http (loopback only),
    /// location and sync (the table `shared`, no hub: the spaces calls answer the host's own refusal).
    func host(_ name: String) async throws -> PluginHost {
        let ws = FixtureWorkspace(name)
        let anyOp: [String: Any] = ["type": "object"]
        ws.addManifest(id: "fixture.isolated", library: try await PluginBuilder.library(.isolated)) { m in
            m["requires"] = ["storage", "files", "http", "location", "sync"].map { ["capability": $0, "version": "^1.0"] }
            m["permissions"] = ["http": ["hosts": ["127.0.0.1"]], "files": ["mediaTypes": ["image/png", "application/octet-stream"], "quotaMB": 50, "maxFileMB": 4]]
            m["sync"] = ["tables": ["shared": [:] as [String: Any]]]
            m["operations"] = ["pid", "notes", "put-file", "get-file", "fetch", "latest-fix", "sync-calls"].map { ["name": $0, "input": anyOp, "output": [:] as [String: Any]] }
        }
        let grants: [String: Any] = ["storage": [:] as [String: Any], "files": [:] as [String: Any],
                                     "http": [:] as [String: Any], "location": [:] as [String: Any], "sync": [:] as [String: Any]]
        ws.writeDeployment(plugins: [entry("fixture.isolated", grants: grants, extra: ["isolation": "process"])])
        let host = try PluginHost(deployment: DeploymentReader.read(file: ws.deploymentFile), options: HostOptions(dataDirectory: ws.dataDirectory))
        await host.start()
        #expect(host.status(of: "fixture.isolated")?.state == .active, "\(host.status(of: "fixture.isolated")?.history ?? [])")
        #expect(try #require(host.isolatedProcessID("fixture.isolated")) != getpid())
        return host
    }

    @Test func aProcessTierPluginStoresLinksAndReadsAFileThroughTheHost() async throws {
        let host = try await host("isolation-files")
        try await withCleanup({ await host.stop() }) {
            let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!
            let stored = try await host.call("fixture.isolated", "put-file", input: ["base64": .string(png.base64EncodedString()), "mediaType": "image/png",
                                                                                     "linkTo": "photo-1"], as: user)
            let address = try #require(stored["address"]?.stringValue)
            #expect(stored["size"] == .integer(Int64(png.count)))
            #expect(stored["mediaType"] == "image/png")
            let read = try await host.call("fixture.isolated", "get-file", input: ["address": .string(address)], as: user)
            #expect(read["base64"] == .string(png.base64EncodedString()))
            #expect(read["links"] == ["notes/photo-1"])
            let part = try await host.call("fixture.isolated", "get-file", input: ["address": .string(address), "from": 1, "to": 4], as: user)
            #expect(part["base64"] == .string(png[1..<4].base64EncodedString()))

            // 3 MiB in 192 chunks on one open writer (each a round trip), then read back whole.
            let chunk = Data((0..<16384).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let big = try await host.call("fixture.isolated", "put-file", input: ["base64": .string(chunk.base64EncodedString()), "repeat": 192], as: user)
            #expect(big["size"] == .integer(16384 * 192))
            let bigRead = try await host.call("fixture.isolated", "get-file", input: ["address": big["address"] ?? .null], as: user)
            #expect(bigRead["count"] == .integer(16384 * 192))

            // The grant's limit is checked in the host: 4 MiB per file.
            let tooBig = await callError(host, "fixture.isolated", "put-file", ["base64": .string(chunk.base64EncodedString()), "repeat": 320])
            #expect(tooBig?.code == .payloadTooLarge, "\(String(describing: tooBig))")
            // An address this plugin has no file at: the host's own refusal, carried across.
            let missing = await callError(host, "fixture.isolated", "get-file", ["address": .string(String(repeating: "ab", count: 32))])
            #expect(missing?.code == .notFound, "\(String(describing: missing))")
            await host.stop()
        }
    }

    @Test func aProcessTierPluginSendsHTTPThroughTheHostsClientWithTheGrantChecked() async throws {
        let server = try LoopbackHTTPServer(.status(200))
        let host = try await host("isolation-http")
        try await withCleanup({ await host.stop() }) {
            let answer = try await host.call("fixture.isolated", "fetch", input: ["url": .string("http://127.0.0.1:\(server.port)/hello")], as: user)
            #expect(answer["status"] == 200)
            #expect(answer["hosts"] == ["127.0.0.1"])
            let request = try #require(server.requests.first)
            #expect(request.method == "POST" && request.path == "/hello" && request.body == "ping")
            #expect(request.headers.first { $0.key.lowercased() == "x-fixture" }?.value == "isolated")
            // A host the grant does not name: refused by the host's client, before any connection.
            let refused = await callError(host, "fixture.isolated", "fetch", ["url": .string("http://localhost:\(server.port)/")])
            #expect(refused?.code == .notGranted, "\(String(describing: refused))")
            #expect(server.requests.count == 1)
            await host.stop()
        }
    }

    @Test func locationFixesReachTheHandlerInTheChildAndTheFeedAnswersTheLatest() async throws {
        let host = try await host("isolation-location")
        try await withCleanup({ await host.stop() }) {
            let at = host.clock.now()
            let report = await host.ingestLocation([
                LocationFix(latitude: 50.087, longitude: 14.4208, battery: 81, timestamp: at.addingTimeInterval(-60), deviceID: "phone"),
                LocationFix(latitude: 50.088, longitude: 14.4222, battery: 80, timestamp: at.addingTimeInterval(-30), deviceID: "phone"),
            ])
            #expect(report.accepted == 2, "\(report)")
            await host.settle()
            let notes = try await host.call("fixture.isolated", "notes", input: [:], as: user)
            let fixes = (notes.arrayValue ?? []).filter { $0["id"]?.stringValue?.hasPrefix("fix:phone:") == true }.compactMap { $0["text"]?.stringValue }
            #expect(fixes.sorted() == ["50.087,14.4208", "50.088,14.4222"], "\(notes)")
            let latest = try await host.call("fixture.isolated", "latest-fix", input: ["device": "phone"], as: user)
            #expect(latest["latitude"] == .number(50.088) && latest["battery"] == 80, "\(latest)")
            #expect(try await host.call("fixture.isolated", "latest-fix", input: ["device": "watch"], as: user) == .null)
            await host.stop()
        }
    }

    @Test func syncCallsCrossTheBoundaryAndAreAnsweredByTheHostsSyncCapability() async throws {
        let host = try await host("isolation-sync")
        try await withCleanup({ await host.stop() }) {
            let answer = try await host.call("fixture.isolated", "sync-calls", input: [:], as: user)
            #expect(answer["conflicts"] == 0, "\(answer)")
            // No hub is configured: the host's spaces answer with their own error code, as in-process.
            #expect(answer["spaces"] != nil || answer["spacesError"]?.stringValue?.isEmpty == false, "\(answer)")
            await host.stop()
        }
    }
}
