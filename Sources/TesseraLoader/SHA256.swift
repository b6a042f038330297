import Glibc
import TesseraSystem
internal import CTesseraSHA256

/// SHA-256 (FIPS 180-4), in plain Swift so that the runtime core depends on nothing but the toolchain,
/// with the block compression done by the x86 SHA extensions (the `CTesseraSHA256` target) on CPUs
/// that have them, about ten times faster.
///
/// The loader hashes every plugin library to check its manifest's pin and to name its
/// content-addressed copy. Use it in one go or streaming:
///
/// ```swift
/// let pin = try SHA256.hash(file: "libTesseraExample.so")   // lowercase hex
/// var hash = SHA256()
/// hash.update(header)
/// hash.update(body)
/// let digest = hash.finalize()                               // 32 bytes
/// ```
///
/// The state is a value (eight words, a 64-byte block buffer and a length), so copying a
/// half-fed hash forks it. Not constant-time: it checks files, it does not handle secrets.
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
    /// lets tests check the Swift code on a CPU that has them.
    init(forcePortable: Bool) {
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

    /// The lowercase hex digest of the file at `path`, read in 64 KiB chunks.
    ///
    /// - Throws: ``FileReadError`` if the file cannot be opened or read.
    public static func hash(file path: String) throws(FileReadError) -> String {
        hex(try digest(file: path))
    }

    /// The 32-byte digest of the file at `path`, read in 64 KiB chunks.
    public static func digest(file path: String) throws(FileReadError) -> [UInt8] {
        let fd: Int32
        switch RegularFile.open(path) {
        case .success(let opened): fd = opened.descriptor
        case .failure(let error): throw error
        }
        defer { close(fd) }
        let chunkSize = 64 * 1024
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { chunk.deallocate() }
        var hash = SHA256()
        while true {
            let n = SystemCall.retryingInterrupted { read(fd, chunk.baseAddress, chunkSize) }
            if n > 0 {
                hash.update(UnsafeRawBufferPointer(rebasing: chunk[0..<n]))
            } else if n == 0 {
                break
            } else {
                throw FileReadError(path: path, operation: "cannot read", code: errno)
            }
        }
        return hash.finalize()
    }

    // MARK: - The compression function

    struct State {
        var a, b, c, d, e, f, g, h: UInt32
        static let initial = State(a: 0x6a09e667, b: 0xbb67ae85, c: 0x3c6ef372, d: 0xa54ff53a,
                                   e: 0x510e527f, f: 0x9b05688c, g: 0x1f83d9ab, h: 0x5be0cd19)
    }

    /// 64 bytes, inline (no heap allocation).
    struct Block { var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0) }

    static let roundConstants: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    @inline(__always)
    private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x &>> n) | (x &<< (32 &- n)) }

    /// Whether this CPU has the SHA extensions (and SSE4.1), checked once.
    static let hardwareAvailable = tessera_sha256_hw_available() != 0

    /// Runs the compression function over `blocks`, whose size is a multiple of 64: with the SHA
    /// extensions when the CPU has them, unless `portable`, else in Swift.
    static func compress(_ state: inout State, _ blocks: UnsafeRawBufferPointer, portable: Bool = false) {
        precondition(blocks.count % blockSize == 0)
        guard let base = blocks.baseAddress, !blocks.isEmpty else { return }
        if !portable && hardwareAvailable {
            // State is eight UInt32s in order a ... h, the layout the C side takes as uint32_t[8].
            withUnsafeMutableBytes(of: &state) { words in
                tessera_sha256_hw_compress(words.baseAddress!.assumingMemoryBound(to: UInt32.self),
                                           base.assumingMemoryBound(to: UInt8.self), blocks.count / blockSize)
            }
        } else {
            compressPortable(&state, base, count: blocks.count)
        }
    }

    /// The compression function in Swift, over the `count` bytes (a multiple of 64) at `base`.
    static func compressPortable(_ state: inout State, _ base: UnsafeRawPointer, count: Int) {
        roundConstants.withUnsafeBufferPointer { k in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
                var s = state
                var offset = 0
                while offset < count {
                    for t in 0..<16 {
                        w[t] = UInt32(bigEndian: base.loadUnaligned(fromByteOffset: offset &+ 4 &* t, as: UInt32.self))
                    }
                    for t in 16..<64 {
                        let x = w[t &- 15], y = w[t &- 2]
                        let s0 = rotr(x, 7) ^ rotr(x, 18) ^ (x &>> 3)
                        let s1 = rotr(y, 17) ^ rotr(y, 19) ^ (y &>> 10)
                        w[t] = w[t &- 16] &+ s0 &+ w[t &- 7] &+ s1
                    }
                    var a = s.a, b = s.b, c = s.c, d = s.d, e = s.e, f = s.f, g = s.g, h = s.h
                    for t in 0..<64 {
                        let t1 = h &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ ((e & f) ^ (~e & g)) &+ k[t] &+ w[t]
                        let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
                        h = g; g = f; f = e; e = d &+ t1
                        d = c; c = b; b = a; a = t1 &+ t2
                    }
                    s.a &+= a; s.b &+= b; s.c &+= c; s.d &+= d
                    s.e &+= e; s.f &+= f; s.g &+= g; s.h &+= h
                    offset &+= blockSize
                }
                state = s
            }
        }
    }
}

/// A file could not be opened or read.
public struct FileReadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file.
    public let path: String
    /// What failed and why, e.g. `cannot open: No such file or directory`.
    public let reason: String
    /// The `errno` value, when there was one.
    public let code: Int32?

    public init(path: String, reason: String, code: Int32? = nil) {
        self.path = path
        self.reason = reason
        self.code = code
    }

    init(path: String, operation: String, code: Int32) {
        self.init(path: path, reason: "\(operation): \(String(cString: strerror(code)))", code: code)
    }

    /// The reason, without the path (callers name the file).
    public var description: String { reason }
}
