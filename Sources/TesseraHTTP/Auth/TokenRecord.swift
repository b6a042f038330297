import Foundation
import TesseraSDK

/// One token as the token file keeps it: a name, a role, and the SHA-256 of the secret — never the
/// secret itself.
public struct TokenRecord: Sendable, Hashable {
    /// The token's name; calls made with it run as the principal with this id.
    public var name: String
    /// `admin`, `user` or `metrics`.
    public var role: Principal.Role
    /// SHA-256 of the secret.
    public var digest: [UInt8]
    /// When it was made (or last rotated), ISO 8601.
    public var created: String

    /// The roles a token may carry (`system` is the host's own).
    public static let roles: [Principal.Role] = [.admin, .user, .metrics]
    /// The name of the token a device host makes on first start.
    public static let adminName = "admin"

    var json: JSONValue {
        .object(["name": .string(name), "role": .string(role.rawValue), "sha256": .string(Self.hex(digest)),
                 "created": .string(created)])
    }

    init(name: String, role: Principal.Role, digest: [UInt8], created: String) {
        self.name = name
        self.role = role
        self.digest = digest
        self.created = created
    }

    /// Reads one entry of the file's `tokens` array; `nil` if it is malformed.
    init?(json: JSONValue) {
        guard let name = json["name"]?.stringValue, let role = json["role"]?.stringValue,
              Self.roles.map(\.rawValue).contains(role), let hex = json["sha256"]?.stringValue,
              let digest = Self.bytes(hex: hex), digest.count == 32 else { return nil }
        self.init(name: name, role: Principal.Role(rawValue: role), digest: digest, created: json["created"]?.stringValue ?? "")
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var out: [UInt8] = []
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[i...i + 1], as: UTF8.self), radix: 16) else { return nil }
            out.append(byte)
        }
        return out
    }
}

extension Principal.Role {
    /// A token that reads `GET /metrics` and nothing else: what a Prometheus server is given
    /// (issue 46). No operation is open to it, and every other route refuses it with 403.
    public static let metrics = Principal.Role(rawValue: "metrics")
}
