import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// Fuzzing: schemathesis (PyPI) reads `/openapi.json` of the real `tessera serve` with the example
/// plugin and sends what the document allows and what it does not, with the admin token, running
/// every check it has (no 5xx, status codes, content types, headers and bodies as documented, bad
/// input refused, good input accepted, 405 for undeclared methods, 401 without the token).
///
/// Bounded so it fits in CI: at most `maxExamples` inputs per operation, with a fixed seed, so a
/// run is the same run on any machine and a failure is reproducible with the command it prints.
/// (No `--max-time`: that budget makes the fuzzing phase repeat until it is spent, so a loaded
/// machine ran other cases than a quiet one.) `/v1/stream` is
/// left out: it never ends, and a fuzzer waits for a response's end (StreamTests cover it). So is
/// `/v1/plugins/{id}/swap`: fuzzing it asks the host to load arbitrary files of its machine as
/// plugin code (SwapRouteTests, HotSwapTests and ServeTests cover it).
@Suite struct SchemathesisTests {
    static let maxExamples = 10

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog, .needs("python:schemathesis")) func theAPIHoldsToItsOpenAPIDocumentUnderFuzzing() async throws {
        let ws = FixtureWorkspace("http-fuzz")
        ws.addExampleManifest()
        let grants: [String: Any] = ["storage": [:] as [String: Any], "clock": [:] as [String: Any], "notifications": [:] as [String: Any]]
        ws.writeDeployment(plugins: [["id": "dev.tessera.example", "grants": grants]])
        // No rate limit: thousands of requests in a minute are the point here.
        let serve = try await ServeProcess.start(ws, extraArguments: ["--rate-limit", "0"])
        defer { serve.process.terminate() }
        let token = try #require(serve.adminToken)
        let arguments = [
            "python3", "-m", "schemathesis.cli", "run", "http://127.0.0.1:\(serve.port)/openapi.json",
            "--header", "Authorization: Bearer \(token)", "--checks", "all",
            "--max-examples", String(Self.maxExamples),
            // `--checks all` adds a response-time limit (10 s by default). It is a watchdog here,
            // not a measurement: advancing the virtual clock by 79 days fires a daily job 79
            // times, each a durable (fsynced) write, and that took 0.9 s on an idle machine and
            // 18.9 s in a CI run that shared 2 cores and a disk with the rest of the suite.
            "--seed", "1", "--request-timeout", "120", "--max-response-time", "120", "--exclude-path", "/v1/stream", "--exclude-path", "/v1/plugins/{id}/swap", "--no-color",
        ]
        // In the workspace: schemathesis keeps a cache (.schemathesis/) in its working directory.
        let root = ws.root
        let result = try await onThread { try run("/usr/bin/env", arguments, directory: root) }
        #expect(result.status == 0, "schemathesis found problems:\n\(SchemathesisModulesTests.failures(result.stdout))\(result.stderr.suffix(2000))")
        #expect(!result.stdout.contains("FAILURES") && result.stdout.contains("Fuzzing"), "\(result.stdout.suffix(3000))")
        _ = try await serve.terminate()
    }
}
