import TesseraTestFixtures
import Testing
@testable import TesseraSync

@Suite struct Murmur3Tests {
    /// Published MurmurHash3_x86_32 vectors (SMHasher's, as quoted by Wikipedia) and two checked
    /// with an independent implementation.
    @Test(arguments: [
        ("", UInt32(0), UInt32(0)),
        ("", 1, 0x514E_28B7),
        ("a", 0x9747_B28C, 0x7FA0_9EA6),
        ("aaaa", 0x9747_B28C, 0x5A97_808A),
        ("Hello, world!", 0x9747_B28C, 0x2488_4CBA),
        ("The quick brown fox jumps over the lazy dog", 0x9747_B28C, 0x2FA8_26CD),
        ("foo", 0, 0xF6A5_C420),
        ("2015-04-24T22:23:42.123Z-1000-0123456789ABCDEF", 0, 0xA930_A299),
    ])
    func knownVectors(_ input: String, _ seed: UInt32, _ expected: UInt32) {
        #expect(Murmur3.hash32(input, seed: seed) == expected)
    }
}

@Suite struct MerkleTrieTests {
    @Test func keysAreSeventeenBase3DigitsOfMinutes() {
        #expect(MerkleTrie.key(millis: 0) == String(repeating: "0", count: 17))
        #expect(MerkleTrie.key(millis: 60_000) == String(repeating: "0", count: 16) + "1")
        #expect(MerkleTrie.key(millis: 59_999) == String(repeating: "0", count: 17))
        #expect(MerkleTrie.key(millis: 4 * 60_000) == String(repeating: "0", count: 15) + "11")
        #expect(MerkleTrie.key(millis: HLCTimestamp.maximumMillis) == String(repeating: "2", count: 17))
        for millis: Int64 in [0, 60_000, 1_772_438_400_000, 1_772_438_459_999, HLCTimestamp.maximumMillis] {
            let key = MerkleTrie.key(millis: millis)
            #expect(MerkleTrie.millis(ofPrefix: key) == millis / 60_000 * 60_000)
        }
        #expect(MerkleTrie.millis(ofPrefix: "1") == 43_046_721 * 60_000)  // 3^16 minutes
    }

    @Test func theRootIsTheXorOfEveryLeafAndOrderDoesNotMatter() {
        var random = SplitMix64(seed: 3)
        let leaves = (0..<300).map { _ in
            (ts(1_772_438_400_000 + Int64.random(in: 0...86_400_000, using: &random), 0, node: 1), UInt32.random(in: 0...UInt32.max, using: &random))
        }
        var a = MerkleTrie(), b = MerkleTrie()
        for (t, h) in leaves { a.insert(t, hash: h) }
        for (t, h) in leaves.shuffled(using: &random) { b.insert(t, hash: h) }
        #expect(a == b)
        #expect(a.rootHash == leaves.reduce(0) { $0 ^ $1.1 })
        #expect(a.diff(b) == nil)
    }

    @Test func diffFindsTheEarliestDivergentMinute() {
        let base: Int64 = 1_772_438_400_000
        var a = MerkleTrie(), b = MerkleTrie()
        for i in 0..<50 { a.insert(ts(base + Int64(i) * 3_600_000), hash: UInt32(i + 1)); b.insert(ts(base + Int64(i) * 3_600_000), hash: UInt32(i + 1)) }
        #expect(a.diff(b) == nil)
        a.insert(ts(base + 7 * 3_600_000 + 90_000, 3), hash: 0xDEAD)   // 07:01:30 → minute 07:01
        a.insert(ts(base + 20 * 3_600_000), hash: 0xBEEF)
        #expect(a.diff(b) == base + 7 * 3_600_000 + 60_000)
        #expect(b.diff(a) == base + 7 * 3_600_000 + 60_000)
        // The symmetric difference of the sets is what matters: b gets the same two changes.
        b.insert(ts(base + 20 * 3_600_000), hash: 0xBEEF)
        b.insert(ts(base + 7 * 3_600_000 + 90_000, 3), hash: 0xDEAD)
        #expect(a.diff(b) == nil)
        #expect(a == b)
    }

    @Test func foldingATrieInIsAddingItsChanges() {
        var whole = MerkleTrie(), first = MerkleTrie(), second = MerkleTrie()
        for i in 0..<40 {
            let t = ts(1_772_438_400_000 + Int64(i) * 61_000)
            whole.insert(t, hash: UInt32(i * 7919))
            if i % 2 == 0 { first.insert(t, hash: UInt32(i * 7919)) } else { second.insert(t, hash: UInt32(i * 7919)) }
        }
        first.formSymmetricDifference(second)
        #expect(first.rootHash == whole.rootHash)
        #expect(first.diff(whole) == nil)
    }

    @Test func pruningKeepsTheRootAndTheTwoLatestChildrenOfEachNode() {
        var trie = MerkleTrie()
        var random = SplitMix64(seed: 5)
        for _ in 0..<500 {
            trie.insert(ts(Int64.random(in: 0...HLCTimestamp.maximumMillis, using: &random)), hash: UInt32.random(in: 1...UInt32.max, using: &random))
        }
        let pruned = trie.pruned()
        #expect(pruned.rootHash == trie.rootHash)
        #expect(pruned.nodes.count < trie.nodes.count)
        for prefix in pruned.nodes.keys where prefix.count < MerkleTrie.keyDigits {
            let children = ["0", "1", "2"].filter { pruned.nodes[prefix + $0] != nil }
            #expect(children.count <= 2)
            let all = ["0", "1", "2"].filter { trie.nodes[prefix + $0] != nil }
            #expect(children == Array(all.suffix(2)), "keeps the latest children of \(prefix)")
        }
        #expect(MerkleTrie().pruned().isEmpty)
    }
}
