import Foundation

/// A person's devices: each login made one. Revoking one deletes its token's hash, so the token
/// stops working at once (a lost phone).
extension HubStore {
    /// One of a person's devices (never its token).
    public struct DeviceRecord: Sendable, Hashable, Codable {
        public let id: String
        public let name: String
        public let createdAtMillis: Int64
    }

    /// `person`'s devices, in the order they logged in.
    public func devices(of person: String) async throws(HubError) -> [DeviceRecord] {
        try await transaction { connection in
            try await connection.fetchAll("SELECT id, name, created_ms FROM hub_devices WHERE person = ? ORDER BY created_ms, rowid", [.text(person)])
                .map { DeviceRecord(id: $0[0].text ?? "", name: $0[1].text ?? "", createdAtMillis: $0[2].integer ?? 0) }
        }
    }

    /// Revokes one of `person`'s devices (its token stops working).
    ///
    /// - Throws: `device_not_found` (404) for a device that is not theirs.
    public func revokeDevice(_ id: String, of person: String) async throws(HubError) {
        try await transaction { connection in
            let deleted = try await connection.execute("DELETE FROM hub_devices WHERE id = ? AND person = ?", [.text(id), .text(person)])
            guard deleted == 1 else {
                throw HubError(.notFound, "device_not_found", "you have no device \(id)")
            }
        }
    }
}
