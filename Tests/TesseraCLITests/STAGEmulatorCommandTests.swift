import Foundation
import Testing
import TesseraTestFixtures

/// The `stag-emulator` executable's command line, run as a person would.
@Suite struct STAGEmulatorCommandTests {
    var executable: String { Fixtures.buildDirectory + "/stag-emulator" }

    @Test func helpPrintsUsageAndExits() throws {
        let help = try run(executable, ["--help"])
        #expect(help.status == 0, "\(help.stderr)")
        #expect(help.stdout.hasPrefix("usage: stag-emulator [--port N]"))
        #expect(help.stdout.contains("/_emulator/"))
    }

    @Test func anUnknownArgumentIsAUsageError() throws {
        let wrong = try run(executable, ["--prot", "9410"])
        #expect(wrong.status == 64)
        #expect(wrong.stderr.hasPrefix("stag-emulator: unknown argument '--prot'"))
        #expect(wrong.stdout.isEmpty)
    }
}
