import Foundation
import Testing
import TesseraTestFixtures

/// The SDK is public API: every public symbol is documented. `scripts/sdk-docs.sh` renders the DocC
/// reference with the toolchain's own `docc`, which warns about an undocumented parameter, a broken
/// symbol link or a missing return description; this test fails on any such warning. The catalogue
/// (`sdk/Sources/TesseraSDK/TesseraSDK.docc`) adds the landing page's topic groups and the articles,
/// whose symbol links `docc` checks the same way.
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
        // The catalogue's articles, one page each.
        for article in ["firstplugin", "capabilities", "operations", "syncandspaces", "testing"] {
            let file = output + "/data/documentation/tesserasdk/" + article + ".json"
            #expect(FileManager.default.fileExists(atPath: file), "no article page \(file)")
        }
        // The landing page curates the symbols into the catalogue's topic groups (TesseraSDK.md),
        // rather than only the groups docc makes by kind (Structures, Protocols…).
        let landing = try #require(FileManager.default.contents(atPath: output + "/data/documentation/tesserasdk.json"))
        let object = try JSONSerialization.jsonObject(with: landing)
        let page = try #require(object as? [String: Any])
        let sections = page["topicSections"] as? [[String: Any]] ?? []
        let titles = sections.compactMap { $0["title"] as? String }
        for group in ["Essentials", "Capabilities and grants", "Operations and errors", "Sync and spaces", "Testing your plugin"] {
            #expect(titles.contains(group), "the landing page has no topic group '\(group)'; it has \(titles)")
        }
    }
}
