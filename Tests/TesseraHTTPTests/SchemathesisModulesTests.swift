import Foundation
import Testing
import TesseraSDK
import TesseraSTAGEmulator
import TesseraTestFixtures

/// Issue 24: every request the published schema allows is accepted, or refused by a rule the
/// schema states. schemathesis (PyPI) generates valid inputs from `/openapi.json` of the real
/// `tessera serve` with every shipped module (example, finance, stress, STAG against its emulator),
/// and checks each answer: no 5xx, statuses, content types, headers and bodies as documented, and
/// above all `positive_data_acceptance` — valid data never gets 400 or 422. The stream and the
/// swap route are in: the stream is read a few messages at a time, and a swap of an arbitrary path
/// finds no file (the loader's gates would refuse anything that is not a Tessera plugin before
/// loading it).
///
/// The server keeps its default rate limits: a fuzzer's pace must fit in them.
///
/// Then a user token fuzzes the admin-only routes (swap, clock): no answer is a success, and the
/// clock and every plugin's generation are as the admin run left them.
///
/// Bounded for 2 cores: `maxExamples` per operation, fixed seed, no stateful phase.
@Suite(.serialized) struct SchemathesisModulesTests {
    static let maxExamples = 4
    static let seed = "24"

    /// Operations this run leaves out, each for a reason still open (issue 24's closing note):
    /// the plugin refuses input its schema allows by a rule the schema cannot yet state (a
    /// category name in any script's letters, an IANA time zone or a confirmation that depends on
    /// the saved settings, a CSV header, a whole content pack, a recurring transaction's `until`
    /// not before its `start`), it needs a service this run has no emulator for (Fio), or a wide
    /// date range takes longer than the request timeout (finance overview and chart).
    ///
    /// In since the first run: amounts, months, STAG's ticket, base URL and note, whose patterns
    /// refuse in the words of their descriptions; a category or account that does not exist
    /// (404), and a credential the university refuses (403).
    static let leftOut = [
        "/v1/plugins/cz.tessera.finance/ops/category-add", "/v1/plugins/cz.tessera.finance/ops/recurring-add",
        "/v1/plugins/cz.tessera.finance/ops/settings-set", "/v1/plugins/cz.tessera.finance/ops/import-csv",
        "/v1/plugins/cz.tessera.finance/ops/fio-import", "/v1/plugins/cz.tessera.finance/ops/chart-svg",
        "/v1/plugins/cz.tessera.finance/ops/overview", "/v1/plugins/cz.tessera.stress/ops/content-publish",
    ]

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func everyModuleAcceptsWhatItsSchemaAllowsAndAUserCannotSwapOrMoveTheClock() async throws {
        let probe = try await onThread { try run("/usr/bin/env", ["python3", "-c", "import schemathesis"]) }
        guard probe.status == 0 else {
            Issue.record(Comment(rawValue: SchemathesisTests.installHint))
            return
        }
        let emulator = try await STAGEmulator.start()
        let ws = FixtureWorkspace("http-fuzz-modules")
        Self.writeDeployment(ws, stag: emulator.origin)
        // Reading the stream: a few messages, or a second of silence, then the next request.
        Fixtures.write("""
            [[operations]]
            include-path = "/v1/stream"
            request-timeout = 1
            max-stream-events = 3

            # A swap of a real build that is another plugin's, or not a plugin, is refused by the
            # loader's gates (422): a refusal of the build, which no schema of the request can state.
            [[operations]]
            include-path = "/v1/plugins/{id}/swap"
            checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "422", "429"]
            """, to: ws.root + "/schemathesis.toml")
        let serve = try await ServeProcess.start(ws)
        defer { serve.process.terminate() }
        let admin = try #require(serve.adminToken)
        let user = try Self.userToken(ws)

        let positive = try await Self.schemathesis(ws, port: serve.port, token: admin, [
            // Not `--checks all`: that adds a 10 s response-time limit, a measurement on a shared machine.
            "--mode", "positive", "--checks",
            "not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,positive_data_acceptance",
            "--phases", "examples,coverage,fuzzing",
        ] + Self.leftOut.flatMap { ["--exclude-path", $0] })
        #expect(positive.status == 0, "schemathesis found problems:\n\(positive.stdout.suffix(8000))\(positive.stderr.suffix(2000))")
        // Warnings (operations that answered 404 for want of data) are not failures.
        #expect(!positive.stdout.contains("FAILURES") && positive.stdout.contains("Coverage"), "\(positive.stdout.suffix(3000))")

        let before = try await Self.operatorState(port: serve.port, token: admin)
        let har = ws.root + "/user.har"
        let asUser = try await Self.schemathesis(ws, port: serve.port, token: user, [
            "--include-path", "/v1/plugins/{id}/swap", "--include-path", "/v1/clock/advance", "--mode", "all",
            "--checks", "not_a_server_error", "--report", "har", "--report-har-path", har,
        ])
        #expect(asUser.status == 0, "\(asUser.stdout.suffix(4000))\(asUser.stderr.suffix(1000))")
        let statuses = try Self.statuses(inHAR: har)
        #expect(!statuses.isEmpty)
        // 401/403 for the token, 405 for a method the route does not have: never a success.
        #expect(statuses.allSatisfy { !(200..<300).contains($0) }, "a user token got \(Set(statuses).sorted()) from the admin routes")
        #expect(statuses.contains(403))
        #expect(try await Self.operatorState(port: serve.port, token: admin) == before)
        _ = try await serve.terminate()
        await emulator.stop()
    }

