import TesseraSQLite

/// The persisted merkle trie of each space (`_tessera_sync_merkle`, one row per node).
///
/// A transaction collects the leaf hashes of the changes it stores, per space and minute
/// (``MerkleDelta``), and folds them into the stored nodes once at the end: a batch of a hundred
/// thousand changes made within a few minutes touches a few dozen nodes, not 18 per change.
enum MerkleStore {
    /// The trie of `space` (empty if it has no changes).
    static func load(space: String, on connection: SQLiteConnection) throws -> MerkleTrie {
        let rows = try connection.fetchAll("SELECT prefix, hash FROM _tessera_sync_merkle WHERE space = ?", [.text(space)])
        var nodes: [String: UInt32] = [:]
        for row in rows {
            nodes[row[0].text ?? ""] = UInt32(truncatingIfNeeded: row[1].integer ?? 0)
        }
        return MerkleTrie(nodes: nodes)
    }

    /// XORs `delta` into the stored nodes.
    static func apply(_ delta: MerkleDelta, on connection: SQLiteConnection) throws {
        // SQLite has no XOR operator; for non-negative a and b, a ^ b == (a | b) - (a & b).
        let upsert = try connection.cachedStatement("""
            INSERT INTO _tessera_sync_merkle(space, prefix, hash) VALUES (?, ?, ?)
            ON CONFLICT (space, prefix) DO UPDATE SET hash = (hash | excluded.hash) - (hash & excluded.hash)
            """)
        for (space, leaves) in delta.leaves {
            var trie = MerkleTrie()
            for (minute, hash) in leaves {
                trie.insert(key: MerkleTrie.key(millis: minute * 60_000), hash: hash)
            }
            for (prefix, hash) in trie.nodes {
                try upsert.execute([.text(space), .text(prefix), .integer(Int64(hash))])
            }
        }
    }
}

/// The leaf hashes a transaction adds, XORed per space and minute.
struct MerkleDelta {
    /// Space → minute since the epoch → XOR of the hashes added there.
    private(set) var leaves: [String: [Int64: UInt32]] = [:]

    /// Adds a change.
    mutating func add(_ change: SyncChange, hash: UInt32) {
        leaves[change.space, default: [:]][change.timestamp.millis / 60_000, default: 0] ^= hash
    }
}
