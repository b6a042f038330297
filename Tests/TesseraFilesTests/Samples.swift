import Foundation
import TesseraFiles
import TesseraLoader
import TesseraSDK

/// Contents of the kinds the sniffer knows, and a store with plugins on it.
enum Samples {
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [UInt8](repeating: 0x42, count: 200)
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0x01, count: 100)
    static let gif: [UInt8] = Array("GIF89a".utf8) + [UInt8](repeating: 0x02, count: 40)
    static let webp: [UInt8] = Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WEBPVP8 ".utf8) + [UInt8](repeating: 3, count: 40)
    static let heic: [UInt8] = [0, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)
    static let pdf: [UInt8] = Array("%PDF-1.7\n%\u{e2}\u{e3}\n1 0 obj\n".utf8)
    static let text: [UInt8] = Array("Dnes jsme byli v ZOO. Žirafa!\n".utf8)
    static let json: [UInt8] = Array(#"{"first": "steps", "age": [1, 2]}"#.utf8)
    static let binary: [UInt8] = [0x00, 0x01, 0x02, 0x7F, 0x80, 0xFE]

    /// `count` bytes of a JPEG: the magic, then a pattern numbered by `seed`.
    static func jpeg(count: Int, seed: UInt8 = 0) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes[0] = 0xFF; bytes[1] = 0xD8; bytes[2] = 0xFF
        for i in 3..<count { bytes[i] = UInt8(truncatingIfNeeded: i &* 31 &+ Int(seed)) }
        return bytes
    }

    static func address(_ bytes: [UInt8]) -> String { SHA256.hex(of: bytes) }

    static let photos = FilePolicy(mediaTypes: ["image/jpeg", "image/png", "image/heic"], quotaBytes: nil, maxFileBytes: nil)
}

/// A store in a fresh directory, with a channel per plugin on a fixed clock.
struct StoreFixture {
    let directory: String
    let store: FileStore
    let now: @Sendable () -> Date

    init(_ label: String, now: @escaping @Sendable () -> Date = { Date(timeIntervalSince1970: 1_767_225_600) }) {
        directory = NSTemporaryDirectory() + "tessera-files-\(label)-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        store = FileStore(dataDirectory: directory)
        self.now = now
    }

    func channel(_ plugin: String, _ policy: FilePolicy = Samples.photos) -> PluginFileChannel {
        PluginFileChannel(pluginID: plugin, store: store, policy: policy, now: now)
    }

    /// The names in the plugin's temporary folder.
    func temporaries(_ plugin: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: store.directory(of: plugin) + "/tmp")) ?? []
    }
}

/// `chunks` as an async sequence, one array at a time.
struct Chunks: AsyncSequence, Sendable {
    typealias Element = [UInt8]
    let chunks: [[UInt8]]
    struct AsyncIterator: AsyncIteratorProtocol {
        var rest: ArraySlice<[UInt8]>
        mutating func next() async -> [UInt8]? { rest.popFirst() }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(rest: chunks[...]) }

    /// `bytes` cut into pieces of `size`.
    init(_ bytes: [UInt8], size: Int) {
        chunks = stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<Swift.min($0 + size, bytes.count)]) }
    }
}
