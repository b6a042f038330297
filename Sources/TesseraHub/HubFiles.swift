import Foundation
import TesseraSDK

/// Files through the hub (docs/hub.md, "Files"): a device uploads the bytes of a file its records
/// refer to, and another member's device fetches them when it first reads the file.
///
/// - **Stored once**: the bytes of an address are kept once (``HubBlobStore``), whoever uploaded
///   them and however many spaces refer to them.
/// - **Proof of possession**: a person counts as having a file (a *holder*) only after sending its
///   whole bytes, or fetching them with the right to; knowing an address is not enough.
/// - **Who may fetch**: a member of a space (not deleted) holding a synced record of that plugin
///   that refers to the address, written by a holder. So a record in one's own space naming
///   someone else's address fetches nothing, and a revoked member fetches nothing more.
/// - **Quota**: the bytes a person uploaded count against their quota (the operator's,
///   ``HubFilePolicy``); a file they hold already costs nothing.
public final class HubFiles: Sendable {
    public let store: HubStore
    public let blobs: HubBlobStore
    public let policy: HubFilePolicy

    public init(store: HubStore, blobs: HubBlobStore, policy: HubFilePolicy = HubFilePolicy()) {
        self.store = store
        self.blobs = blobs
        self.policy = policy
    }

    /// What the hub holds of `address` for `person`: whether they need not upload it (the whole
    /// file is here and they hold it), and how many bytes of their upload arrived.
    public struct UploadState: Sendable, Hashable {
        public var held: Bool
        public var offset: Int64
    }

    /// The answer to one upload request.
    public struct UploadProgress: Sendable, Hashable {
        /// Bytes of the upload the hub holds.
        public var offset: Int64
        /// Whether the file is now whole, verified and stored.
        public var complete: Bool
    }

    public func uploadState(of address: String, person: String) async throws(HubError) -> UploadState {
        try Self.checkAddress(address)
        let holds = try await store.transaction { connection in
            try await connection.fetchOne("""
                SELECT 1 FROM hub_files f JOIN hub_file_holders h ON h.address = f.address AND h.person = ? WHERE f.address = ?
                """, [.text(person), .text(address)]) != nil
        }
        return UploadState(held: holds && blobs.contains(address), offset: blobs.partialSize(address, person: person))
    }

    /// Takes bytes `offset…` of `person`'s upload of `address` (`size` bytes in all) from `body`.
    /// Once all `size` bytes are here the file is hashed: stored if it matches its address (the
    /// person now holds it), deleted with `hash_mismatch` if not.
    ///
    /// - Throws: `payload_too_large` (413) past ``HubFilePolicy/maxFileBytes``; `quota_exceeded`
    ///   (507) past the person's quota (checked before any byte is kept, and again at the end);
    ///   `upload_offset` (409) when `offset` is not what the hub holds; `hash_mismatch` (422).
    public func upload<Body: AsyncSequence>(_ body: Body, address: String, size: Int64, offset: Int64,
                                            person: String) async throws(HubError) -> UploadProgress where Body.Element == [UInt8] {
        try Self.checkAddress(address)
        guard size > 0 else { throw HubError(.invalidInput, "invalid_input", "a file's size is at least 1 byte", field: "size") }
        if let limit = policy.maxFileBytes, size > limit {
            throw HubError(.payloadTooLarge, "payload_too_large",
                           "the file (\(size) bytes) is larger than the \(Self.megabytes(limit)) this hub takes in one file (maxFileMB)")
        }
        try await checkQuota(person: person, address: address, size: size)
        let now = store.nowMillis
        try await store.transaction { connection in
            try await connection.execute("""
                INSERT INTO hub_file_uploads(address, person, size, started_ms) VALUES (?, ?, ?, ?)
                ON CONFLICT (address, person) DO UPDATE SET size = excluded.size, started_ms = excluded.started_ms
                """, [.text(address), .text(person), .integer(size), .integer(now)])
        }
        let held: Int64
        do { held = try await blobs.append(body, to: address, person: person, offset: offset, size: size) } catch {
            throw error as? HubError ?? HubError(.invalidInput, "upload_interrupted", "the upload broke off: \(error); resume from the offset the hub reports")
        }
        guard held == size else { return UploadProgress(offset: held, complete: false) }
        let verified = try Self.asHubError { try blobs.verify(address, person: person) }
        try await checkQuota(person: person, address: address, size: size)
        try await store.transaction { connection in
            // Under the collector's lock: the file and its row appear together, never between a
            // collection's check and its removal.
            try await connection.lock(HubFileReferences.lock)
            try blobs.publish(verified: verified, as: address)
            try await connection.execute("""
                INSERT INTO hub_files(address, size, created_ms) VALUES (?, ?, ?) ON CONFLICT (address) DO UPDATE SET created_ms = excluded.created_ms
                """, [.text(address), .integer(size), .integer(now)])
            try await connection.execute("""
                INSERT INTO hub_file_holders(address, person, uploaded) VALUES (?, ?, 1) ON CONFLICT (address, person) DO UPDATE SET uploaded = 1
                """, [.text(address), .text(person)])
            try await connection.execute("DELETE FROM hub_file_uploads WHERE address = ? AND person = ?", [.text(address), .text(person)])
        }
        return UploadProgress(offset: size, complete: true)
    }

