import Foundation
import TesseraSQLite
import TesseraSync

/// Push, pull and the in-sync check of one plugin's changes (docs/hub.md).
extension HubStore {
    /// The most changes one pull page may hold, and the default byte budget of a page.
    public static let maxPullLimit = 10_000
    public static let defaultPullBytes = 512 * 1024

    /// Stores the changes `device` pushes for `plugin`, each at most once, in one transaction.
    ///
    /// Each change is checked on its own: a change the hub already holds is a duplicate (whoever
    /// pushes it again: a device may echo changes it received); otherwise its space must be the
    /// alias `personal` or a UUID (`invalid_space`), the pusher must be a member (`not_a_member`)
    /// with a role that writes (`read_only`), and its timestamp at most 5 minutes ahead of the
    /// hub's clock (`clock_ahead`). A UUID space the hub has never seen is registered with the
    /// pusher as owner. A change for a deleted space refuses the whole push (410 `space_deleted`,
    /// nothing stored): the device should have dropped that space.
    public func push(plugin: String, changes: [SyncChange], from device: HubDevice) throws(HubError) -> PushResult {
        try Self.checkPlugin(plugin)
        let now = nowMillis
        return try transaction { connection in
            var session = PushSession(plugin: plugin, person: device.person, now: now, connection: connection)
            for change in changes { try session.take(change) }
            try session.finish()
            return session.result
        }
    }

    /// A page of `plugin`'s changes in the spaces `person` belongs to (or only `space`), in arrival
    /// order after `cursor`: at most `limit` changes and about `maxBytes` (at least one change, and
    /// a record change's changes are never split across pages).
    public func pull(plugin: String, person: String, after cursor: Int64, space: String? = nil,
                     limit: Int = 1000, maxBytes: Int = defaultPullBytes) throws(HubError) -> PullPage {
        try Self.checkPlugin(plugin)
        guard cursor >= 0 else { throw HubError(.invalidInput, "invalid_cursor", "a cursor is 0 or a number a pull returned", field: "after") }
        let limit = min(max(limit, 1), Self.maxPullLimit)
        return try transaction { connection in
            var sql = """
                SELECT c.seq, c.ts, c.record FROM hub_changes c
                JOIN hub_members m ON m.space = c.space AND m.person = ?
                JOIN hub_spaces s ON s.id = c.space AND s.deleted = 0
                WHERE c.plugin = ? AND c.seq > ?
                """
            var arguments: [SQLiteValue] = [.text(person), .text(plugin), .integer(cursor)]
            if let space {
                let stored = space == SpaceID.personalAlias ? SpaceID.personal(of: person) : space
                try Self.requireMember(stored, person: person, on: connection)
                sql += " AND c.space = ?"
                arguments.append(.text(stored))
            }
            let statement = try connection.prepare(sql + " ORDER BY c.seq")
            try statement.bind(arguments)
            var changes: [SyncChange] = []
            var next = cursor, bytes = 0, more = false
            var lastTimestamp: String?
            while try statement.step() {
                let ts = statement.text(at: 1)
                let full = changes.count >= limit || (bytes >= maxBytes && !changes.isEmpty)
                if full && ts != lastTimestamp { more = true; break }
                let record = statement.blob(at: 2)
                for var change in try SyncWire.decode(record) {
                    change.space = SpaceID.forDevice(change.space, person: person)
                    changes.append(change)
                }
                next = statement.int64(at: 0)
                bytes += record.count
                lastTimestamp = ts
            }
            statement.reset()
            return PullPage(changes: changes, cursor: next, more: more)
        }
    }

