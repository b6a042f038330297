import TesseraSDK
import TesseraSync
import TesseraSyncClient

/// The device's side of per-plugin roles (docs/sync.md, "Per-plugin roles"): before a record
/// write in a shared space commits, its stamped changes are held to this person's plugin role
/// there, so that nothing is written that the hub would take back. The hub is the authority; this
/// knows what its last spaces answer said (kept in `sync-peers.sqlite`).
struct SpaceRoleGuard: Sendable {
    /// The deployment's hub, as the peer state names it.
    let hub: String
    let plugin: String
    let state: SyncPeerState

    /// Throws `table_read_only` or `not_row_creator` for the first change this person's role
    /// refuses (the batch then rolls back); otherwise notes the rows it created as theirs.
    func check(_ stamped: [SyncChange]) throws {
        var standings: [String: SyncRoleRules.Role?] = [:]
        var created: [String: [(table: String, row: String)]] = [:]
        var createdKeys: Set<String> = []
        for change in stamped where change.space != "personal" {
            if standings[change.space] == nil {
                standings[change.space] = .some(try state.spaceRole(space: change.space, hub: hub, plugin: plugin)?.rule)
            }
            guard let rule = standings[change.space] ?? nil else { continue }
            switch rule.access(to: change.table) {
            case .write:
                continue
            case .none:
                throw PluginError(.tableReadOnly, "your role in this space may not change the table '\(change.table)'; nothing of this batch was written",
                                  field: "$.\(change.table)")
            case .own:
                let key = "\(change.space)\u{0}\(change.table)\u{0}\(change.row)"
                // A row's first life begun here is a new row: this person's.
                if change.kind == .existence, change.causalLength == 1 {
                    if createdKeys.insert(key).inserted { created[change.space, default: []].append((change.table, change.row)) }
                    continue
                }
                if createdKeys.contains(key) { continue }
                guard try state.isOwnRow(table: change.table, row: change.row, space: change.space, hub: hub, plugin: plugin) else {
                    throw PluginError(.notRowCreator,
                                      "your role in this space changes only the rows you created; '\(change.row)' of '\(change.table)' is someone else's; nothing of this batch was written",
                                      field: "$.\(change.table)")
                }
            }
        }
        for (space, rows) in created { try state.addOwnRows(rows, space: space, hub: hub, plugin: plugin) }
    }
}
