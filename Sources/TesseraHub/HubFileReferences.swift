import TesseraSDK
import TesseraSync

/// The file addresses that synced records carry, as the hub sees them in pushes (docs/hub.md,
/// "Files"): for each cell whose current value is an address (``SyncChange/fileAddress``), one
/// row of `hub_file_refs` naming the plugin, space, table, row, column, the address, who wrote it
/// and when. The hub never materialises rows; this is the one thing it keeps of values, because
/// it decides who may fetch a file from it.
///
/// Last writer wins, as on the devices: a newer write of the cell replaces the reference (or,
/// when the new value is not an address, removes it); a deletion of the row removes the
/// references written before it.
enum HubFileReferences {
    /// The lock that orders the writing of references with the collection of files, so a file a
    /// push has just referred to is never removed under it (`HubFileCollector`).
    static let lock = "files"

    /// Records what `changes` (new to the hub, just stored) do to the references of `plugin`.
    static func record(_ changes: [SyncChange], plugin: String, person: String, on connection: any HubSQL) async throws {
        let referring = changes.filter { $0.fileAddress != nil }
        // Cells and rows that may overwrite a reference: only in tables whose cells hold one already.
        let held = try await referencedTables(plugin: plugin, spaces: Set(changes.map(\.space)), on: connection)
        let overwriting = changes.filter { $0.fileAddress == nil && held.contains(TableKey(space: $0.space, table: $0.table)) }
        guard !referring.isEmpty || !overwriting.isEmpty else { return }
        try await connection.lock(lock)
        for change in referring {
            try await connection.execute("""
                INSERT INTO hub_file_refs(plugin, space, tbl, row_id, col, address, person, ts) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (plugin, space, tbl, row_id, col) DO UPDATE
                SET address = excluded.address, person = excluded.person, ts = excluded.ts WHERE hub_file_refs.ts < excluded.ts
                """, [.text(plugin), .text(change.space), .text(change.table), .text(change.row), .text(change.column),
                      .text(change.fileAddress ?? ""), .text(person), .text(change.timestamp.text)])
        }
        for change in overwriting {
            if case .existence = change.kind {
                guard !change.isAlive else { continue }
                try await connection.execute("""
                    DELETE FROM hub_file_refs WHERE plugin = ? AND space = ? AND tbl = ? AND row_id = ? AND ts < ?
                    """, [.text(plugin), .text(change.space), .text(change.table), .text(change.row), .text(change.timestamp.text)])
            } else {
                try await connection.execute("""
                    DELETE FROM hub_file_refs WHERE plugin = ? AND space = ? AND tbl = ? AND row_id = ? AND col = ? AND ts < ?
                    """, [.text(plugin), .text(change.space), .text(change.table), .text(change.row), .text(change.column),
                          .text(change.timestamp.text)])
            }
        }
    }

    struct TableKey: Hashable {
        let space: String
        let table: String
    }

    /// The (space, table) pairs of `plugin` in which some cell refers to a file: one query per push.
    static func referencedTables(plugin: String, spaces: Set<String>, on connection: any HubSQL) async throws -> Set<TableKey> {
        guard !spaces.isEmpty else { return [] }
        let sorted = spaces.sorted()
        let rows = try await connection.fetchAll("""
            SELECT DISTINCT space, tbl FROM hub_file_refs WHERE plugin = ? AND space IN (\(HubStore.placeholders(sorted.count)))
            """, [.text(plugin)] + sorted.map { .text($0) })
        return Set(rows.map { TableKey(space: $0[0].text ?? "", table: $0[1].text ?? "") })
    }
}