    /// Every shipped module on a virtual clock, STAG's server redirected to the emulator, with the
    /// repository's manifests and the built libraries.
    static func writeDeployment(_ ws: FixtureWorkspace, stag: String) {
        let basic: [String: Any] = ["storage": [:] as [String: Any], "clock": [:] as [String: Any], "notifications": [:] as [String: Any]]
        var finance = basic, stagGrants = basic
        finance["http"] = [:] as [String: Any]
        finance["secrets"] = [:] as [String: Any]
        stagGrants["http"] = ["hosts": ["stag-demo.zcu.cz"]]
        stagGrants["secrets"] = [:] as [String: Any]
        stagGrants["events"] = [:] as [String: Any]
        ws.writeDeployment(plugins: [
            ["id": "dev.tessera.example", "grants": basic], ["id": "cz.tessera.finance", "grants": finance],
            ["id": "cz.tessera.stress", "grants": basic], ["id": "cz.tessera.stag", "grants": stagGrants],
        ], extra: [
            "manifestDirectories": [Fixtures.repositoryRoot + "/manifests"],
            "providers": ["storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": "2026-03-02T08:00:00Z"],
                          "http": ["redirects": ["https://stag-demo.zcu.cz": stag]]],
        ])
    }

    /// A user token for the workspace, made as an operator would (`tessera token create`); the
    /// running server reads the token file again when it changes.
    static func userToken(_ ws: FixtureWorkspace) throws -> String {
        let created = try run(Fixtures.tesseraExecutable, ["token", "create", "--role", "user", "fuzzer",
                                                            "--deployment", ws.deploymentFile, "--data", ws.dataDirectory])
        guard created.status == 0 else { throw RawHTTPClient.Failure(description: "token create: \(created.stderr)") }
        return created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func schemathesis(_ ws: FixtureWorkspace, port: Int, token: String, _ extra: [String]) async throws -> ProcessResult {
        let arguments = [
            "python3", "-m", "schemathesis.cli", "run", "http://127.0.0.1:\(port)/openapi.json",
            "--header", "Authorization: Bearer \(token)", "--max-examples", String(maxExamples), "--seed", seed,
            "--request-timeout", "20", "--no-color", "--workers", "1",
        ] + extra
        // In the workspace: schemathesis reads schemathesis.toml and keeps its cache there.
        let root = ws.root
        return try await onThread { try run("/usr/bin/env", arguments, directory: root) }
    }

    /// What only an admin may change: the host's time and each plugin's generation.
    static func operatorState(port: Int, token: String) async throws -> [String] {
        let clock = try await RawHTTPClient.request(port: port, "GET", "/v1/clock", headers: [("Authorization", "Bearer \(token)")])
        let plugins = try await RawHTTPClient.request(port: port, "GET", "/v1/plugins", headers: [("Authorization", "Bearer \(token)")])
        let generations = (plugins.json?["plugins"]?.arrayValue ?? []).map {
            "\($0["id"]?.stringValue ?? "?") \($0["generation"]?.integerValue ?? -1) \($0["state"]?.stringValue ?? "?")"
        }
        return [clock.json?["now"]?.stringValue ?? "?"] + generations.sorted()
    }

    /// The status of every response a HAR file recorded.
    static func statuses(inHAR path: String) throws -> [Int] {
        let har = try JSONValue(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        return (har["log"]?["entries"]?.arrayValue ?? []).compactMap { $0["response"]?["status"]?.integerValue.map(Int.init) }
    }
}
