/// MurmurHash3, x86 32-bit variant (Austin Appleby's `MurmurHash3_x86_32`), seed 0 by default.
///
/// The hash of the merkle trie's leaves, as in Actual Budget (which hashes each timestamp with the
/// `murmurhash` package's v3). Not cryptographic: it only has to spread changes so that two replicas
/// holding different sets are very unlikely to have equal XORs. Little-endian block reads, as the
/// reference implementation on x86; the test vectors in the tests pin it.
public enum Murmur3 {
    /// The 32-bit hash of `bytes`.
    public static func hash32<Bytes: Collection<UInt8>>(_ bytes: Bytes, seed: UInt32 = 0) -> UInt32 {
        let c1: UInt32 = 0xcc9e_2d51
        let c2: UInt32 = 0x1b87_3593
        var h = seed
        var block: UInt32 = 0
        var filled = 0
        for byte in bytes {
            block |= UInt32(byte) << UInt32(8 * filled)
            filled += 1
            if filled == 4 {
                h ^= mixBlock(block, c1, c2)
                h = (h << 13 | h >> 19) &* 5 &+ 0xe654_6b64
                block = 0
                filled = 0
            }
        }
        if filled > 0 { h ^= mixBlock(block, c1, c2) }
        h ^= UInt32(truncatingIfNeeded: bytes.count)
        return finalMix(h)
    }

    /// The hash of a string's UTF-8 bytes.
    public static func hash32(_ text: String, seed: UInt32 = 0) -> UInt32 {
        hash32(text.utf8, seed: seed)
    }

    /// The hash of the UTF-8 bytes of `first` followed by those of `second`, without joining
    /// them: the merkle leaf of every change merged (a timestamp's text and a column), where the
    /// generic version over a new array cost a tenth of merging a change in the debug build.
    /// Equal to `hash32(Array(first.utf8) + Array(second.utf8))`.
    static func hash32(concatenating first: String, _ second: String, seed: UInt32 = 0) -> UInt32 {
        var hasher = Hasher32(seed: seed)
        var first = first, second = second
        first.withUTF8 { hasher.add($0) }
        second.withUTF8 { hasher.add($0) }
        return hasher.finish()
    }

    /// MurmurHash3 fed in pieces: the same blocks as over the bytes joined.
    private struct Hasher32 {
        private var h: UInt32
        private var block: UInt32 = 0
        private var filled: UInt32 = 0
        private var count: UInt32 = 0

        init(seed: UInt32) { h = seed }

        mutating func add(_ bytes: UnsafeBufferPointer<UInt8>) {
            var index = 0
            let end = bytes.count
            while index < end {
                block |= UInt32(bytes[index]) << (8 &* filled)
                filled &+= 1
                if filled == 4 {
                    h ^= mixBlock(block, 0xcc9e_2d51, 0x1b87_3593)
                    h = (h << 13 | h >> 19) &* 5 &+ 0xe654_6b64
                    block = 0
                    filled = 0
                }
                index &+= 1
            }
            count &+= UInt32(truncatingIfNeeded: end)
        }

        func finish() -> UInt32 {
            var h = self.h
            if filled > 0 { h ^= mixBlock(block, 0xcc9e_2d51, 0x1b87_3593) }
            h ^= count
            return finalMix(h)
        }
    }

    private static func mixBlock(_ block: UInt32, _ c1: UInt32, _ c2: UInt32) -> UInt32 {
        var k = block &* c1
        k = k << 15 | k >> 17
        return k &* c2
    }

    private static func finalMix(_ value: UInt32) -> UInt32 {
        var h = value
        h ^= h >> 16
        h = h &* 0x85eb_ca6b
        h ^= h >> 13
        h = h &* 0xc2b2_ae35
        h ^= h >> 16
        return h
    }
}
