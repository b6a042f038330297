import Foundation
import TesseraSQLite
import TesseraSync

/// What a device remembers about a hub, per plugin: the pull cursor, and the last timestamp it
/// pushed in each space. Kept in `<data>/sync-peers.sqlite`.
///
/// Both only save work: pulling a page again or pushing a change again is harmless (the store
/// recognises changes it holds, the hub answers duplicates), so the cursor is saved after its
/// page is applied and a push mark after the hub answered — a crash in between repeats a step,
/// never skips one.
public final class SyncPeerState: Sendable {
    let database: SQLiteDatabase

    /// Opens (creating) the state file at `path`.
    public init(path: String) throws {
        database = try SQLiteDatabase(path: path)
        try database.migrate(SyncPeerStateSchema.schema)
    }

    /// The pull cursor for all spaces (`space` = `""`) or one space's catch-up; 0 if none.
    public func cursor(hub: String, plugin: String, space: String = "") throws -> Int64 {
        try database.withConnection { db in
            try db.cachedStatement("SELECT cursor FROM cursors WHERE hub = ? AND plugin = ? AND space = ?")
                .fetchOne([.text(hub), .text(plugin), .text(space)])?.first?.integer ?? 0
        }
    }

    func setCursor(_ cursor: Int64, hub: String, plugin: String, space: String = "") throws {
        try database.withConnection { db in
            try db.cachedStatement("INSERT OR REPLACE INTO cursors (hub, plugin, space, cursor) VALUES (?, ?, ?, ?)")
                .execute([.text(hub), .text(plugin), .text(space), .integer(cursor)])
        }
    }

    /// The last timestamp pushed in `space`, or `nil` if nothing was.
    public func lastPushed(hub: String, plugin: String, space: String) throws -> HLCTimestamp? {
        let text = try database.withConnection { db in
            try db.cachedStatement("SELECT timestamp FROM pushed WHERE hub = ? AND plugin = ? AND space = ?")
                .fetchOne([.text(hub), .text(plugin), .text(space)])?.first?.text
        }
        return try text.map(HLCTimestamp.init(parsing:))
    }

    func setLastPushed(_ timestamp: HLCTimestamp?, hub: String, plugin: String, space: String) throws {
        try database.withConnection { db in
            if let timestamp {
                try db.cachedStatement("INSERT OR REPLACE INTO pushed (hub, plugin, space, timestamp) VALUES (?, ?, ?, ?)")
                    .execute([.text(hub), .text(plugin), .text(space), .text(timestamp.text)])
            } else {
                try db.cachedStatement("DELETE FROM pushed WHERE hub = ? AND plugin = ? AND space = ?")
                    .execute([.text(hub), .text(plugin), .text(space)])
            }
        }
    }

    // MARK: Spaces created offline

    /// Keeps a shared space created while the hub was out of reach, to register at the next round.
    public func keepUnregistered(space: String, name: String, hub: String, plugin: String) throws {
        try database.withConnection { db in
            try db.cachedStatement("INSERT OR REPLACE INTO unregistered_spaces (hub, plugin, space, name) VALUES (?, ?, ?, ?)")
                .execute([.text(hub), .text(plugin), .text(space), .text(name)])
        }
    }

    /// The plugin's spaces created offline and not registered yet: (space, name), in id order.
    public func unregisteredSpaces(hub: String, plugin: String) throws -> [(space: String, name: String)] {
        try database.withConnection { db in
            try db.cachedStatement("SELECT space, name FROM unregistered_spaces WHERE hub = ? AND plugin = ? ORDER BY space")
                .fetchAll([.text(hub), .text(plugin)]).map { ($0[0].text ?? "", $0[1].text ?? "") }
        }
    }

    /// Forgets a space once the hub has registered it.
    public func forgetUnregistered(space: String, hub: String, plugin: String) throws {
        try database.withConnection { db in
            try db.cachedStatement("DELETE FROM unregistered_spaces WHERE hub = ? AND plugin = ? AND space = ?")
                .execute([.text(hub), .text(plugin), .text(space)])
        }
    }

    // MARK: Changes a plugin was not told of

    /// Replaces what `plugin` has yet to be told (the host's encoding) with `merge` of it, in one
    /// step; `merge` returning `nil` clears it.
    public func mergeUntold(plugin: String, _ merge: ([UInt8]?) throws -> [UInt8]?) throws {
        try database.withConnection { db in
            try db.transaction {
                let current = try db.cachedStatement("SELECT changes FROM untold WHERE plugin = ?").fetchOne([.text(plugin)])?.first?.blob
                if let merged = try merge(current) {
                    try db.cachedStatement("INSERT OR REPLACE INTO untold (plugin, changes) VALUES (?, ?)").execute([.text(plugin), .blob(merged)])
                } else {
                    try db.cachedStatement("DELETE FROM untold WHERE plugin = ?").execute([.text(plugin)])
                }
            }
        }
    }

    /// What `plugin` has yet to be told, if anything.
    public func untold(plugin: String) throws -> [UInt8]? {
        try database.withConnection { db in
            try db.cachedStatement("SELECT changes FROM untold WHERE plugin = ?").fetchOne([.text(plugin)])?.first?.blob
        }
    }
}
