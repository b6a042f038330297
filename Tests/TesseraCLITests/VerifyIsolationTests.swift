import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// `tessera plugins verify` runs no plugin code in its own process: without `--load` only gate 1
/// (the ELF read from the file); with `--load`, gates 2 and 3 in a throwaway child, sandboxed as a
/// process-tier child is. The fixture's C constructor writes the id of the process that loads it
/// to a file, which the sandbox refuses.
@Suite(.hangWatchdog) struct VerifyIsolationTests {
    /// Runs `tessera` with the constructor's file set; its pid, status and stdout.
    func tessera(_ arguments: [String], constructorFile: String) async throws -> (pid: pid_t, status: Int32, stdout: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["TESSERA_FIXTURE_CONSTRUCTOR_FILE"] = constructorFile
        let process = try ChildProcess(Fixtures.tesseraExecutable, arguments, environment: environment,
                                       stdin: .null, stdout: .pipe, stderr: .inherit)
        let out = await process.output()
        return (process.processIdentifier, await process.exitStatus(), out)
    }

    @Test func plainVerifyRunsNoPluginCodeAndLoadRunsItInAChild() async throws {
        let library = try await PluginBuilder.library(.isolated)
        let dir = Fixtures.temporaryDirectory("verify-constructor")
        let file = dir + "/pids"

        let plain = try await tessera(["plugins", "verify", library], constructorFile: file)
        #expect(plain.status == 0)
        #expect(plain.stdout.contains("gate 1 ok"))
        #expect(!plain.stdout.contains("gate 2"))
        #expect(!FileManager.default.fileExists(atPath: file), "gate 1 alone ran the library's constructor")

        let loaded = try await tessera(["plugins", "verify", library, "--load", "--json"], constructorFile: file)
        #expect(loaded.status == 0, "\(loaded.stdout)")
        let answer = try JSONValue(parsing: loaded.stdout).arrayValue?.first
        #expect(answer?["pluginID"] == "fixture.isolated")
        // The child loaded the library (its constructor ran, and the handshake answered), in the
        // process tier's sandbox (issue 43): the constructor's write to a file outside the library
        // was refused, and the command's own process never loaded it.
        #expect(answer?["childPID"]?.integerValue.map(Int32.init) != loaded.pid)
        #expect(!FileManager.default.fileExists(atPath: file), "the verifying child wrote outside its sandbox")
    }
}