    /// Compares the device's trie of each space (its root alone, or a pruned or whole trie) with
    /// the hub's. Spaces the person belongs to that hold changes of `plugin` but are not in the
    /// request are answered too (`differs` from their first change), so a device learns of them.
    public func check(plugin: String, person: String, tries: [String: MerkleTrie]) throws(HubError) -> [String: SpaceCheck] {
        try Self.checkPlugin(plugin)
        return try transaction { connection in
            var answers: [String: SpaceCheck] = [:]
            for (id, trie) in tries {
                let stored = id == SpaceID.personalAlias ? SpaceID.personal(of: person) : id
                let state = try Self.spaceState(stored, on: connection)
                if state?.deleted == true, try Self.departed(person, from: stored, on: connection) {
                    // Only its former members learn that a space was deleted.
                    answers[id] = SpaceCheck(status: "deleted", sinceMillis: nil, hubRoot: nil)
                    continue
                }
                guard state?.deleted == false, try Self.role(of: person, in: stored, on: connection) != nil else {
                    answers[id] = SpaceCheck(status: "not_a_member", sinceMillis: nil, hubRoot: nil)
                    continue
                }
                answers[id] = Self.compare(hub: try Self.merkle(plugin: plugin, space: stored, on: connection), device: trie)
            }
            let held = try connection.fetchAll("""
                SELECT DISTINCT t.space FROM hub_merkle t JOIN hub_members m ON m.space = t.space AND m.person = ?
                WHERE t.plugin = ? AND t.prefix = ''
                """, [.text(person), .text(plugin)])
            for row in held {
                let stored = row[0].text ?? ""
                let id = SpaceID.forDevice(stored, person: person)
                guard answers[id] == nil else { continue }
                answers[id] = Self.compare(hub: try Self.merkle(plugin: plugin, space: stored, on: connection), device: MerkleTrie())
            }
            return answers
        }
    }

    /// The hub's trie of one (plugin, space).
    public func merkle(plugin: String, space: String, person: String) throws(HubError) -> MerkleTrie {
        let stored = space == SpaceID.personalAlias ? SpaceID.personal(of: person) : space
        return try transaction { try Self.merkle(plugin: plugin, space: stored, on: $0) }
    }

    static func departed(_ person: String, from space: String, on connection: SQLiteConnection) throws -> Bool {
        try connection.fetchOne("SELECT 1 FROM hub_departures WHERE space = ? AND person = ?", [.text(space), .text(person)]) != nil
    }

    static func compare(hub: MerkleTrie, device: MerkleTrie) -> SpaceCheck {
        guard let since = hub.diff(device) else { return SpaceCheck(status: "in_sync", sinceMillis: nil, hubRoot: hub.rootHash) }
        return SpaceCheck(status: "differs", sinceMillis: since, hubRoot: hub.rootHash)
    }

    static func merkle(plugin: String, space: String, on connection: SQLiteConnection) throws -> MerkleTrie {
        var nodes: [String: UInt32] = [:]
        for row in try connection.fetchAll("SELECT prefix, hash FROM hub_merkle WHERE plugin = ? AND space = ?", [.text(plugin), .text(space)]) {
            nodes[row[0].text ?? ""] = UInt32(truncatingIfNeeded: row[1].integer ?? 0)
        }
        return MerkleTrie(nodes: nodes)
    }

    /// A plugin id as manifests spell them: lowercase letters, digits, `.`, `-`, `_`.
    static func checkPlugin(_ plugin: String) throws(HubError) {
        guard !plugin.isEmpty, plugin.utf8.count <= 200,
              plugin.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2E || $0 == 0x2D || $0 == 0x5F })
        else { throw HubError(.invalidInput, "invalid_plugin", "'\(plugin)' is not a plugin id (lowercase letters, digits, '.', '-', '_')") }
    }
}

/// One push being checked and stored, change by change, inside its transaction.
struct PushSession {
    let plugin: String
    let person: String
    let now: Int64
    let connection: SQLiteConnection
    private var accepted = 0, stored = 0, duplicates = 0
    private var rejected: [RejectedChange] = []
    private var created: [String] = []
    /// What each space id the device sent resolved to: the stored id and the pusher's role, or why not.
    private var verdicts: [String: Result<(space: String, role: SpaceRole), HubError>] = [:]
    /// New leaf hashes XORed per space and minute, folded into the stored tries once at the end
    /// (a batch made within a few minutes touches a few dozen nodes, not 18 per change).
    private var leaves: [String: [Int64: UInt32]] = [:]

    init(plugin: String, person: String, now: Int64, connection: SQLiteConnection) {
        self.plugin = plugin
        self.person = person
        self.now = now
        self.connection = connection
    }

    var result: PushResult {
        PushResult(accepted: accepted, stored: stored, duplicates: duplicates, rejected: rejected, createdSpaces: created)
    }

