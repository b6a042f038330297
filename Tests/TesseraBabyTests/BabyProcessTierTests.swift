import Foundation
import Testing
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures
import TesseraTesting

/// The shipped baby diary, built once, in the process tier: its photos go through the files
/// capability across the boundary (docs/isolation.md). The whole suite runs this way with
/// `TESSERA_TEST_ISOLATION=process`; this test runs it so whatever the environment says.
@Suite(.hangWatchdog) struct BabyProcessTierTests {
    @Test func photosAreStoredLinkedAndReadInTheProcessTier() async throws {
        let host = try await PluginTestHost(manifest: BabyFixture.manifest, plugin: { fatalError("the process tier loads the library") },
                                            grants: ["storage": [:], "clock": [:], "notifications": [:], "files": [:]],
                                            start: try Date("2026-03-02T08:00:00Z", strategy: .iso8601), isolation: "process")
        try await withCleanup({ await host.stop() }) {
            let pid = try #require(host.host.isolatedProcessID(host.pluginID))
            #expect(pid != getpid())
            let child = try #require(try await host.call("child-create", ["name": "Ema", "birthDate": "2025-06-15"])["id"]?.stringValue)
            let photo = try await host.call("photo-put", ["data": .string(BabyFixture.pngBase64)])
            let address = try #require(photo["address"]?.stringValue)
            #expect(photo["mediaType"] == "image/png")
            let post = try await host.call("post-add", ["childId": .string(child), "text": "U babičky", "date": "2026-02-14", "photos": [.string(address)]])
            #expect(post["photos"] == [.string(address)])
            #expect(try await host.call("photo-get", ["address": .string(address)])["address"] == .string(address))
            let unknown = String(repeating: "ab", count: 32)
            let missing = await #expect(throws: PluginError.self) {
                try await host.call("post-add", ["childId": .string(child), "text": "x", "date": "2026-02-14", "photos": [.string(unknown)]])
            }
            #expect(missing?.field == "$.photos[0]")
            #expect(host.host.isolatedProcessID(host.pluginID) == pid, "no crash, the same child served every call")
            await host.stop()
        }
    }
}
