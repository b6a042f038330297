internal import CTesseraSHA256

/// SHA-256 (FIPS 180-4), with HMAC-SHA256 and PBKDF2-HMAC-SHA256 on top of it: the one copy the host
/// and every plugin use (neither the toolchain nor Linux offers one to Swift without a dependency).
///
/// The block compression runs in C (the SDK's `CTesseraSHA256` target, optimised in every build),
/// with the x86 SHA extensions on CPUs that have them. Use it in one go or streaming:
///
/// ```swift
/// let digest = SHA256.digest(Array("abc".utf8))              // 32 bytes
/// var hash = SHA256()
/// hash.update(header)
/// hash.update(body)
/// let hex = SHA256.hex(hash.finalize())                      // lowercase hex
/// let mac = SHA256.authenticationCode(for: body, key: secret)  // HMAC-SHA256
/// ```
///
/// The state is a value (eight words, a 64-byte block buffer and a length), so copying a
/// half-fed hash forks it. The hash is not constant-time over its message; compare MACs with
/// ``constantTimeEquals(_:_:)``. (SDK 1.10.)
public struct SHA256: Sendable {
    /// The digest size in bytes.
    public static let digestSize = 32
    /// The block size in bytes.
    public static let blockSize = 64

    private var state: State = .initial
    /// The bytes of an incomplete block, `buffered` of them valid.
    private var block = Block()
    private var buffered = 0
    /// The message length so far, in bytes.
    private var length: UInt64 = 0
    /// Use the Swift compression even when the CPU has the SHA extensions (for tests).
    private var portable = false

    /// A hash of the empty message.
    public init() {}

    /// A hash of the empty message that, with `forcePortable`, never uses the SHA extensions:
    /// lets tests check the portable code on a CPU that has them.
    @_spi(TesseraHost) public init(forcePortable: Bool) {
        portable = forcePortable
    }

    /// Appends `bytes` to the message.
    public mutating func update(_ bytes: some Collection<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil {
            Array(bytes).withUnsafeBytes { update($0) }
        }
    }

