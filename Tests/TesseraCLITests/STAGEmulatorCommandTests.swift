import Foundation
import Testing
import TesseraTestFixtures

/// The `stag-emulator` executable's command line, run as a person would.
@Suite struct STAGEmulatorCommandTests {
    var executable: String { Fixtures.buildDirectory + "/stag-emulator" }

    @Test func helpPrintsUsageAndExits() async throws {
        let help = try await runDetached(executable, ["--help"])
        #expect(help.status == 0, "\(help.stderr)")
        #expect(help.stdout.hasPrefix("usage: stag-emulator [--port N]"))
        #expect(help.stdout.contains("/_emulator/"))
    }

    @Test func anUnknownArgumentIsAUsageError() async throws {
        let wrong = try await runDetached(executable, ["--prot", "9410"])
        #expect(wrong.status == 64)
        #expect(wrong.stderr.hasPrefix("stag-emulator: unknown argument '--prot'"))
        #expect(wrong.stdout.isEmpty)
    }
}
