import Foundation
import Testing
import TesseraFioEmulator
import TesseraSDK
import TesseraSTAGEmulator
import TesseraTestFixtures

/// Issue 24: every request the published schema allows is accepted, or refused by a rule the
/// schema states. schemathesis (PyPI) generates valid inputs from `/openapi.json` of the real
/// `tessera serve` with every shipped module (example, finance against the Fio emulator, stress,
/// the baby diary, safe travel, STAG against its emulator), and checks each answer: no 5xx,
/// statuses, content types, headers and bodies as documented, and above all
/// `positive_data_acceptance` — valid data never gets 400 or 422. Where a rule is worded in a
/// field's description because the schema cannot express it (across fields, on the host's state
/// or clock), Tessera's own check judges that operation's refusals: they name one of those fields
/// (``SchemathesisStatedRules``). Every operation of every module is in, none left out. The stream
/// and the swap route are in: the stream is read a few messages at a time, and a swap of an
/// arbitrary path finds no file (the loader's gates would refuse anything that is not a Tessera
/// plugin before loading it).
///
/// The server keeps its default rate limits: a fuzzer's pace must fit in them.
///
/// Then a user token fuzzes the admin-only routes (swap, clock, the device's login at its hub):
/// no answer is a success, and the
/// clock and every plugin's generation are as the admin run left them.
///
/// Bounded for 2 cores: `maxExamples` per operation, fixed seed, no stateful phase.
@Suite(.serialized) struct SchemathesisModulesTests {
    static let maxExamples = 4
    static let seed = "24"