    /// Appends the bytes of `buffer` to the message.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard !buffer.isEmpty, let base = buffer.baseAddress else { return }
        length &+= UInt64(buffer.count)
        var position = 0
        if buffered > 0 {
            let take = min(SHA256.blockSize - buffered, buffer.count)
            withUnsafeMutableBytes(of: &block) { $0.baseAddress!.advanced(by: buffered).copyMemory(from: base, byteCount: take) }
            buffered += take
            position = take
            guard buffered == SHA256.blockSize else { return }
            let copy = block
            withUnsafeBytes(of: copy) { SHA256.compress(&state, $0, portable: portable) }
            buffered = 0
        }
        let whole = (buffer.count - position) & ~(SHA256.blockSize - 1)
        if whole > 0 {
            SHA256.compress(&state, UnsafeRawBufferPointer(start: base + position, count: whole), portable: portable)
            position += whole
        }
        let rest = buffer.count - position
        if rest > 0 {
            withUnsafeMutableBytes(of: &block) { $0.baseAddress!.copyMemory(from: base + position, byteCount: rest) }
            buffered = rest
        }
    }

    /// The 32-byte digest of the message so far. The hash itself is unchanged, so more bytes may
    /// follow for a digest of the longer message.
    public func finalize() -> [UInt8] {
        var state = self.state
        // The padding: 0x80, zeros up to 8 bytes before a block boundary, the bit length big-endian.
        var tail = (Block(), Block())
        let tailCount = buffered < 56 ? 64 : 128
        withUnsafeMutableBytes(of: &tail) { out in
            withUnsafeBytes(of: block) { out.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: buffered) }
            out[buffered] = 0x80
            out.storeBytes(of: (length &* 8).bigEndian, toByteOffset: tailCount - 8, as: UInt64.self)
        }
        withUnsafeBytes(of: tail) {
            SHA256.compress(&state, UnsafeRawBufferPointer(rebasing: $0[0..<tailCount]), portable: portable)
        }
        var digest = [UInt8](repeating: 0, count: SHA256.digestSize)
        digest.withUnsafeMutableBytes { out in
            for (i, word) in [state.a, state.b, state.c, state.d, state.e, state.f, state.g, state.h].enumerated() {
                out.storeBytes(of: word.bigEndian, toByteOffset: 4 * i, as: UInt32.self)
            }
        }
        return digest
    }

    /// The 32-byte digest of `bytes`.
    public static func digest(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var hash = SHA256()
        hash.update(bytes)
        return hash.finalize()
    }

    /// The lowercase hex digest of `bytes`.
    public static func hex(of bytes: some Collection<UInt8>) -> String {
        hex(digest(bytes))
    }

    /// `bytes` as lowercase hex, two digits a byte (e.g. a digest from ``finalize()``).
    public static func hex(_ bytes: some Collection<UInt8>) -> String {
        let digits: StaticString = "0123456789abcdef"
        let count = bytes.count * 2
        return String(unsafeUninitializedCapacity: count) { out in
            var i = 0
            digits.withUTF8Buffer { digits in
                for byte in bytes {
                    out[i] = digits[Int(byte >> 4)]
                    out[i + 1] = digits[Int(byte & 0x0f)]
                    i += 2
                }
            }
            return i
        }
    }

    /// HMAC-SHA256 (RFC 2104) of `message` under `key`: 32 bytes.
    public static func authenticationCode(for message: some Collection<UInt8>, key: some Collection<UInt8>) -> [UInt8] {
        var block = key.count > blockSize ? digest(key) : Array(key)
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        var inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        var outer = SHA256()
        outer.update(block.map { $0 ^ 0x5c })
        outer.update(inner.finalize())
        return outer.finalize()
    }

    /// PBKDF2-HMAC-SHA256 (RFC 8018 §5.2): a 32-byte key derived from `password` and `salt` in
    /// `iterations` rounds (at least 1), for storing a PIN or a password. The rounds run in C.
    public static func derivedKey(password: some Collection<UInt8>, salt: some Collection<UInt8>, iterations: Int) -> [UInt8] {
        let password = Array(password), salt = Array(salt)
        var out = [UInt8](repeating: 0, count: digestSize)
        let rounds = UInt32(clamping: max(iterations, 1))
        password.withUnsafeBufferPointer { p in
            salt.withUnsafeBufferPointer { s in
                out.withUnsafeMutableBufferPointer { o in
                    tessera_pbkdf2_hmac_sha256(p.baseAddress, p.count, s.baseAddress, s.count, rounds, o.baseAddress!)
                }
            }
        }
        return out
    }

    /// Whether `a` and `b` are equal, in a time that depends only on their lengths (for MACs and
    /// derived keys, so that a comparison tells an attacker nothing about where they differ).
    public static func constantTimeEquals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    // MARK: - The compression function

    /// The eight working words a … h, the layout the C side takes as `uint32_t[8]`.
    @_spi(TesseraHost) public struct State: Sendable {
        var a, b, c, d, e, f, g, h: UInt32
        static let initial = State(a: 0x6a09e667, b: 0xbb67ae85, c: 0x3c6ef372, d: 0xa54ff53a,
                                   e: 0x510e527f, f: 0x9b05688c, g: 0x1f83d9ab, h: 0x5be0cd19)
    }

    /// 64 bytes, inline (no heap allocation).
    struct Block { var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0) }

    /// Whether this CPU has the SHA extensions (and SSE4.1), checked once.
    @_spi(TesseraHost) public static let hardwareAvailable = tessera_sha256_hw_available() != 0

    /// Runs the compression function over `blocks`, whose size is a multiple of 64: with the SHA
    /// extensions when the CPU has them, unless `portable`, else in portable C.
    static func compress(_ state: inout State, _ blocks: UnsafeRawBufferPointer, portable: Bool = false) {
        precondition(blocks.count % blockSize == 0)
        guard let base = blocks.baseAddress, !blocks.isEmpty else { return }
        withUnsafeMutableBytes(of: &state) { words in
            let words = words.baseAddress!.assumingMemoryBound(to: UInt32.self)
            let bytes = base.assumingMemoryBound(to: UInt8.self)
            if portable {
                tessera_sha256_portable_compress(words, bytes, blocks.count / blockSize)
            } else {
                tessera_sha256_compress(words, bytes, blocks.count / blockSize)
            }
        }
    }
}
