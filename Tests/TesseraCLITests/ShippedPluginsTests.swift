import Foundation
import Testing
import TesseraTestFixtures

/// Every shipped plugin's real library passes the three gates (`tessera plugins verify --load`):
/// in-process tests skip the gates, so a library the host would refuse (say, one the link lint
/// mistakes for an SDK copy) is caught here.
@Suite struct ShippedPluginsTests {
    @Test(arguments: ["TesseraExample", "TesseraHello", "TesseraFinance", "TesseraSTAG", "TesseraStress", "TesseraBaby", "TesseraSafeTravel",
                     "TesseraCNotes", "tessera_rust_notes"])
    func theLibraryPassesEveryGate(_ name: String) async throws {
        let result = try await runDetached(Fixtures.tesseraExecutable, ["plugins", "verify", Fixtures.buildDirectory + "/lib\(name).so", "--load"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }
}