    /// The Fio token the emulator knows, set before the run: an import then reaches the bank.
    static let fioToken = String(repeating: "fuzz", count: 16)

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog, .needs("python:schemathesis")) func everyModuleAcceptsWhatItsSchemaAllowsAndAUserCannotSwapOrMoveTheClock() async throws {
        let emulator = try await STAGEmulator.start()
        let fio = try await FioEmulator.start(now: try Date("2026-03-02T08:00:00Z", strategy: .iso8601))
        fio.addAccount(token: Self.fioToken, movements: [.init(id: 24_000_000_001, date: "2026-03-01", amount: -12.5, counterparty: "Bakery")])
        let ws = FixtureWorkspace("http-fuzz-modules")
        Self.writeDeployment(ws, stag: emulator.origin, fio: "http://127.0.0.1:\(fio.port)")
        let environment = try SchemathesisStatedRules.install(in: ws)
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

            # A photo's bytes that are no image the manifest declares (415): a rule on the content,
            # which the generator cannot make; the shape of the request is the schema's.
            [[operations]]
            include-path = "/v1/plugins/cz.tessera.baby/ops/photo-put"
            checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "415", "429"]

            [[operations]]
            include-path = "/v1/plugins/cz.tessera.baby/ops/photo-upload"
            checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "415", "429"]

            [[operations]]
            include-path = "/v1/plugins/cz.tessera.safetravel/ops/trip-photo"
            checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "415", "429"]

            [[operations]]
            include-path = "/v1/plugins/cz.tessera.safetravel/ops/trip-photo-put"
            checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "415", "429"]

            \(SchemathesisStatedRules.configuration)
            """, to: ws.root + "/schemathesis.toml")
        let serve = try await ServeProcess.start(ws)
        defer { serve.process.terminate() }
        let admin = try #require(serve.adminToken)
        let user = try await Self.userToken(ws)
        let token = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/plugins/cz.tessera.finance/ops/fio-token-set",
                                                    headers: [("Authorization", "Bearer \(admin)"), ("Content-Type", "application/json")],
                                                    body: Array(#"{"token": "\#(Self.fioToken)"}"#.utf8))
        #expect(token.status == 200, "\(token.text)")

        let positive = try await Self.schemathesis(ws, port: serve.port, token: admin, environment: environment, [
            // Not `--checks all`: that adds a 10 s response-time limit, a measurement on a shared machine.
            "--mode", "positive", "--checks",
            "not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,positive_data_acceptance,"
                + SchemathesisStatedRules.checkName,
            "--phases", "examples,coverage,fuzzing",
        ])
        // The run's summary: operations tested, cases generated, time.
        print("schemathesis SUMMARY" + (positive.stdout.components(separatedBy: "SUMMARY").last ?? ""))
        // Every operation the document lists was selected and tested: none is left out.
        let selected = positive.stdout.firstMatch(of: /Selected: (\d+)\/(\d+)/), tested = positive.stdout.firstMatch(of: /Tested: (\d+)/)
        #expect(selected != nil && selected?.1 == selected?.2 && tested?.1 == selected?.1, "\(positive.stdout.suffix(1500))")
        #expect(positive.status == 0, "schemathesis found problems:\n\(Self.failures(positive.stdout))\(positive.stderr.suffix(2000))")
        #expect(!fio.requests.isEmpty, "fio-import reached the bank (its emulator)")
        // Warnings (operations that answered 404 for want of data) are not failures.
        #expect(!positive.stdout.contains("FAILURES") && positive.stdout.contains("Coverage"), "\(positive.stdout.suffix(3000))")

        let before = try await Self.operatorState(port: serve.port, token: admin)
        let har = ws.root + "/user.har"
        let asUser = try await Self.schemathesis(ws, port: serve.port, token: user, [
            "--include-path", "/v1/plugins/{id}/swap", "--include-path", "/v1/clock/advance",
            "--include-path", "/v1/sync/register", "--include-path", "/v1/sync/login", "--include-path", "/v1/sync/logout",
            "--include-path", "/v1/sync/me", "--mode", "all",
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
        await fio.stop()
    }

    /// Every shipped module on a virtual clock, STAG's server and Fio's redirected to their
    /// emulators, with the repository's manifests and the built libraries. There is no hub, so no
    /// module is granted sync: the baby diary's sharing and safe travel's guardians answer 403
    /// `not_granted`. Safe travel hashes PINs with fewer rounds, as its own tests do (a debug
    /// build's 210,000 would hold each PIN call for seconds on a shared machine), and starts a trip
    /// without guardians, so that the trip's operations are reached.
    /// The report's FAILURES section (each failing operation, its request and answer), with long
    /// generated values shortened so a failure shows whole in the test's message.
    static func failures(_ stdout: String) -> String {
        let section = stdout.components(separatedBy: "FAILURES").dropFirst().first?.components(separatedBy: "WARNINGS").first ?? stdout.suffix(4000).description
        return section.replacing(/(.)\1{40,}/) { "\($0.1)…(\($0.0.count)×)" }
    }

    static func writeDeployment(_ ws: FixtureWorkspace, stag: String, fio: String) {
        let basic: [String: Any] = ["storage": [:] as [String: Any], "clock": [:] as [String: Any], "notifications": [:] as [String: Any]]
        var finance = basic, stagGrants = basic
        finance["http"] = [:] as [String: Any]
        finance["secrets"] = [:] as [String: Any]
        stagGrants["http"] = ["hosts": ["stag-demo.zcu.cz"]]
        stagGrants["secrets"] = [:] as [String: Any]
        stagGrants["events"] = [:] as [String: Any]
        var baby = basic, travel = basic
        baby["files"] = [:] as [String: Any]
        travel["notifications"] = ["spaces": true]
        travel["location"] = [:] as [String: Any]
        travel["files"] = [:] as [String: Any]
        ws.writeDeployment(plugins: [
            ["id": "dev.tessera.example", "grants": basic], ["id": "cz.tessera.finance", "grants": finance],
            ["id": "cz.tessera.stress", "grants": basic], ["id": "cz.tessera.stag", "grants": stagGrants],
            ["id": "cz.tessera.baby", "grants": baby],
            ["id": "cz.tessera.safetravel", "grants": travel, "config": ["pinIterations": 1000, "requireGuardians": false] as [String: Any]],
        ], extra: [
            "manifestDirectories": [Fixtures.repositoryRoot + "/manifests"],
            "providers": ["storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": "2026-03-02T08:00:00Z"],
                          "http": ["redirects": ["https://stag-demo.zcu.cz": stag, "https://fioapi.fio.cz": fio]]],
        ])
    }

    /// A user token for the workspace, made as an operator would (`tessera token create`); the
    /// running server reads the token file again when it changes.
    static func userToken(_ ws: FixtureWorkspace) async throws -> String {
        let created = try await runDetached(Fixtures.tesseraExecutable, ["token", "create", "--role", "user", "fuzzer",
                                                                          "--deployment", ws.deploymentFile, "--data", ws.dataDirectory])
        guard created.status == 0 else { throw RawHTTPClient.Failure(description: "token create: \(created.stderr)") }
        return created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func schemathesis(_ ws: FixtureWorkspace, port: Int, token: String, environment: [String: String]? = nil,
                             _ extra: [String]) async throws -> ProcessResult {
        let arguments = [
            "python3", "-m", "schemathesis.cli", "run", "http://127.0.0.1:\(port)/openapi.json",
            "--header", "Authorization: Bearer \(token)", "--max-examples", String(maxExamples), "--seed", seed,
            // A watchdog, not a measurement: an admin's clock advance by 99 days fires thousands of
            // timers, each a durable write, and a CI machine's shared disk can make that slow.
            "--request-timeout", "120", "--no-color", "--workers", "1",
        ] + extra
        // In the workspace: schemathesis reads schemathesis.toml and keeps its cache there.
        let root = ws.root
        return try await onThread { try run("/usr/bin/env", arguments, environment: environment, directory: root) }
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
