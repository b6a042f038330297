import TesseraSDK
import Foundation
import TesseraLoader

/// Bearer token secrets: how one is made, and how a presented one is compared with a stored hash.
///
/// A token is `tsr_` and 32 bytes from the system's cryptographic random source (`getrandom` on
/// Linux), base64url-encoded: 256 bits, so guessing is hopeless and a fast hash is enough to store
/// it (no password stretching needed, unlike a person's password). Only its SHA-256 is kept.
public enum TokenSecret {
    /// Marks a Tessera token, so a leaked one is recognisable by secret scanners and people.
    static let prefix = "tsr_"

    /// A new random token.
    static func generate() -> String {
        var random = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &random) }
        let base64 = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return prefix + base64
    }

    /// The SHA-256 of the token's UTF-8 bytes: what the token file stores.
    public static func hash(_ token: String) -> [UInt8] { SHA256.digest(Array(token.utf8)) }

    /// Whether two digests are equal, in time that depends only on their length — never on where
    /// they first differ, which would let a caller learn a stored hash byte by byte.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
