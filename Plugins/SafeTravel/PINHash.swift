import Foundation
import TesseraSDK

/// PBKDF2-HMAC-SHA256 (RFC 8018) for the PIN (F4): a slow, salted hash, stored only on the device.
///
/// The derivation is the SDK's (`SHA256.derivedKey`), whose rounds run in C compiled optimised in
/// every build: 210,000 iterations took 13.5 s of CPU in unoptimised Swift (issue 43).
enum PINHash {
    /// The stored form: `pbkdf2-sha256$ITERATIONS$SALT_HEX$HASH_HEX`.
    static func make(pin: String, salt: [UInt8], iterations: Int) -> String {
        let derived = pbkdf2(password: Array(pin.utf8), salt: salt, iterations: iterations)
        return "pbkdf2-sha256$\(iterations)$\(hex(salt))$\(hex(derived))"
    }

    /// Whether `pin` matches `stored`, comparing in constant time.
    static func verify(pin: String, stored: String) -> Bool {
        let parts = stored.split(separator: "$").map(String.init)
        guard parts.count == 4, parts[0] == "pbkdf2-sha256", let iterations = Int(parts[1]), iterations > 0,
              let salt = unhex(parts[2]), let expected = unhex(parts[3]) else { return false }
        return SHA256.constantTimeEquals(pbkdf2(password: Array(pin.utf8), salt: salt, iterations: iterations), expected)
    }

    /// The 32-byte PBKDF2-HMAC-SHA256 key (the SDK's).
    static func pbkdf2(password: [UInt8], salt: [UInt8], iterations: Int) -> [UInt8] {
        SHA256.derivedKey(password: password, salt: salt, iterations: iterations)
    }

    /// Lowercase hexadecimal.
    static func hex(_ bytes: [UInt8]) -> String { SHA256.hex(bytes) }

    /// The bytes of lowercase or uppercase hexadecimal, or nil.
    static func unhex(_ text: String) -> [UInt8]? {
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
