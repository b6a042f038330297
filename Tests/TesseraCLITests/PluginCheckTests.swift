import Foundation
import Testing
import TesseraTestFixtures

/// `tessera plugins check` (issue 45): a plugin put through gate 1, a start, each operation with an
/// input made from its schema, a day of its timers on a virtual clock and a swap onto itself, in a
/// throwaway host, its code in the process tier.
@Suite(.hangWatchdog) struct PluginCheckTests {
    @Test func theExamplePluginPassesEveryStepAndEachIsNamed() async throws {
        let result = try await runDetached(Fixtures.tesseraExecutable, ["plugins", "check", Fixtures.exampleLibrary, "--manifest", Fixtures.exampleManifest])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        for line in ["ok: gate 1: sha256 ", "ok: start: active in the process tier, with clock, notifications, storage",
                     #"ok: operation add-note: answered (input {"text":"example"})"#,
                     #"ok: operation remind: answered (input {"in":"30m","text":"example"})"#,  // its "examples" value
                     "ok: timer reminder: fired at 2026-03-02T08:30:00Z and ran",  // the reminder remind scheduled, 30 min on
                     "ok: timer daily-summary: fired at 2026-03-03T08:00:00Z and ran",
                     "ok: hot swap: onto its own build: generation 2",
                     "dev.tessera.example: every check passed"] {
            #expect(result.stdout.contains(line), "\(line)\n\(result.stdout)")
        }
    }

    /// The same check passes the C-ABI plugins, one in C and one in Rust (docs/c-abi.md).
    @Test(arguments: [("c-notes", "libTesseraCNotes.so"), ("rust-notes", "libtessera_rust_notes.so")])
    func theCABIPluginsPassEveryStep(_ manifest: String, _ library: String) async throws {
        let result = try await runDetached(Fixtures.tesseraExecutable, ["plugins", "check", Fixtures.buildDirectory + "/" + library,
                                                                        "--manifest", Fixtures.repositoryRoot + "/manifests/\(manifest).json"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        for line in ["ok: start: active in the process tier, with clock, notifications, storage",
                     #"ok: operation add-note: answered (input {"text":"example"})"#,
                     #"ok: operation remind: answered (input {"in":"30m","text":"example"})"#,
                     "ok: timer reminder: fired at 2026-03-02T08:30:00Z and ran",
                     "ok: hot swap: onto its own build: generation 2",
                     "dev.tessera.\(manifest): every check passed"] {
            #expect(result.stdout.contains(line), "\(line)\n\(result.stdout)")
        }
    }

    @Test func anOperationThatCrashesFailsTheCheckAndTheOtherStepsStillRun() async throws {
        let ws = FixtureWorkspace("plugin-check-crash")
        let object: [String: Any] = ["type": "object"]
        let manifest = ws.addManifest(id: "fixture.isolated", library: try await PluginBuilder.library(.isolated)) { m in
            m["operations"] = [
                ["name": "echo", "input": object, "output": object],
                ["name": "crash", "input": ["type": "object", "required": ["kind"], "properties": ["kind": ["enum": ["segfault"]]]] as [String: Any],
                 "output": object],
                ["name": "echo-with-code", "input": ["type": "object", "required": ["code"], "properties": ["code": ["type": "string", "pattern": "^[A-Z]{3}$"]]] as [String: Any],
                 "output": object],
            ]
        }
        let result = try await runDetached(Fixtures.tesseraExecutable, ["plugins", "check", try await PluginBuilder.library(.isolated), "--manifest", manifest])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("ok: operation echo: answered"), "\(result.stdout)")
        #expect(result.stdout.contains(#"FAILED: operation crash: plugin_crashed"#), "\(result.stdout)")
        #expect(result.stdout.contains(#"note: operation echo-with-code: not called: no input can be made from its schema; give its patterned fields an "examples" value"#))
        #expect(result.stdout.contains(#"note: hot swap: not tried: the manifest says "hotSwap": false"#), "the steps after a failure still run: \(result.stdout)")
        #expect(result.stdout.contains("fixture.isolated: 1 of "), "\(result.stdout)")
    }
}
