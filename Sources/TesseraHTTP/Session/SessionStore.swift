import Foundation
import Synchronization
import TesseraSDK

/// The console's sign-in sessions: a random secret in an HttpOnly cookie, the SHA-256 of it here
/// (`<data>/sessions.json`, mode 0600, so a person stays signed in across a restart), with the
/// account it stands for and when it ends.
///
/// Checked on every request that comes without a bearer token, from memory; written only when a
/// session starts or ends. Times are the host's clock (virtual in tests and demos).
final class SessionStore: Sendable {
    static let fileName = "sessions.json"
    /// How long a session lasts: a month, as people expect of an app on their phone.
    static let lifetime: TimeInterval = 30 * 86400

    struct Session: Sendable {
        var digest: [UInt8]
        var name: String
        var role: Principal.Role
        var expires: Date
    }

    private let file: PrivateJSONFile
    private let sessions: Mutex<[Session]>

    init(dataDirectory: String) {
        file = PrivateJSONFile(path: (dataDirectory as NSString).appendingPathComponent(Self.fileName))
        sessions = Mutex(Self.read(file))
    }

    /// Starts a session for `name`; returns the secret for the cookie (never stored).
    func start(name: String, role: Principal.Role, now: Date) throws -> String {
        let secret = TokenSecret.generate()
        let session = Session(digest: TokenSecret.hash(secret), name: name, role: role, expires: now.addingTimeInterval(Self.lifetime))
        try update(now: now) { $0.append(session) }
        return secret
    }

    /// The principal of the session whose secret is `secret`, if it has not ended.
    func principal(for secret: String, now: Date) -> Principal? {
        let digest = TokenSecret.hash(secret)
        return sessions.withLock { all in
            var match: Session?
            for session in all where TokenSecret.constantTimeEqual(session.digest, digest) { match = session }
            guard let match, match.expires > now else { return nil }
            return Principal(id: match.name, role: match.role)
        }
    }

    /// Ends the session whose secret is `secret` (nothing if there is none).
    func end(_ secret: String, now: Date) throws {
        let digest = TokenSecret.hash(secret)
        try update(now: now) { $0.removeAll { TokenSecret.constantTimeEqual($0.digest, digest) } }
    }

    /// Ends every session of `name` (their account was removed, or their password changed).
    func endAll(of name: String, now: Date) throws {
        let key = name.lowercased()
        try update(now: now) { $0.removeAll { $0.name.lowercased() == key } }
    }

    /// Changes the sessions, drops the ended ones, and writes the file.
    private func update(now: Date, _ body: (inout [Session]) -> Void) throws {
        try file.whileLocked {
            let snapshot = sessions.withLock { all -> [Session] in
                body(&all)
                all.removeAll { $0.expires <= now }
                return all
            }
            try file.write(.object(["sessions": .array(snapshot.map(Self.json))]))
        }
    }

    private static func json(_ session: Session) -> JSONValue {
        ["sha256": .string(TokenRecord.hex(session.digest)), "name": .string(session.name), "role": .string(session.role.rawValue),
         "expiresMs": .integer(Int64(session.expires.timeIntervalSince1970 * 1000))]
    }

    private static func read(_ file: PrivateJSONFile) -> [Session] {
        guard let entries = (try? file.read())??["sessions"]?.arrayValue else { return [] }
        return entries.compactMap { entry in
            guard let hex = entry["sha256"]?.stringValue, let digest = TokenRecord.bytes(hex: hex), digest.count == 32,
                  let name = entry["name"]?.stringValue, let role = entry["role"]?.stringValue,
                  role == Principal.Role.admin.rawValue || role == Principal.Role.user.rawValue,
                  let expires = entry["expiresMs"]?.integerValue else { return nil }
            return Session(digest: digest, name: name, role: Principal.Role(rawValue: role),
                           expires: Date(timeIntervalSince1970: Double(expires) / 1000))
        }
    }
}
