import Foundation
import Synchronization
import TesseraSDK

/// The host's bearer tokens: made, rotated and revoked by `tessera token` and on a device host's
/// first start; checked by the server on every request.
///
/// The server keeps the records in memory and re-reads the file when it was replaced, so a token
/// rotated by another process works — and the old one stops working — at once, without a restart.
/// It notices a replacement by `tessera token` (any ``TokenStore``) through the write count the
/// writer advances in the lock file, mapped into memory (``TokenFileGeneration``: no system call
/// per request); a file replaced by other means through an inotify watch on the data directory,
/// read once per tick of the kernel's coarse clock (4 ms at 250 Hz), or on every request where the
/// count cannot be mapped. Either makes it compare the file's identity, and read it if it changed.
public final class TokenStore: Sendable {
    /// The file's name in the data directory.
    public static let fileName = "http-tokens.json"

    /// Where the tokens are kept.
    public var path: String { file.path }
    /// The data directory the file is in (the console's accounts and sessions are kept there too).
    public var dataDirectory: String { (file.path as NSString).deletingLastPathComponent }
    private let file: TokenFile
    private let cache = Mutex<Cache>(Cache())
    private let watch: FileChangeWatch
    private let generation: TokenFileGeneration?

    /// What the server last read, and when it last looked.
    private struct Cache {
        var identity: TokenFile.Identity?
        var records: [TokenRecord] = []
        /// The write count the records were read at or after.
        var generation: UInt64 = 0
        /// The coarse clock's reading when the watch was last read.
        var watchRead = timespec()
    }

    public convenience init(dataDirectory: String) {
        self.init(dataDirectory: dataDirectory, watching: dataDirectory)
    }

    /// A store whose inotify watch is on `watchedFolder` (the data directory; a test gives another,
    /// to see what the write count alone does).
    init(dataDirectory: String, watching watchedFolder: String) {
        file = TokenFile(path: (dataDirectory as NSString).appendingPathComponent(Self.fileName))
        watch = FileChangeWatch(folder: watchedFolder)
        generation = TokenFileGeneration(lockPath: file.lockPath)
    }

    // MARK: Checking

    /// The principal a presented token stands for; `nil` if no token matches. Every stored hash is
    /// compared, in constant time each, so the answer's timing says nothing about which came close.
    public func principal(for token: String) -> Principal? {
        let digest = TokenSecret.hash(token)
        let records = currentRecords()
        // By index: a `for record in` copies each record (four fields retained) to compare one.
        var match: Int?
        for i in records.indices where TokenSecret.constantTimeEqual(records[i].digest, digest) {
            match = i
        }
        return match.map { Principal(id: records[$0].name, role: records[$0].role) }
    }

    /// The records as the file holds them now; none if it cannot be read (every token is refused
    /// then, rather than a stale one accepted).
    private func currentRecords() -> [TokenRecord] {
        cache.withLock { cached in
            // Read under the lock: a request that finds nothing changed must not use records that
            // another request is about to replace because it took the change. The count first: a
            // writer advances it after its rename, so a new count finds the new file.
            let count = generation?.current ?? 0
            guard cached.identity == nil || count != cached.generation || watchReports(&cached) else { return cached.records }
            cached.generation = count
            let identity = file.identity()
            if cached.identity != identity || identity == nil {
                // Unreadable, the file accepts no token (every request is refused) until it is
                // fixed; writes read it again and fail loudly.
                cached.records = (try? file.read()) ?? []
                cached.identity = identity
            }
            return cached.records
        }
    }

    /// Whether the watch reports a change: on every request without the mapped count, else once
    /// per tick of the coarse clock (a `CLOCK_MONOTONIC_COARSE` read is the vDSO's, no system call).
    private func watchReports(_ cached: inout Cache) -> Bool {
        guard generation != nil else { return watch.changed() }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &now)
        guard now.tv_sec != cached.watchRead.tv_sec || now.tv_nsec != cached.watchRead.tv_nsec else { return false }
        cached.watchRead = now
        return watch.changed()
    }

    // MARK: Managing

    /// Every token's record (names, roles, dates; the hashes are of no use to a person).
    public func list() throws(TokenStoreError) -> [TokenRecord] { try file.read() }

    /// Makes the admin token if there is none. Returns its secret, which exists nowhere else: print it
    /// once for the operator, never log it. `nil` if an admin token exists already.
    public func ensureAdminToken() throws(TokenStoreError) -> String? {
        try file.whileLocked { () throws(TokenStoreError) -> String? in
            let records = try file.read()
            guard !records.contains(where: { $0.name == TokenRecord.adminName }) else { return nil }
            return try add(name: TokenRecord.adminName, role: .admin, to: records)
        }
    }

    /// Makes a new token; fails if the name is taken. Returns its secret.
    public func create(name: String, role: Principal.Role) throws(TokenStoreError) -> String {
        try Self.validate(name: name, role: role)
        return try file.whileLocked { () throws(TokenStoreError) -> String in
            let records = try file.read()
            guard !records.contains(where: { $0.name == name }) else { throw .exists(name) }
            return try add(name: name, role: role, to: records)
        }
    }

    /// Replaces the secret of the token `name` (keeping its role), so the old one stops working.
    /// Rotating `admin` when there is none makes it. Returns the new secret.
    public func rotate(name: String = TokenRecord.adminName) throws(TokenStoreError) -> String {
        try file.whileLocked { () throws(TokenStoreError) -> String in
            var records = try file.read()
            guard let index = records.firstIndex(where: { $0.name == name }) else {
                guard name == TokenRecord.adminName else { throw .notFound(name) }
                return try add(name: name, role: .admin, to: records)
            }
            let secret = TokenSecret.generate()
            records[index].digest = TokenSecret.hash(secret)
            records[index].created = Self.now()
            try file.write(records)
            return secret
        }
    }

    /// Deletes the token `name`.
    public func revoke(name: String) throws(TokenStoreError) {
        try file.whileLocked { () throws(TokenStoreError) in
            let records = try file.read()
            guard records.contains(where: { $0.name == name }) else { throw .notFound(name) }
            try file.write(records.filter { $0.name != name })
        }
    }

    private func add(name: String, role: Principal.Role, to records: [TokenRecord]) throws(TokenStoreError) -> String {
        let secret = TokenSecret.generate()
        try file.write(records + [TokenRecord(name: name, role: role, digest: TokenSecret.hash(secret), created: Self.now())])
        return secret
    }

    static func validate(name: String, role: Principal.Role) throws(TokenStoreError) {
        let allowed = "abcdefghijklmnopqrstuvwxyz0123456789._-"
        guard let first = name.first, first.isASCII, first.isLetter || first.isNumber, name.count <= 64,
              name.allSatisfy({ allowed.contains($0) }) else { throw .invalidName(name) }
        guard TokenRecord.roles.contains(role) else { throw .invalidRole(role.rawValue) }
    }

    private static func now() -> String { Date().formatted(.iso8601) }
}
