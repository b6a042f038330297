import Foundation

/// PBKDF2-HMAC-SHA256 (RFC 8018) for the PIN (F4): a slow, salted hash, stored only on the device.
///
/// The HMAC's inner and outer key states are computed once per derivation, so each iteration
/// costs two compressions of one block: a 32-byte message plus padding fits in one.
///
/// A module of its own, compiled optimised in debug builds too (Package.swift): its 210,000
/// iterations took 13.5 s of CPU unoptimised (issue 43), and the module's other calls waited.
public enum PINHash {
    /// The stored form: `pbkdf2-sha256$ITERATIONS$SALT_HEX$HASH_HEX`.
    public static func make(pin: String, salt: [UInt8], iterations: Int) -> String {
        let derived = pbkdf2(password: Array(pin.utf8), salt: salt, iterations: iterations)
        return "pbkdf2-sha256$\(iterations)$\(hex(salt))$\(hex(derived))"
    }

    /// Whether `pin` matches `stored`, comparing in constant time.
    public static func verify(pin: String, stored: String) -> Bool {
        let parts = stored.split(separator: "$").map(String.init)
        guard parts.count == 4, parts[0] == "pbkdf2-sha256", let iterations = Int(parts[1]), iterations > 0,
              let salt = unhex(parts[2]), let expected = unhex(parts[3]) else { return false }
        let derived = pbkdf2(password: Array(pin.utf8), salt: salt, iterations: iterations)
        guard derived.count == expected.count else { return false }
        return zip(derived, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// One 32-byte block of PBKDF2 (block index 1: SHA-256's output is the key's length).
    public static func pbkdf2(password: [UInt8], salt: [UInt8], iterations: Int) -> [UInt8] {
        let hmac = HMACKey(password)
        var u = hmac.mac(salt + [0, 0, 0, 1])
        var result = u
        var scratch = [UInt32](repeating: 0, count: 64)
        for _ in 1..<max(iterations, 1) {
            u = hmac.macOfDigest(u, scratch: &scratch)
            for i in 0..<32 { result[i] ^= u[i] }
        }
        return result
    }

    /// Lowercase hexadecimal.
    public static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// The bytes of lowercase or uppercase hexadecimal, or nil.
    public static func unhex(_ text: String) -> [UInt8]? {
        guard text.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}

/// An HMAC-SHA256 key with its inner and outer states precomputed.
private struct HMACKey {
    let inner: [UInt32]
    let outer: [UInt32]

    init(_ key: [UInt8]) {
        var block = key.count > 64 ? SHA256.hash(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        var scratch = [UInt32](repeating: 0, count: 64)
        var inner = SHA256.initial, outer = SHA256.initial
        SHA256.compress(&inner, block.map { $0 ^ 0x36 }, at: 0, scratch: &scratch)
        SHA256.compress(&outer, block.map { $0 ^ 0x5c }, at: 0, scratch: &scratch)
        self.inner = inner
        self.outer = outer
    }

    /// HMAC of any message (used once per derivation, for the salt).
    func mac(_ message: [UInt8]) -> [UInt8] {
        var scratch = [UInt32](repeating: 0, count: 64)
        let innerDigest = finish(inner, message, prefixLength: 64, scratch: &scratch)
        return finish(outer, innerDigest, prefixLength: 64, scratch: &scratch)
    }

    /// HMAC of a 32-byte digest: the hot loop, two compressions.
    func macOfDigest(_ digest: [UInt8], scratch: inout [UInt32]) -> [UInt8] {
        let innerDigest = finish(inner, digest, prefixLength: 64, scratch: &scratch)
        return finish(outer, innerDigest, prefixLength: 64, scratch: &scratch)
    }

    /// Hashes `message` from `state`, which has already absorbed `prefixLength` bytes.
    private func finish(_ state: [UInt32], _ message: [UInt8], prefixLength: Int, scratch: inout [UInt32]) -> [UInt8] {
        var state = state
        var padded = message
        padded.append(0x80)
        while padded.count % 64 != 56 { padded.append(0) }
        let bits = UInt64(prefixLength + message.count) &* 8
        for shift in stride(from: 56, through: 0, by: -8) { padded.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        for block in stride(from: 0, to: padded.count, by: 64) { SHA256.compress(&state, padded, at: block, scratch: &scratch) }
        return SHA256.bytes(state)
    }
}
