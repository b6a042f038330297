import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// `tessera plugins verify` runs no plugin code in its own process: without `--load` only gate 1
/// (the ELF read from the file); with `--load`, gates 2 and 3 in a throwaway child. The fixture's
/// C constructor writes the id of the process that loads it.
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
        let writers = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").compactMap { Int32($0) }
        // Exactly one process ran the constructor: the child that reported the handshake, not the command.
        #expect(writers.count == 1)
        #expect(writers.first.map(Int64.init) == answer?["childPID"]?.integerValue)
        #expect(writers.first != loaded.pid)
    }
}
