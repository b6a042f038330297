import TesseraSDK
import TesseraLoader

/// Random secrets (device tokens, invitation codes) and the hashes the hub keeps of them.
///
/// They carry 256 (tokens) or 80 (codes, which also expire and are single use) random bits, so a
/// plain SHA-256 suffices to store them: there is nothing to guess by brute force, unlike a password.
enum HubSecrets {
    /// A device token: `tsd_` and 64 hex digits.
    static func deviceToken() -> String { "tsd_" + hex(randomBytes(32)) }

    /// A webhook channel's signing secret: `whsec_` and 64 hex digits. The hub keeps it as it is
    /// (it signs with it) and shows it once, when the channel is added.
    static func webhookSecret() -> String { "whsec_" + hex(randomBytes(32)) }

    /// An invitation code a person can read out or type: 20 characters of an unambiguous alphabet,
    /// in groups of four (`K7QM-3XPA-…`).
    static func invitationCode() -> String {
        let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")  // 31 symbols, no 0/O, 1/I/L
        var generator = SystemRandomNumberGenerator()
        var characters: [Character] = []
        for i in 0..<20 {
            if i > 0, i % 4 == 0 { characters.append("-") }
            characters.append(alphabet[Int(generator.next(upperBound: UInt32(alphabet.count)))])
        }
        return String(characters)
    }

    /// A password-reset code: 7 decimal digits, uniformly drawn (specs/baby-diary.md UC6).
    static func resetCode() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next(upperBound: UInt32(10_000_000))
        let digits = String(value)
        return String(repeating: "0", count: 7 - digits.count) + digits
    }

    /// An invitation code as typed: uppercase, without blanks (dashes kept), so `k7qm-3xpa…` works.
    static func normalizedCode(_ code: String) -> String {
        String(code.uppercased().filter { !$0.isWhitespace })
    }

    /// What the hub stores of a secret.
    static func sha256(_ secret: String) -> [UInt8] { SHA256.digest(Array(secret.utf8)) }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    static func hex(_ bytes: [UInt8]) -> String { SHA256.hex(bytes) }
}
