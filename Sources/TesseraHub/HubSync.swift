import Foundation
import TesseraSDK
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
    /// with a role that writes (`read_only`), whose plugin role, if any, may change the table
    /// (`table_read_only`) and, under an `own` rule, the row (`not_row_creator`: it is another
    /// person's), and its timestamp at most 5 minutes ahead of the hub's clock (`clock_ahead`). A UUID space the hub has never seen is registered with the
    /// pusher as owner. A change for a deleted space refuses the whole push (410 `space_deleted`,
    /// nothing stored): the device should have dropped that space.
    public func push(plugin: String, changes: [SyncChange], from device: HubDevice) async throws(HubError) -> PushResult {
        try Self.checkPlugin(plugin)
        let now = nowMillis
        let result = try await transaction { connection in
            try await connection.lock(Self.changesLock(plugin))
            var session = PushSession(plugin: plugin, person: device.person, now: now, connection: connection)
            for change in changes { try await session.take(change) }
            try await session.finish()
            return session.result
        }
        if result.stored > 0 { changeSignal.fire() }  // committed: the waiting devices may pull it
        return result
    }

    /// A page of `plugin`'s changes in the spaces `person` belongs to (or only `space`), in arrival
    /// order after `cursor`: at most `limit` changes and about `maxBytes` (at least one change, and
    /// a record change's changes are never split across pages).
    public func pull(plugin: String, person: String, after cursor: Int64, space: String? = nil,
                     limit: Int = 1000, maxBytes: Int = defaultPullBytes) async throws(HubError) -> PullPage {
        try Self.checkPlugin(plugin)
        guard cursor >= 0 else { throw HubError(.invalidInput, "invalid_cursor", "a cursor is 0 or a number a pull returned", field: "after") }
        let limit = min(max(limit, 1), Self.maxPullLimit)
        return try await transaction { connection in
            let spaces: [String]
            if let space {
                let stored = space == SpaceID.personalAlias ? SpaceID.personal(of: person) : space
                try await Self.requireMember(stored, person: person, on: connection)
                spaces = [stored]
            } else {
                spaces = try await Self.readableSpaces(of: person, on: connection)
            }
            guard !spaces.isEmpty else { return PullPage(changes: [], cursor: cursor, more: false) }
            try await connection.preferOrderedScans()
            var page = PullPageBuilder(person: person, cursor: cursor, limit: limit, maxBytes: maxBytes)
            // Each space read along its own index range (plugin, space, seq), in chunks, and the
            // chunks merged in arrival order: the page is what one walk of the whole log would
            // give, at the cost of this person's changes alone.
            var ranges = spaces.map { SpaceRange(space: $0, after: cursor) }
            let chunk = min(limit + 1, 1000)
            while !page.isClosed {
                for i in ranges.indices where ranges[i].needsRows {
                    try await ranges[i].read(plugin: plugin, chunk: chunk, on: connection)
                }
                var next: Int?
                for i in ranges.indices where !ranges[i].rows.isEmpty && ranges[i].headSeq < (next.map { ranges[$0].headSeq } ?? .max) {
                    next = i
                }
                guard let next else { break }
                try page.add(ranges[next].takeHead())
            }
            return page.page
        }
    }

    /// The spaces whose changes `person` reads: theirs, not deleted. Pulls and waits then read each
    /// space's index range rather than joining: a plan both databases get right without statistics.
    static func readableSpaces(of person: String, on connection: any HubSQL) async throws -> [String] {
        try await connection.fetchAll("""
            SELECT m.space FROM hub_members m JOIN hub_spaces s ON s.id = m.space AND s.deleted = 0 WHERE m.person = ?
            """, [.text(person)]).compactMap { $0[0].text }
    }

    /// `?, ?, …` for an `IN` list of `count` values.
    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// The lock every push of `plugin` takes: arrival numbers then commit in the order they are
    /// handed out, so a pull that has seen number n has seen every number before it.
    static func changesLock(_ plugin: String) -> String { "changes:" + plugin }

    /// Compares the device's trie of each space (its root alone, or a pruned or whole trie) with
    /// the hub's. Spaces the person belongs to that hold changes of `plugin` but are not in the
    /// request are answered too (`differs` from their first change), so a device learns of them.
    public func check(plugin: String, person: String, tries: [String: MerkleTrie]) async throws(HubError) -> [String: SpaceCheck] {
        try Self.checkPlugin(plugin)
        return try await transaction { connection in
            var answers: [String: SpaceCheck] = [:]
            for (id, trie) in tries {
                let stored = id == SpaceID.personalAlias ? SpaceID.personal(of: person) : id
                let state = try await Self.spaceState(stored, on: connection)
                if state?.deleted == true, try await Self.departed(person, from: stored, on: connection) {
                    // Only its former members learn that a space was deleted.
                    answers[id] = SpaceCheck(status: "deleted", sinceMillis: nil, hubRoot: nil)
                    continue
                }
                guard state?.deleted == false, try await Self.role(of: person, in: stored, on: connection) != nil else {
                    answers[id] = SpaceCheck(status: "not_a_member", sinceMillis: nil, hubRoot: nil)
                    continue
                }
                answers[id] = Self.compare(hub: try await Self.merkle(plugin: plugin, space: stored, on: connection), device: trie)
            }
            let held = try await connection.fetchAll("""
                SELECT DISTINCT t.space FROM hub_merkle t JOIN hub_members m ON m.space = t.space AND m.person = ?
                WHERE t.plugin = ? AND t.prefix = ''
                """, [.text(person), .text(plugin)])
            for row in held {
                let stored = row[0].text ?? ""
                let id = SpaceID.forDevice(stored, person: person)
                guard answers[id] == nil else { continue }
                answers[id] = Self.compare(hub: try await Self.merkle(plugin: plugin, space: stored, on: connection), device: MerkleTrie())
            }
            return answers
        }
    }

    /// The hub's trie of one (plugin, space).
    public func merkle(plugin: String, space: String, person: String) async throws(HubError) -> MerkleTrie {
        let stored = space == SpaceID.personalAlias ? SpaceID.personal(of: person) : space
        return try await transaction { try await Self.merkle(plugin: plugin, space: stored, on: $0) }
    }

    static func departed(_ person: String, from space: String, on connection: any HubSQL) async throws -> Bool {
        try await connection.fetchOne("SELECT 1 FROM hub_departures WHERE space = ? AND person = ?", [.text(space), .text(person)]) != nil
    }

    static func compare(hub: MerkleTrie, device: MerkleTrie) -> SpaceCheck {
        guard let since = hub.diff(device) else { return SpaceCheck(status: "in_sync", sinceMillis: nil, hubRoot: hub.rootHash) }
        return SpaceCheck(status: "differs", sinceMillis: since, hubRoot: hub.rootHash)
    }

    static func merkle(plugin: String, space: String, on connection: any HubSQL) async throws -> MerkleTrie {
        var nodes: [String: UInt32] = [:]
        for row in try await connection.fetchAll("SELECT prefix, hash FROM hub_merkle WHERE plugin = ? AND space = ?", [.text(plugin), .text(space)]) {
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

/// One pull page being filled, row by row in arrival order.
struct PullPageBuilder {
    let person: String
    let limit: Int
    let maxBytes: Int
    private var changes: [SyncChange] = []
    private var cursor: Int64
    private var bytes = 0
    private var lastTimestamp: String?
    /// Whether the page is full and a further change waits (the page says `more`).
    private(set) var isClosed = false

    init(person: String, cursor: Int64, limit: Int, maxBytes: Int) {
        self.person = person
        self.cursor = cursor
        self.limit = limit
        self.maxBytes = maxBytes
    }

    var page: PullPage { PullPage(changes: changes, cursor: cursor, more: isClosed) }

    /// Adds one stored change (`seq, ts, record`), unless the page is full: then it closes. A
    /// full page still takes the rest of a record change (its cells share a timestamp).
    mutating func add(_ row: [SQLValue]) throws {
        let timestamp = row[1].text
        let full = changes.count >= limit || (bytes >= maxBytes && !changes.isEmpty)
        if full && timestamp != lastTimestamp {
            isClosed = true
            return
        }
        let record = row[2].blob ?? []
        for var change in try SyncWire.decode(record) {
            change.space = SpaceID.forDevice(change.space, person: person)
            changes.append(change)
        }
        cursor = row[0].integer ?? cursor
        bytes += record.count
        lastTimestamp = timestamp
    }
}

/// One space's changes after a cursor, read a chunk at a time along the index
/// `hub_changes_space (plugin, space, seq)`.
struct SpaceRange {
    let space: String
    /// The last arrival number read.
    private(set) var after: Int64
    /// Rows read and not yet taken, in arrival order: `seq, ts, record`.
    private(set) var rows: ArraySlice<[SQLValue]> = []
    /// Whether the last read came back short: nothing more after `after`.
    private var ended = false

    init(space: String, after: Int64) {
        self.space = space
        self.after = after
    }

    var needsRows: Bool { rows.isEmpty && !ended }
    var headSeq: Int64 { rows.first?[0].integer ?? .max }

    mutating func read(plugin: String, chunk: Int, on connection: any HubSQL) async throws {
        let read = try await connection.fetchAll("""
            SELECT seq, ts, record FROM hub_changes WHERE plugin = ? AND space = ? AND seq > ? ORDER BY seq LIMIT ?
            """, [.text(plugin), .text(space), .integer(after), .integer(Int64(chunk))])
        ended = read.count < chunk
        after = read.last?[0].integer ?? after
        rows = read[...]
    }

    mutating func takeHead() -> [SQLValue] { rows.removeFirst() }
}

/// One push being checked and stored, change by change, inside its transaction.
struct PushSession {
    let plugin: String
    let person: String
    let now: Int64
    let connection: any HubSQL
    private var accepted = 0, stored = 0, duplicates = 0
    private var rejected: [RejectedChange] = []
    private var created: [String] = []
    /// Accepted changes not yet inserted (see ``flush()``).
    private var pending: [SyncChange] = []
    /// What each space id the device sent resolved to: the stored id, the pusher's role and plugin
    /// role rule, or why not.
    private var verdicts: [String: Result<Verdict, HubError>] = [:]
    /// Who created each row of a shared space this push touched, as far as looked up or set
    /// (`""`: no creator recorded).
    private var creators: [RowKey: String] = [:]
    /// New leaf hashes XORed per space and minute, folded into the stored tries once at the end
    /// (a batch made within a few minutes touches a few dozen nodes, not 18 per change).
    private var leaves: [String: [Int64: UInt32]] = [:]
    /// The new changes stored, for the file references they carry (``HubFileReferences``).
    private var storedChanges: [SyncChange] = []

    init(plugin: String, person: String, now: Int64, connection: any HubSQL) {
        self.plugin = plugin
        self.person = person
        self.now = now
        self.connection = connection
    }

    var result: PushResult {
        PushResult(accepted: accepted, stored: stored, duplicates: duplicates, rejected: rejected, createdSpaces: created)
    }

    mutating func take(_ change: SyncChange) async throws {
        let verdict = try await verdict(for: change.space)
        let space: String
        switch verdict {
        case .failure(let error):
            return reject(change, error.code.rawValue, error.message)
        case .success(let resolved):
            space = resolved.space
            let ruleRefusal = try await refusal(of: change, in: space, by: resolved.rule)
            let acceptable = resolved.role.canWrite && ruleRefusal == nil && change.timestamp.millis - now <= HubStore.maxClockAheadMillis
            // An acceptable change goes straight to the insert, which recognises a duplicate itself;
            // any other is first looked up, since a change the hub holds is never rejected.
            if !acceptable, try await isHeld(change, in: space) {
                accepted += 1
                duplicates += 1
                return
            }
            guard resolved.role.canWrite else {
                return reject(change, "read_only", "you are a viewer of this space: viewers read, they do not write")
            }
            if let ruleRefusal { return reject(change, ruleRefusal.reason, ruleRefusal.message) }
        }
        guard change.timestamp.millis - now <= HubStore.maxClockAheadMillis else {
            let drift = HLCError.clockDrift(clock: change.timestamp.millis, physical: now, maxDrift: HubStore.maxClockAheadMillis, remote: true)
            return reject(change, "clock_ahead", drift.description)
        }
        var hubChange = change
        hubChange.space = space
        if SpaceID.isSharedForm(space) { try await noteCreator(of: change, in: space) }
        accepted += 1
        pending.append(hubChange)
        if pending.count >= Self.rowsPerInsert { try await flush() }
    }

    /// Stores the pending changes with one multi-row insert (one round trip to PostgreSQL for
    /// hundreds of changes); the ones it returns are new, the rest were held already (pushed
    /// before, or earlier in this batch).
    mutating func flush() async throws {
        guard !pending.isEmpty else { return }
        var arguments: [SQLValue] = []
        arguments.reserveCapacity(pending.count * 5)
        for change in pending {
            arguments += [.text(plugin), .text(change.space), .text(change.timestamp.text), .text(change.column), .blob(SyncWire.encode([change]))]
        }
        let rows = Array(repeating: "(?, ?, ?, ?, ?)", count: pending.count).joined(separator: ", ")
        let inserted = try await connection.fetchAll("""
            INSERT INTO hub_changes(plugin, space, ts, col, record) VALUES \(rows) ON CONFLICT DO NOTHING RETURNING space, ts, col
            """, arguments)
        var new = Set(inserted.map { StoredKey(space: $0[0].text ?? "", timestamp: $0[1].text ?? "", column: $0[2].text ?? "") })
        for change in pending {
            if new.remove(StoredKey(space: change.space, timestamp: change.timestamp.text, column: change.column)) != nil {
                stored += 1
                leaves[change.space, default: [:]][change.timestamp.millis / 60_000, default: 0] ^= change.merkleHash
                storedChanges.append(change)
            } else {
                duplicates += 1
            }
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// How many changes one insert carries: 5 values each, well inside both databases' limits on
    /// bound values (SQLite 32,766; PostgreSQL 65,535).
    static let rowsPerInsert = 500

    private struct StoredKey: Hashable {
        let space: String
        let timestamp: String
        let column: String
    }

    /// Stores what is pending and folds the new changes into the stored tries (XOR per node).
    mutating func finish() async throws {
        try await flush()
        try await HubFileReferences.record(storedChanges, plugin: plugin, person: person, on: connection)
        // Every node this push touched, in one statement: a node's path from the root is about
        // 18 nodes, and one statement each was most of a push's round trips to PostgreSQL
        // (`tessera-bench hub-load`). Each (space, prefix) comes once, as one statement may
        // change a row only once.
        var arguments: [SQLValue] = []
        for (space, minutes) in leaves {
            var trie = MerkleTrie()
            for (minute, hash) in minutes { trie.insert(key: MerkleTrie.key(millis: minute * 60_000), hash: hash) }
            for (prefix, hash) in trie.nodes {
                arguments += [.text(plugin), .text(space), .text(prefix), .integer(Int64(hash))]
            }
        }
        for start in stride(from: 0, to: arguments.count, by: 4 * Self.nodesPerUpsert) {
            let part = Array(arguments[start..<min(arguments.count, start + 4 * Self.nodesPerUpsert)])
            // SQLite has no XOR operator (PostgreSQL's is #); for non-negative a and b,
            // a ^ b == (a | b) - (a & b), which both understand.
            try await connection.execute("""
                INSERT INTO hub_merkle(plugin, space, prefix, hash) VALUES \(Array(repeating: "(?, ?, ?, ?)", count: part.count / 4).joined(separator: ", "))
                ON CONFLICT (plugin, space, prefix)
                DO UPDATE SET hash = (hub_merkle.hash | excluded.hash) - (hub_merkle.hash & excluded.hash)
                """, part)
        }
    }

    /// How many trie nodes one upsert carries: 4 values each, well inside both databases' limits.
    static let nodesPerUpsert = 1_000

    private struct RowKey: Hashable {
        let space: String
        let table: String
        let row: String
    }

    /// Why the pusher's plugin role refuses `change`, if it does (docs/sync.md, "Per-plugin roles").
    private mutating func refusal(of change: SyncChange, in space: String,
                                  by rule: SyncRoleRules.Role?) async throws -> (reason: String, message: String)? {
        guard let rule else { return nil }
        switch rule.access(to: change.table) {
        case .write:
            return nil
        case .none:
            return ("table_read_only", "your role in this space may not change the table '\(change.table)'")
        case .own:
            let creator = try await creator(of: RowKey(space: space, table: change.table, row: change.row))
            guard creator.isEmpty || creator == person else {
                return ("not_row_creator", "your role in this space changes only the rows you created; '\(change.row)' of '\(change.table)' is someone else's")
            }
            return nil
        }
    }

    /// The row's creator, `""` if none is recorded.
    private mutating func creator(of key: RowKey) async throws -> String {
        if let known = creators[key] { return known }
        let found = try await connection.fetchOne("SELECT person FROM hub_row_creators WHERE plugin = ? AND space = ? AND tbl = ? AND row_id = ?",
                                                  [.text(plugin), .text(key.space), .text(key.table), .text(key.row)])?[0].text ?? ""
        creators[key] = found
        return found
    }

    /// Records the pusher as the row's creator unless it has one: whoever first stores a change
    /// of a row made it (its existence change comes first in a record change).
    private mutating func noteCreator(of change: SyncChange, in space: String) async throws {
        let key = RowKey(space: space, table: change.table, row: change.row)
        guard try await creator(of: key).isEmpty else { return }
        let inserted = try await connection.execute("""
            INSERT INTO hub_row_creators(plugin, space, tbl, row_id, person) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
            """, [.text(plugin), .text(space), .text(change.table), .text(change.row), .text(person)])
        creators[key] = inserted == 1 ? person : nil
        if inserted != 1 { _ = try await creator(of: key) }  // another replica's push was first
    }

    private func isHeld(_ change: SyncChange, in space: String) async throws -> Bool {
        try await connection.fetchOne("SELECT 1 FROM hub_changes WHERE plugin = ? AND space = ? AND ts = ? AND col = ?",
                                      [.text(plugin), .text(space), .text(change.timestamp.text), .text(change.column)]) != nil
    }

    private mutating func reject(_ change: SyncChange, _ reason: String, _ message: String) {
        rejected.append(RejectedChange(timestamp: change.timestamp.text, column: change.column, space: change.space,
                                       table: change.table, row: change.row, reason: reason, message: message))
    }

    /// Where a change goes, and what its pusher may do there.
    struct Verdict {
        let space: String
        let role: SpaceRole
        /// The pusher's plugin role's rule, if they have one.
        let rule: SyncRoleRules.Role?
    }

    /// Resolves a space id once per push. Throws (refusing the push) only for a deleted space.
    private mutating func verdict(for id: String) async throws -> Result<Verdict, HubError> {
        if let known = verdicts[id] { return known }
        let verdict: Result<Verdict, HubError>
        if id == SpaceID.personalAlias {
            verdict = .success(Verdict(space: SpaceID.personal(of: person), role: .owner, rule: nil))
        } else if !SpaceID.isSharedForm(id) {
            verdict = .failure(HubError(.invalidInput, "invalid_space", "a space is 'personal' or a shared space's UUID, found '\(id)'"))
        } else if let state = try await HubStore.spaceState(id, on: connection) {
            if state.deleted {
                throw HubError(.gone, "space_deleted", "the space \(id) was deleted: drop its data on this device, and push no more changes to it")
            }
            if let role = try await HubStore.role(of: person, in: id, on: connection) {
                verdict = .success(Verdict(space: id, role: role, rule: try await HubStore.pluginRule(of: person, in: id, on: connection)))
            } else {
                verdict = .failure(HubError(.forbidden, "not_a_member", "you are not a member of the space \(id)"))
            }
        } else {
            try await HubStore.createSharedSpace(id, name: id, owner: person, plugin: plugin, now: now, on: connection)
            created.append(id)
            verdict = .success(Verdict(space: id, role: .owner, rule: nil))
        }
        verdicts[id] = verdict
        return verdict
    }
}