    mutating func take(_ change: SyncChange) throws {
        let verdict = try verdict(for: change.space)
        let space: String
        switch verdict {
        case .failure(let error):
            return reject(change, error.code, error.message)
        case .success(let resolved):
            space = resolved.space
            let acceptable = resolved.role.canWrite && change.timestamp.millis - now <= HubStore.maxClockAheadMillis
            // An acceptable change goes straight to the insert, which recognises a duplicate itself;
            // any other is first looked up, since a change the hub holds is never rejected.
            if !acceptable, try isHeld(change, in: space) {
                accepted += 1
                duplicates += 1
                return
            }
            guard resolved.role.canWrite else {
                return reject(change, "read_only", "you are a viewer of this space: viewers read, they do not write")
            }
        }
        guard change.timestamp.millis - now <= HubStore.maxClockAheadMillis else {
            let drift = HLCError.clockDrift(clock: change.timestamp.millis, physical: now, maxDrift: HubStore.maxClockAheadMillis, remote: true)
            return reject(change, "clock_ahead", drift.description)
        }
        var hubChange = change
        hubChange.space = space
        let insert = try connection.cachedStatement("""
            INSERT INTO hub_changes(plugin, space, ts, col, record) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
            """)
        try insert.execute([.text(plugin), .text(space), .text(change.timestamp.text), .text(change.column), .blob(SyncWire.encode([hubChange]))])
        accepted += 1
        if connection.changes == 0 {
            duplicates += 1  // held already: pushed before, or earlier in this batch
        } else {
            stored += 1
            leaves[space, default: [:]][change.timestamp.millis / 60_000, default: 0] ^= change.merkleHash
        }
    }

    /// Folds the new changes into the stored tries (XOR per node).
    func finish() throws {
        // SQLite has no XOR operator; for non-negative a and b, a ^ b == (a | b) - (a & b).
        let upsert = try connection.cachedStatement("""
            INSERT INTO hub_merkle(plugin, space, prefix, hash) VALUES (?, ?, ?, ?)
            ON CONFLICT (plugin, space, prefix) DO UPDATE SET hash = (hash | excluded.hash) - (hash & excluded.hash)
            """)
        for (space, minutes) in leaves {
            var trie = MerkleTrie()
            for (minute, hash) in minutes { trie.insert(key: MerkleTrie.key(millis: minute * 60_000), hash: hash) }
            for (prefix, hash) in trie.nodes {
                try upsert.execute([.text(plugin), .text(space), .text(prefix), .integer(Int64(hash))])
            }
        }
    }

    private func isHeld(_ change: SyncChange, in space: String) throws -> Bool {
        let query = try connection.cachedStatement("SELECT 1 FROM hub_changes WHERE plugin = ? AND space = ? AND ts = ? AND col = ?")
        return try query.fetchOne([.text(plugin), .text(space), .text(change.timestamp.text), .text(change.column)]) != nil
    }

    private mutating func reject(_ change: SyncChange, _ reason: String, _ message: String) {
        rejected.append(RejectedChange(timestamp: change.timestamp.text, column: change.column, space: change.space,
                                       table: change.table, row: change.row, reason: reason, message: message))
    }

    /// Resolves a space id once per push. Throws (refusing the push) only for a deleted space.
    private mutating func verdict(for id: String) throws -> Result<(space: String, role: SpaceRole), HubError> {
        if let known = verdicts[id] { return known }
        let verdict: Result<(space: String, role: SpaceRole), HubError>
        if id == SpaceID.personalAlias {
            verdict = .success((SpaceID.personal(of: person), .owner))
        } else if !SpaceID.isSharedForm(id) {
            verdict = .failure(HubError(.invalidInput, "invalid_space", "a space is 'personal' or a shared space's UUID, found '\(id)'"))
        } else if let state = try HubStore.spaceState(id, on: connection) {
            if state.deleted {
                throw HubError(.gone, "space_deleted", "the space \(id) was deleted: drop its data on this device, and push no more changes to it")
            }
            if let role = try HubStore.role(of: person, in: id, on: connection) {
                verdict = .success((id, role))
            } else {
                verdict = .failure(HubError(.forbidden, "not_a_member", "you are not a member of the space \(id)"))
            }
        } else {
            try HubStore.createSharedSpace(id, name: id, owner: person, now: now, on: connection)
            created.append(id)
            verdict = .success((id, .owner))
        }
        verdicts[id] = verdict
        return verdict
    }
}
