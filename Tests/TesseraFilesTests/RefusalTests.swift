import Foundation
import Testing
import TesseraFiles
import TesseraSDK
import TesseraTestFixtures

/// The grant's limits and the manifest's media types, each refused with its own named error, and
/// nothing of a refused file left behind.
@Suite(.hangWatchdog) struct RefusalTests {
    @Test func aFileLargerThanMaxFileMBIsRefusedWhileItStreams() async throws {
        let fixture = StoreFixture("too-large")
        let files = fixture.channel("baby.diary", FilePolicy(mediaTypes: ["image/jpeg"], quotaBytes: nil, maxFileBytes: 1 << 20))
        let writer = try await files.writer(mediaType: nil)
        try await writer.write(Samples.jpeg(count: 1 << 19))
        try await writer.write(Samples.jpeg(count: 1 << 19))  // exactly the limit
        do {
            try await writer.write([0])
            Issue.record("one byte past maxFileMB was taken")
        } catch let error as PluginError {
            #expect(error.code == .payloadTooLarge)
            #expect(error.message.contains("maxFileMB"))
        }
        #expect(fixture.temporaries("baby.diary").isEmpty, "the refused file's temporary is gone")
        #expect(try fixture.store.usage(plugin: "baby.diary") == 0)
    }

    @Test func theQuotaCountsEveryFileOfThePlugin() async throws {
        let fixture = StoreFixture("quota")
        let files = fixture.channel("baby.diary", FilePolicy(mediaTypes: ["image/jpeg"], quotaBytes: 2 << 20, maxFileBytes: nil))
        _ = try await files.put(Samples.jpeg(count: 800 << 10, seed: 1))
        _ = try await files.put(Samples.jpeg(count: 800 << 10, seed: 2))
        do {
            _ = try await files.put(Samples.jpeg(count: 800 << 10, seed: 3))
            Issue.record("a third file past the quota was stored")
        } catch let error as PluginError {
            #expect(error.code == .quotaExceeded)
            #expect(error.message.contains("quotaMB"))
        }
        #expect(try fixture.store.usage(plugin: "baby.diary") == 1600 << 10)
        // Another plugin's quota is its own.
        _ = try await fixture.channel("other", FilePolicy(mediaTypes: ["image/jpeg"], quotaBytes: 2 << 20, maxFileBytes: nil))
            .put(Samples.jpeg(count: 800 << 10, seed: 3))
        #expect(fixture.temporaries("baby.diary").isEmpty)
    }

    @Test func twoWritersRacingForTheLastOfTheQuotaStoreOnlyOne() async throws {
        let fixture = StoreFixture("quota-race")
        let files = fixture.channel("baby.diary", FilePolicy(mediaTypes: ["image/jpeg"], quotaBytes: 1 << 20, maxFileBytes: nil))
        // Both start before either finishes: each passes the early check alone.
        let a = try await files.writer(mediaType: nil), b = try await files.writer(mediaType: nil)
        try await a.write(Samples.jpeg(count: 600 << 10, seed: 1))
        try await b.write(Samples.jpeg(count: 600 << 10, seed: 2))
        _ = try await a.finish()
        do {
            _ = try await b.finish()
            Issue.record("both were stored, past the quota")
        } catch let error as PluginError {
            #expect(error.code == .quotaExceeded)
        }
        #expect(try fixture.store.usage(plugin: "baby.diary") == 600 << 10)
    }

    @Test func aMediaTypeTheManifestDoesNotDeclareIsRefusedByContentNotByName() async throws {
        let fixture = StoreFixture("types")
        let files = fixture.channel("baby.diary", FilePolicy(mediaTypes: ["image/jpeg"], quotaBytes: nil, maxFileBytes: nil))
        for (bytes, claimed) in [(Samples.png, "image/png"), (Samples.pdf, nil), (Samples.binary, nil)] as [([UInt8], String?)] {
            do {
                _ = try await files.put(bytes, mediaType: claimed)
                Issue.record("stored \(claimed ?? "unnamed content")")
            } catch let error as PluginError {
                #expect(error.code == .unsupportedMediaType)
            }
        }
        // A PNG that says it is a JPEG is still a PNG.
        do {
            _ = try await files.put(Samples.png, mediaType: "image/jpeg")
            Issue.record("a PNG named image/jpeg was stored")
        } catch let error as PluginError {
            #expect(error.code == .unsupportedMediaType)
            #expect(error.message.contains("does not match"))
        }
        #expect(fixture.temporaries("baby.diary").isEmpty)
        #expect(try fixture.store.usage(plugin: "baby.diary") == 0)
    }

    @Test func octetStreamAcceptsAnyContentUnderItsRecognisedType() async throws {
        let files = StoreFixture("any").channel("x", FilePolicy(mediaTypes: ["application/octet-stream"], quotaBytes: nil, maxFileBytes: nil))
        #expect(try await files.put(Samples.binary).mediaType == "application/octet-stream")
        #expect(try await files.put(Samples.pdf).mediaType == "application/pdf")
    }
}

/// The sniffer on each format's first bytes, and on text.
@Suite struct MediaSnifferTests {
    static func sniff(_ bytes: [UInt8], chunk: Int = 3) -> String? {
        var sniffer = MediaSniffer()
        for start in stride(from: 0, to: bytes.count, by: chunk) {
            Array(bytes[start..<min(start + chunk, bytes.count)]).withUnsafeBytes { sniffer.feed($0) }
        }
        return sniffer.mediaType { (try? JSONValue(parsing: bytes)) != nil }
    }

    @Test func eachFormatIsFoundByItsContent() {
        #expect(Self.sniff(Samples.jpeg) == "image/jpeg")
        #expect(Self.sniff(Samples.png) == "image/png")
        #expect(Self.sniff(Samples.gif) == "image/gif")
        #expect(Self.sniff(Samples.webp) == "image/webp")
        #expect(Self.sniff(Samples.heic) == "image/heic")
        #expect(Self.sniff(Samples.pdf) == "application/pdf")
        #expect(Self.sniff(Samples.text) == "text/plain")
        #expect(Self.sniff(Samples.json) == "application/json")
        #expect(Self.sniff(Array("{not json".utf8)) == "text/plain")
        #expect(Self.sniff(Samples.binary) == nil)
    }

    @Test func textIsWellFormedUTF8AcrossChunkBoundaries() {
        let czech = Array("Příliš žluťoučký kůň 🐴".utf8)
        for chunk in 1...5 { #expect(Self.sniff(czech, chunk: chunk) == "text/plain") }
        #expect(Self.sniff(Array(czech.dropLast())) == nil, "a cut character")
        #expect(Self.sniff([0xC0, 0xAF]) == nil, "an overlong form")
        #expect(Self.sniff([0xED, 0xA0, 0x80]) == nil, "a surrogate")
        #expect(Self.sniff(Array("a\u{0}b".utf8)) == nil, "a NUL")
    }
}