    /// Opens `address` for `person`, fetching for `plugin`: only if a space they are a member of
    /// holds a record of `plugin` referring to it, written by someone who holds it. They hold it
    /// from then on. `file_not_found` (404) otherwise, the same whether the hub has the bytes or
    /// not, so a non-member learns nothing.
    public func open(_ address: String, plugin: String, person: String) async throws(HubError) -> HubBlob {
        try Self.checkAddress(address)
        try HubStore.checkPlugin(plugin)
        let allowed = try await store.transaction { connection in
            let row = try await connection.fetchOne("""
                SELECT 1 FROM hub_file_refs r
                JOIN hub_members m ON m.space = r.space AND m.person = ?
                JOIN hub_spaces s ON s.id = r.space AND s.deleted = 0
                JOIN hub_file_holders h ON h.address = r.address AND h.person = r.person
                JOIN hub_files f ON f.address = r.address
                WHERE r.address = ? AND r.plugin = ? LIMIT 1
                """, [.text(person), .text(address), .text(plugin)])
            guard row != nil else { return false }
            try await connection.execute("""
                INSERT INTO hub_file_holders(address, person, uploaded) VALUES (?, ?, 0) ON CONFLICT (address, person) DO NOTHING
                """, [.text(address), .text(person)])
            return true
        }
        guard allowed, let blob = blobs.open(address) else {
            throw HubError(.notFound, "file_not_found",
                           "no file \(address) that a record of \(plugin) in one of your spaces refers to (or its bytes were not uploaded yet)")
        }
        return blob
    }

    /// Sets a person's quota (the operator's; `nil` returns them to the deployment's default).
    public func setQuota(personName: String, bytes: Int64?) async throws(HubError) {
        try await store.transaction { connection in
            guard let id = try await connection.fetchOne("SELECT id FROM hub_people WHERE name = ?", [.text(personName)])?[0].text else {
                throw HubError(.notFound, "person_not_found", "no person named '\(personName)'", field: "name")
            }
            if let bytes {
                try await connection.execute("""
                    INSERT INTO hub_file_quotas(person, quota_bytes) VALUES (?, ?) ON CONFLICT (person) DO UPDATE SET quota_bytes = excluded.quota_bytes
                    """, [.text(id), .integer(bytes)])
            } else {
                try await connection.execute("DELETE FROM hub_file_quotas WHERE person = ?", [.text(id)])
            }
        }
    }

    /// The bytes `person` uploaded that the hub keeps, and their quota (if any).
    public func usage(of person: String) async throws(HubError) -> (used: Int64, quota: Int64?) {
        try await store.transaction { connection in
            let used = try await connection.fetchOne("""
                SELECT CAST(COALESCE(SUM(f.size), 0) AS BIGINT) FROM hub_files f JOIN hub_file_holders h ON h.address = f.address
                WHERE h.person = ? AND h.uploaded = 1
                """, [.text(person)])?[0].integer ?? 0
            let set = try await connection.fetchOne("SELECT quota_bytes FROM hub_file_quotas WHERE person = ?", [.text(person)])?[0].integer
            return (used, set ?? policy.quotaBytesPerPerson)
        }
    }

    private func checkQuota(person: String, address: String, size: Int64) async throws(HubError) {
        let (used, quota) = try await usage(of: person)
        guard let quota else { return }
        let holds = try await store.transaction { connection in
            try await connection.fetchOne("SELECT 1 FROM hub_file_holders WHERE address = ? AND person = ? AND uploaded = 1",
                                          [.text(address), .text(person)]) != nil
        }
        guard !holds, used + size > quota else { return }
        throw HubError(.insufficientStorage, "quota_exceeded",
                       "your files on this hub would pass your quota of \(Self.megabytes(quota)) (quotaMBPerPerson, or the operator's setting for you): \(used) bytes used, \(size) more")
    }

    /// Runs a file-system step; its failure as a ``HubError`` (the store's, unless it is one).
    static func asHubError<T>(_ body: () throws -> T) throws(HubError) -> T {
        do { return try body() } catch { throw error as? HubError ?? HubError.store(error) }
    }

    /// Refuses an address that is not 64 lowercase hex digits before it names a path.
    static func checkAddress(_ address: String) throws(HubError) {
        guard address.utf8.count == 64, address.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw HubError(.invalidInput, "invalid_address", "a file's address is 64 lowercase hex digits (its SHA-256), found '\(address.prefix(80))'",
                           field: "address")
        }
    }

    static func megabytes(_ bytes: Int64) -> String {
        let mb = Double(bytes) / 1_048_576
        return mb == mb.rounded() ? "\(Int64(mb)) MB" : String(format: "%.2f MB", mb)
    }
}

/// The operator's limits on files at the hub (the hub deployment's `providers.hubFiles`).
public struct HubFilePolicy: Sendable, Hashable {
    /// The most bytes of files each person may have uploaded that the hub keeps (`quotaMBPerPerson`);
    /// unlimited if `nil`. The operator may set one person's otherwise (`tessera hub person quota`).
    public var quotaBytesPerPerson: Int64?
    /// The largest single file (`maxFileMB`); unlimited if `nil`.
    public var maxFileBytes: Int64?

    public init(quotaBytesPerPerson: Int64? = nil, maxFileBytes: Int64? = nil) {
        self.quotaBytesPerPerson = quotaBytesPerPerson
        self.maxFileBytes = maxFileBytes
    }
}
