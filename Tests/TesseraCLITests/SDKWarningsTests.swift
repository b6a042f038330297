import Foundation
import Testing
import TesseraTestFixtures

/// The SDK target builds with `-suppress-warnings` (sdk/Package.swift), so that a plugin's first
/// build shows only its author's warnings. That must not hide a warning of the SDK's own: built with
/// `TESSERA_SDK_WARNINGS=1`, the only warning is the one that made the flag necessary — Foundation
/// not compiled with library evolution — however many times it is said.
@Suite struct SDKWarningsTests {
    @Test(.hangWatchdog) func theSDKsOnlyWarningIsFoundationsLibraryEvolution() async throws {
        let scratch = Fixtures.temporaryDirectory("sdk-warnings")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let built = try await runDetached("/usr/bin/env", [
            "TESSERA_SDK_WARNINGS=1", "swift", "build", "--package-path", Fixtures.repositoryRoot + "/sdk", "--scratch-path", scratch,
        ])
        #expect(built.status == 0, "\(built.stdout.suffix(3000))\n\(built.stderr.suffix(3000))")
        let warnings = (built.stdout + built.stderr).split(separator: "\n").filter { $0.contains("warning:") }
        let others = warnings.filter { !$0.contains("was not compiled with library evolution support") }
        #expect(!warnings.isEmpty, "with TESSERA_SDK_WARNINGS=1 the compiler's warnings are shown")
        #expect(others.isEmpty, "\(others.prefix(10).joined(separator: "\n"))")
        print("the SDK built with its warnings on: \(warnings.count) warnings, \(others.count) other than Foundation's library evolution")
    }
}
