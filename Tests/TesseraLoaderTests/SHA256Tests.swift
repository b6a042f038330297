import Foundation
import Testing
@testable import TesseraLoader
@_spi(TesseraHost) import TesseraSDK
import TesseraTestFixtures

@Suite struct SHA256Tests {
    static func hash(_ text: String) -> String { SHA256.hex(of: Array(text.utf8)) }

    /// The hex digest of `bytes` in one update, by the Swift code if `portable`, else by the SHA
    /// extensions when the CPU has them.
    static func hex(of bytes: some Collection<UInt8>, portable: Bool) -> String {
        var hash = SHA256(forcePortable: portable)
        hash.update(bytes)
        return SHA256.hex(hash.finalize())
    }

    /// A deterministic test message: byte i is (7i + 3) mod 251.
    static func message(_ count: Int) -> [UInt8] { (0..<count).map { UInt8((($0 * 7) + 3) % 251) } }

    /// On both paths: the default (the SHA extensions, when the CPU has them) and the Swift code.
    @Test(arguments: [false, true])
    func nistVectors(portable: Bool) {
        func hash(_ text: String) -> String { Self.hex(of: Array(text.utf8), portable: portable) }
        #expect(hash("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hash("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(hash("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu")
            == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
    }

    /// The SHA extensions are used wherever the CPU reports them (sha_ni and sse4_1 in
    /// /proc/cpuinfo), so the other tests here exercise them, and a broken CPU check shows.
    @Test func hardwarePathWhenTheCPUHasIt() throws {
        let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let flags = Set(cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") }?
            .split(separator: " ").map(String.init) ?? [])
        #if arch(x86_64)
        #expect(SHA256.hardwareAvailable == (flags.contains("sha_ni") && flags.contains("sse4_1")))
        #else
        #expect(!SHA256.hardwareAvailable)
        #endif
        // The C side takes the state as uint32_t[8].
        #expect(MemoryLayout<SHA256.State>.size == 32 && MemoryLayout<SHA256.State>.stride == 32)
    }

