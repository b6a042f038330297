import TesseraSDK
import TesseraSQLite
import TesseraSync

/// What a device knows of its person's per-plugin roles (docs/sync.md, "Per-plugin roles"), kept
/// in `sync-peers.sqlite` so the record API refuses offline what the hub would refuse.
extension SyncPeerState {
    /// This person's standing in one shared space: their plugin role there and the space's rules.
    public struct SpaceStanding: Sendable, Hashable {
        public var pluginRole: String?
        public var rules: SyncRoleRules?

        public init(pluginRole: String?, rules: SyncRoleRules?) {
            self.pluginRole = pluginRole
            self.rules = rules
        }

        /// The rule this person's changes in the space are held to; `nil` when nothing restricts them.
        public var rule: SyncRoleRules.Role? {
            guard let pluginRole else { return nil }
            return rules?.roles[pluginRole] ?? .unknown
        }
    }

    /// Replaces what is known of `plugin`'s spaces with the hub's answer (spaces not in it are
    /// forgotten: the person left them, or they never were theirs).
    public func replaceSpaceRoles(_ roles: [String: SpaceStanding], hub: String, plugin: String) throws {
        try database.withConnection { db in
            try db.transaction {
                try db.cachedStatement("DELETE FROM space_roles WHERE hub = ? AND plugin = ?").execute([.text(hub), .text(plugin)])
                for (space, role) in roles { try Self.insert(role, space: space, hub: hub, plugin: plugin, on: db) }
            }
        }
    }

    /// Records this person's standing in one space (after joining it).
    public func setSpaceRole(_ role: SpaceStanding, space: String, hub: String, plugin: String) throws {
        try database.withConnection { db in try Self.insert(role, space: space, hub: hub, plugin: plugin, on: db) }
    }

    /// This person's standing in `space`, if the hub told it.
    public func spaceRole(space: String, hub: String, plugin: String) throws -> SpaceStanding? {
        try database.withConnection { db in
            try db.cachedStatement("SELECT plugin_role, rules FROM space_roles WHERE hub = ? AND plugin = ? AND space = ?")
                .fetchOne([.text(hub), .text(plugin), .text(space)])
                .map { SpaceStanding(pluginRole: $0[0].text, rules: try SyncRoleRules.parse($0[1].text)) }
        }
    }

    /// Notes rows this person created in `space`.
    public func addOwnRows(_ rows: [(table: String, row: String)], space: String, hub: String, plugin: String) throws {
        guard !rows.isEmpty else { return }
        try database.withConnection { db in
            try db.transaction {
                let insert = try db.cachedStatement("INSERT OR IGNORE INTO own_rows (hub, plugin, space, tbl, row_id) VALUES (?, ?, ?, ?, ?)")
                for (table, row) in rows { try insert.execute([.text(hub), .text(plugin), .text(space), .text(table), .text(row)]) }
            }
        }
    }

    /// Whether this person created the row.
    public func isOwnRow(table: String, row: String, space: String, hub: String, plugin: String) throws -> Bool {
        try database.withConnection { db in
            try db.cachedStatement("SELECT 1 FROM own_rows WHERE hub = ? AND plugin = ? AND space = ? AND tbl = ? AND row_id = ?")
                .fetchOne([.text(hub), .text(plugin), .text(space), .text(table), .text(row)]) != nil
        }
    }

    /// Forgets what was known of a space this device dropped.
    public func forgetSpaceRoles(space: String, hub: String, plugin: String) throws {
        try database.withConnection { db in
            try db.cachedStatement("DELETE FROM space_roles WHERE hub = ? AND plugin = ? AND space = ?").execute([.text(hub), .text(plugin), .text(space)])
            try db.cachedStatement("DELETE FROM own_rows WHERE hub = ? AND plugin = ? AND space = ?").execute([.text(hub), .text(plugin), .text(space)])
        }
    }

    private static func insert(_ role: SpaceStanding, space: String, hub: String, plugin: String, on db: SQLiteConnection) throws {
        try db.cachedStatement("INSERT OR REPLACE INTO space_roles (hub, plugin, space, plugin_role, rules) VALUES (?, ?, ?, ?, ?)")
            .execute([.text(hub), .text(plugin), .text(space), role.pluginRole.map { .text($0) } ?? .null,
                      role.rules.map { .text($0.json.serialized()) } ?? .null])
    }
}

extension SyncPeerState {
    /// Forgets everything kept about `hub` (cursors, push marks, spaces made offline, roles, own
    /// rows) and what plugins were not told yet: a device logging out starts afresh.
    public func forget(hub: String) throws {
        try database.withConnection { db in
            try db.transaction {
                for table in ["cursors", "pushed", "unregistered_spaces", "space_roles", "own_rows"] {
                    try db.execute("DELETE FROM \(table) WHERE hub = ?", [.text(hub)])
                }
                try db.execute("DELETE FROM untold")
            }
        }
    }
}
