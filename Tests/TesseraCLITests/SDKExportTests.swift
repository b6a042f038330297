import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// `tessera sdk export`: the SDK on its own, as a git repository tagged with its version, so that a
/// plugin builds without this repository's sources and names the SDK by URL and version. (SwiftPM
/// takes a package named by version whose targets use unsafe flags, which the SDK's library
/// evolution needs, only when its manifest says tools 6.2 or later; before, it refused it.)
@Suite struct SDKExportTests {
    // Builds the SDK again in the plugin's own .build. The time limit is a watchdog against a
    // hang, not a measurement.
    @Test(.hangWatchdog) func aPluginBuildsOnTheExportedSDKWithoutThisRepositoryAndPassesTheGates() async throws {
        let root = Fixtures.temporaryDirectory("sdk-export")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let export = root + "/tessera-sdk"
        let exported = try await runDetached(Fixtures.tesseraExecutable, ["sdk", "export", export])
        try #require(exported.status == 0, "\(exported.stdout)\n\(exported.stderr)")
        #expect(exported.stdout.contains("a git repository tagged 1.10.0"), "\(exported.stdout)")
        let dependency = #".package(url: "file://\#(export)", from: "1.10.0")"#
        #expect(exported.stdout.contains(dependency), "\(exported.stdout)")
        #expect(exported.stdout.contains(#"package: "tessera-sdk""#), "\(exported.stdout)")
        // The package, the C headers and the pinned toolchain; not the SDK's tests.
        for file in ["Package.swift", "Sources/TesseraSDK/Plugin.swift", "Sources/CTesseraABI/include/tessera_abi.h",
                     "Sources/TesseraPluginStamp/include/tessera_plugin_stamp.h", "README.md", ".git"] {
            #expect(FileManager.default.fileExists(atPath: export + "/" + file), "\(file)")
        }
        #expect(!FileManager.default.fileExists(atPath: export + "/Tests"))
        #expect(try String(contentsOfFile: export + "/.swift-version", encoding: .utf8) == "6.3.1\n")
        // A folder that holds something is refused.
        let again = try await runDetached(Fixtures.tesseraExecutable, ["sdk", "export", export])
        #expect(again.status != 0 && again.stderr.contains("already exists and is not an empty folder"), "\(again.stderr)")

        // A plugin on it, built without this repository.
        let created = try await runDetached(Fixtures.tesseraExecutable, ["new-plugin", "Notes", "--dir", root, "--sdk", export])
        try #require(created.status == 0, "\(created.stderr)")
        let package = root + "/Notes"
        let packageSwift = try String(contentsOfFile: package + "/Package.swift", encoding: .utf8)
        #expect(packageSwift.contains(dependency), "\(packageSwift)")
        #expect(packageSwift.contains(#".product(name: "TesseraSDK", package: "tessera-sdk")"#), "\(packageSwift)")
        #expect(!packageSwift.contains("TesseraTesting") && !packageSwift.contains(Fixtures.repositoryRoot))
        #expect(packageSwift.contains(#".product(name: "TesseraPluginTesting", package: "tessera-sdk")"#))

        let built = try await runDetached("/usr/bin/env", ["swift", "build"], directory: package)
        try #require(built.status == 0, "swift build failed:\n\(built.stdout)\n\(built.stderr)")
        // SwiftPM chose the version by its tag, as for any package named by version.
        #expect((built.stdout + built.stderr).contains("resolved at 1.10.0"), "\(built.stdout)\n\(built.stderr)")
        let warnings = (built.stdout + built.stderr).split(separator: "\n").filter { $0.contains("warning:") }
        #expect(warnings.isEmpty, "\(warnings.prefix(3).joined(separator: "\n"))")
        let library = package + "/.build/debug/libNotes.so"
        let verified = try await runDetached(Fixtures.tesseraExecutable, ["plugins", "verify", library, "--manifest", package + "/manifest.json", "--load"])
        #expect(verified.status == 0, "\(verified.stdout)\n\(verified.stderr)")
        #expect(verified.stdout.contains("gate 3 ok (handshake: com.example.notes"), "\(verified.stdout)")
        // Its tests too: the export's harness runs the plugin in the host through its command.
        let tested = try await runDetached("/usr/bin/env", ["swift", "test"], directory: package)
        #expect(tested.status == 0, "swift test failed:\n\(tested.stdout.suffix(3000))\n\(tested.stderr.suffix(3000))")
        #expect(tested.stdout.contains(/Test run with 2 tests (in \d+ suites )?passed/), "\(tested.stdout.suffix(2000))")
    }

    /// `--sdk-url`: an export published somewhere, named by version; refused when it is no URL, or
    /// beside `--sdk`. Nothing is built: the package's text is what is checked.
    @Test func aPublishedSDKIsNamedByItsURLAndVersion() async throws {
        let root = Fixtures.temporaryDirectory("sdk-url")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let created = try await runDetached(Fixtures.tesseraExecutable,
                                            ["new-plugin", "Notes", "--dir", root, "--sdk-url", "https://example.org/people/Tessera-SDK.git"])
        try #require(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.contains("SDK: https://example.org/people/Tessera-SDK.git, from version 1.10.0"), "\(created.stdout)")
        let packageSwift = try String(contentsOfFile: root + "/Notes/Package.swift", encoding: .utf8)
        #expect(packageSwift.contains(#".package(url: "https://example.org/people/Tessera-SDK.git", from: "1.10.0")"#), "\(packageSwift)")
        #expect(packageSwift.contains(#".product(name: "TesseraPluginStamp", package: "tessera-sdk")"#), "\(packageSwift)")
        #expect(packageSwift.contains(#".product(name: "TesseraPluginTesting", package: "tessera-sdk")"#), "\(packageSwift)")

        let notURL = try await runDetached(Fixtures.tesseraExecutable, ["new-plugin", "Other", "--dir", root, "--sdk-url", "tessera-sdk"])
        #expect(notURL.status != 0 && notURL.stderr.contains("--sdk-url: expected the git URL of an exported SDK"), "\(notURL.stderr)")
        let both = try await runDetached(Fixtures.tesseraExecutable,
                                         ["new-plugin", "Other", "--dir", root, "--sdk", Fixtures.repositoryRoot + "/sdk", "--sdk-url", "https://example.org/tessera-sdk.git"])
        #expect(both.status != 0 && both.stderr.contains("give one of them, not both"), "\(both.stderr)")
        #expect(!FileManager.default.fileExists(atPath: root + "/Other"))
    }
}
