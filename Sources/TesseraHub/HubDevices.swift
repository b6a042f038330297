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

    /// A person as the operator sees them: never a password or a token.
    public struct PersonRecord: Sendable, Hashable, Codable {
        public let id: String
        public let name: String
        public let createdAtMillis: Int64
        /// How many devices are logged in.
        public let devices: Int
        /// When one of their devices last reached the hub (to the hour), if any did.
        public let lastSeenMillis: Int64?
    }

    /// Everyone, by name: the operator's view (`tessera hub person list`).
    public func people() async throws(HubError) -> [PersonRecord] {
        try await transaction { connection in
            try await connection.fetchAll("""
                SELECT p.id, p.name, p.created_ms, COUNT(d.id), MAX(COALESCE(d.last_used_ms, d.created_ms))
                FROM hub_people p LEFT JOIN hub_devices d ON d.person = p.id GROUP BY p.id, p.name, p.created_ms ORDER BY p.name
                """, []).map {
                PersonRecord(id: $0[0].text ?? "", name: $0[1].text ?? "", createdAtMillis: $0[2].integer ?? 0,
                             devices: Int($0[3].integer ?? 0), lastSeenMillis: $0[4].integer)
            }
        }
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