    /// The two paths agree on random messages of every length from 0 to 300 bytes (every
    /// padding case, up to four blocks and some), from every alignment, and in random updates.
    @Test func hardwareAndPortableAgreeOnShortMessages() {
        var generator = SplitMix64(seed: 0x5348_4132_3536)
        var oneShot: [String] = [], pieces: [String] = []
        for count in 0...300 {
            let bytes = (0..<(count + 15)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let offset = Int(generator.next() % 16)
            let message = bytes[offset..<(offset + count)]   // misaligned start
            let portable = Self.hex(of: message, portable: true)
            if Self.hex(of: message, portable: false) != portable { oneShot.append("\(count)@\(offset)") }
            // The same message in random pieces, on the default path.
            var hash = SHA256()
            var position = message.startIndex
            while position < message.endIndex {
                let end = min(position + Int(generator.next() % 150), message.endIndex)
                hash.update(message[position..<end])
                position = end
            }
            if SHA256.hex(hash.finalize()) != portable { pieces.append("\(count)") }
        }
        #expect(oneShot.isEmpty, "one update differs at \(oneShot.count) lengths (length@offset): \(oneShot.prefix(20))")
        #expect(pieces.isEmpty, "random pieces differ at \(pieces.count) lengths: \(pieces.prefix(20))")
    }

    /// The two paths agree on a few multi-megabyte random buffers (long runs of whole blocks
    /// through one compression call), one-shot and fed in 64 KiB + 3 byte pieces.
    @Test(arguments: [1 << 20, 3 * (1 << 20) + 17, 5 * (1 << 20) - 1])
    func hardwareAndPortableAgreeOnLongMessages(count: Int) {
        var generator = SplitMix64(seed: UInt64(count))
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { out in
            var i = 0
            while i + 8 <= out.count {
                out.storeBytes(of: generator.next(), toByteOffset: i, as: UInt64.self)
                i += 8
            }
            while i < out.count { out[i] = UInt8(truncatingIfNeeded: generator.next()); i += 1 }
        }
        let portable = Self.hex(of: bytes, portable: true)
        #expect(Self.hex(of: bytes, portable: false) == portable)
        var hash = SHA256()
        var position = 0
        while position < count {
            let end = min(position + 65_539, count)
            hash.update(bytes[position..<end])
            position = end
        }
        #expect(SHA256.hex(hash.finalize()) == portable)
    }

    @Test func oneMillionAs() {
        let expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        #expect(SHA256.hex(of: [UInt8](repeating: 0x61, count: 1_000_000)) == expected)
        // Not contiguous: takes the copying path of update(_:).
        #expect(SHA256.hex(of: repeatElement(UInt8(0x61), count: 1_000_000)) == expected)
        // In 1000 updates of 1000 bytes, none block-aligned.
        var hash = SHA256()
        let thousand = [UInt8](repeating: 0x61, count: 1000)
        for _ in 0..<1000 { hash.update(thousand) }
        #expect(SHA256.hex(hash.finalize()) == expected)
    }

    /// Lengths around the padding boundaries (55 fits the length in one block, 56 needs a second),
    /// checked against Python's hashlib.
    @Test(arguments: [
        (55, "1deace58c745f3ecadde68a5923f494c3703fa73f0306483ccb898a5826e8d70"),
        (56, "06dbe23685750e4d3881ded95047abaf93fa8f9c5d3501dc57c717a72ff1398e"),
        (63, "47fb38b12335c9298d09280515c0666489a189d1554bb0ac1a0740806ce9d8b6"),
        (64, "dfa798724b1a8014994f363e5da7474ed26ce3757fb29e07aa47ad5a9352d37b"),
        (65, "dd2eab5a5507d7717c63ce953d9ac61752c21e664425ad1227054722a0d97f69"),
        (119, "c6e0f435df5d7d265baacca31e0602c00aa22fa6d3819aed664649294c743756"),
        (120, "17eb8960823a644bde3065620bb9d45931fe8993fd8eb692a17aff0fd725db6a"),
        (127, "2409a159329f4e770a7d8128130497abb1de01ffb6ad389d97d89ebbeeb7f02c"),
        (128, "3a9c1e22e20578eebe442238f431befd688bd56698eb7c77d95d3f97d8f58207"),
        (129, "956f5da998f608be52587f28902b608909b661f99a1b300e3d3046b4f69f6fb5"),
    ])
    func blockBoundaries(count: Int, expected: String) {
        #expect(SHA256.hex(of: Self.message(count)) == expected)
    }

    /// Every split of a 129-byte message into two updates, and runs of odd-sized updates, give the
    /// one-shot digest.
    @Test func splitUpdates() {
        let message = Self.message(129)
        let expected = "956f5da998f608be52587f28902b608909b661f99a1b300e3d3046b4f69f6fb5"
        for split in 0...message.count {
            var hash = SHA256()
            hash.update(message[..<split])
            hash.update(message[split...])
            #expect(SHA256.hex(hash.finalize()) == expected, "split at \(split)")
        }
        for step in [1, 3, 7, 13, 31, 55, 63, 64, 65, 127] {
            var hash = SHA256()
            var position = 0
            while position < message.count {
                let end = min(position + step, message.count)
                hash.update(message[position..<end])
                position = end
            }
            #expect(SHA256.hex(hash.finalize()) == expected, "updates of \(step) bytes")
        }
    }

    @Test func finalizeLeavesTheHashUsable() {
        var hash = SHA256()
        hash.update(Array("ab".utf8))
        let copy = hash
        _ = hash.finalize()
        hash.update(Array("c".utf8))
        #expect(SHA256.hex(hash.finalize()) == Self.hash("abc"))
        #expect(SHA256.hex(copy.finalize()) == Self.hash("ab"))
        #expect(SHA256.digest(Array("abc".utf8)).count == 32)
    }

    @Test func hexEncoding() {
        #expect(SHA256.hex([UInt8]()) == "")
        #expect(SHA256.hex([0x00, 0x01, 0x7f, 0x80, 0xab, 0xff]) == "00017f80abff")
    }

    /// Files of several sizes around the 64 KiB read size, compared with coreutils' sha256sum.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sha256sum")),
          arguments: [0, 1, 65_535, 65_536, 65_537, 3 * 65_536 + 17, 1_000_003])
    func matchesSha256sum(size: Int) async throws {
        let path = temporaryPath("sha-\(size).bin")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var generator = SplitMix64(seed: UInt64(size))
        let bytes = (0..<size).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let result = try await runDetached("/usr/bin/sha256sum", [path])
        try #require(result.status == 0, "sha256sum: \(result.stderr)")
        let expected = String(result.stdout.prefix(64))
        #expect(try SHA256.hash(file: path) == expected)
        #expect(SHA256.hex(of: bytes) == expected)
    }

    @Test func unreadableFiles() {
        #expect {
            try SHA256.hash(file: "/nonexistent/tessera/lib.so")
        } throws: { error in
            String(describing: error) == "cannot open: No such file or directory"
        }
        #expect {
            try SHA256.hash(file: NSTemporaryDirectory())
        } throws: { error in
            String(describing: error) == "cannot read: it is a directory, not a file"
        }
    }
}
