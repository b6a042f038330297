import Foundation
import Testing
import TesseraFiles
import TesseraSDK
import TesseraTestFixtures

/// Putting, reading, linking, and each plugin seeing only its own files, on real files.
@Suite(.hangWatchdog) struct FileStoreTests {
    @Test func aFilePutInChunksReadsBackWholeAndByRangeUnderItsSHA256() async throws {
        let fixture = StoreFixture("put")
        let files = fixture.channel("baby.diary")
        let bytes = Samples.jpeg(count: 3 << 20 | 12_345)
        let file = try await files.put(Chunks(bytes, size: 64 * 1024))
        #expect(file == FileDescriptor(address: Samples.address(bytes), size: Int64(bytes.count), mediaType: "image/jpeg"))
        #expect(try await files.read(file.address) == bytes)
        #expect(try await files.read(file.address, range: 1000..<1010) == Array(bytes[1000..<1010]))
        #expect(try await files.read(file.address, range: Int64(bytes.count - 5)..<Int64(bytes.count + 100)) == Array(bytes.suffix(5)))
        var streamed: [UInt8] = []
        for try await chunk in files.chunks(file.address, chunkSize: 1 << 20) { streamed += chunk }
        #expect(streamed == bytes)
        #expect(try await files.stat(file.address) == file)
        // On disk under the plugin's directory, named by the hash; nothing left in tmp.
        let path = fixture.store.directory(of: "baby.diary") + "/objects/\(file.address.prefix(2))/\(file.address)"
        #expect(FileManager.default.contents(atPath: path) == Data(bytes))
        #expect(fixture.temporaries("baby.diary").isEmpty)
    }

    @Test func theSameBytesPutTwiceAreOneFile() async throws {
        let fixture = StoreFixture("dedupe")
        let files = fixture.channel("baby.diary")
        let first = try await files.put(Samples.png)
        let second = try await files.put(Samples.png, mediaType: "image/png")
        #expect(first == second)
        #expect(try fixture.store.usage(plugin: "baby.diary") == Int64(Samples.png.count))
    }

    @Test func aPluginSeesOnlyItsOwnFiles() async throws {
        let fixture = StoreFixture("isolation")
        let diary = fixture.channel("baby.diary"), finance = fixture.channel("cz.finance")
        let photo = try await diary.put(Samples.jpeg)
        await #expect(throws: PluginError.self) { try await finance.stat(photo.address) }
        do { _ = try await finance.read(photo.address) } catch let error as PluginError { #expect(error.code == .notFound) }
        do { try await finance.link(photo.address, table: "t", id: "1") } catch let error as PluginError { #expect(error.code == .notFound) }
        #expect(try await finance.links(of: photo.address).isEmpty)
        // The same bytes put by the other plugin are its own copy, in its own directory.
        let copy = try await finance.put(Samples.jpeg)
        #expect(copy.address == photo.address)
        #expect(FileManager.default.fileExists(atPath: fixture.store.directory(of: "cz.finance") + "/objects/\(copy.address.prefix(2))/\(copy.address)"))
        #expect(try fixture.store.usage(plugin: "baby.diary") == Int64(Samples.jpeg.count))
    }

    @Test func anAddressThatIsNotAHashNeverReachesAPath() async throws {
        let files = StoreFixture("address").channel("baby.diary")
        for bad in ["../../secrets.sqlite", String(repeating: "A", count: 64), "abc"] {
            do {
                _ = try await files.read(bad)
                Issue.record("read \(bad)")
            } catch let error as PluginError {
                #expect(error.code == .invalidInput, "\(bad)")
            }
        }
    }

    @Test func linksAreListedAndRemoved() async throws {
        let files = StoreFixture("links").channel("baby.diary")
        let photo = try await files.put(Samples.jpeg)
        try await files.link(photo.address, table: "posts", id: "2")
        try await files.link(photo.address, table: "posts", id: "1")
        try await files.link(photo.address, table: "posts", id: "1")
        #expect(try await files.links(of: photo.address) == [FileLink(table: "posts", id: "1"), FileLink(table: "posts", id: "2")])
        try await files.unlink(photo.address, table: "posts", id: "1")
        #expect(try await files.links(of: photo.address) == [FileLink(table: "posts", id: "2")])
    }
}
