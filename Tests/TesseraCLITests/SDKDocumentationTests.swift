import Foundation
import Testing
import TesseraTestFixtures

/// The SDK is public API: every public symbol is documented. `scripts/sdk-docs.sh` renders the DocC
/// reference with the toolchain's own `docc`, which warns about an undocumented parameter, a broken
/// symbol link or a missing return description; this test fails on any such warning.
@Suite struct SDKDocumentationTests {
    @Test(.hangWatchdog) func theSDKReferenceRendersWithoutWarnings() async throws {
        let output = Fixtures.temporaryDirectory("sdk-docs") + "/TesseraSDK.doccarchive"
        let result = try await runDetached("/bin/bash", [Fixtures.repositoryRoot + "/scripts/sdk-docs.sh", output])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let text = result.stdout + result.stderr
        let warnings = text.split(separator: "\n").filter { $0.contains("warning:") || $0.contains("error:") }
        #expect(warnings.isEmpty, "\(warnings.joined(separator: "\n"))")
        #expect(FileManager.default.fileExists(atPath: output + "/data/documentation/tesserasdk.json"))
        #expect(FileManager.default.fileExists(atPath: output + "/data/documentation/tesserasdk/plugincontext.json"))
    }
}
