/// Actual Budget's merkle trie: a cheap summary of a set of changes that two replicas compare to ask
/// "are we in sync?" in one round trip, and if not, "since when do we differ?".
///
/// - Each change is a leaf at the minute of its timestamp. The key is that minute (since the
///   epoch) written in base 3, so every node has at most three children: "0", "1", "2".
/// - Each node's hash is the XOR of the hashes of every change below it (``SyncChange/merkleHash``,
///   a MurmurHash3 of the change's identity). XOR makes the trie independent of the order changes
///   were added in, and adding a change twice would cancel it, so callers add each change once (the
///   store adds a change only when its message log first stores it).
/// - Two replicas holding the same set of changes have equal tries and so equal ``rootHash``es;
///   ``diff(_:)`` walks down the first differing branch and returns the earliest minute at which
///   the sets differ, from which the replicas resend their changes.
///
/// One deviation from Actual: keys have 17 base-3 digits rather than 16. Sixteen digits count
/// 3^16 minutes, which run out in October 2051; seventeen last until 2215 (``keySpaceMinutes``).
///
/// Nodes are stored flat, by key prefix: `""` is the root, `"1"` its child 1, `"12"` that node's
/// child 2, and so on to 17 digits. This is also the form the store persists, one row per node.
public struct MerkleTrie: Sendable, Hashable {
    /// The number of base-3 digits in a leaf's key.
    public static let keyDigits = 17
    /// 3^17: the number of minutes the keys can count.
    public static let keySpaceMinutes: Int64 = 129_140_163

    /// Every node's hash, by key prefix (`""` is the root).
    public private(set) var nodes: [String: UInt32]

    /// An empty trie.
    public init() { nodes = [:] }

    /// A trie of the given nodes (as persisted or sent).
    public init(nodes: [String: UInt32]) { self.nodes = nodes }

    /// The hash of the whole set: equal for replicas holding the same changes.
    public var rootHash: UInt32 { nodes[""] ?? 0 }

    /// Whether no change was ever added.
    public var isEmpty: Bool { nodes.isEmpty }

    /// The key of the minute holding `millis`: 17 base-3 digits, most significant first.
    public static func key(millis: Int64) -> String {
        var minutes = millis / 60_000
        var digits = [UInt8](repeating: UInt8(ascii: "0"), count: keyDigits)
        for i in stride(from: keyDigits - 1, through: 0, by: -1) {
            digits[i] = UInt8(ascii: "0") + UInt8(minutes % 3)
            minutes /= 3
        }
        return String(decoding: digits, as: UTF8.self)
    }

    /// The first millisecond of the subtree at `prefix` (the prefix padded with zeros).
    public static func millis(ofPrefix prefix: String) -> Int64 {
        var minutes: Int64 = 0
        for (i, digit) in prefix.utf8.enumerated() where i < keyDigits {
            minutes = minutes * 3 + Int64(digit - UInt8(ascii: "0"))
        }
        for _ in prefix.utf8.count..<keyDigits { minutes *= 3 }
        return minutes * 60_000
    }

    /// Adds a change with hash `hash` at the minute of `timestamp`: XORs it into the leaf and every
    /// node above it.
    public mutating func insert(_ timestamp: HLCTimestamp, hash: UInt32) {
        insert(key: Self.key(millis: timestamp.millis), hash: hash)
    }

    /// Adds a hash at a leaf key (17 digits).
    public mutating func insert(key: String, hash: UInt32) {
        var prefix = Substring(key)
        while true {
            nodes[String(prefix), default: 0] ^= hash
            if prefix.isEmpty { break }
            prefix = prefix.dropLast()
        }
    }

    /// Adds every change of `other` (XOR node by node): how a batch's trie is folded into the
    /// stored one.
    public mutating func formSymmetricDifference(_ other: MerkleTrie) {
        for (prefix, hash) in other.nodes { nodes[prefix, default: 0] ^= hash }
    }

    /// The earliest time (milliseconds since the epoch, the start of a minute) at which this trie
    /// and `other` differ, or `nil` if their roots are equal.
    ///
    /// Actual's walk: at each node, take the first child (in key order) whose hashes differ and go
    /// down it; when no child differs (pruned tries) or the leaf is reached, the answer is the start
    /// of the node's key range. A node absent from one trie differs from any node present in the
    /// other. Sending every change from that time on brings the two together (with pruned tries it
    /// may take a few rounds, each from an earlier-or-equal time).
    public func diff(_ other: MerkleTrie) -> Int64? {
        guard nodes[""] != other.nodes[""] else { return nil }
        var prefix = ""
        while prefix.utf8.count < Self.keyDigits {
            guard let child = Self.childKeys(of: prefix).first(where: { nodes[$0] != other.nodes[$0] }) else { break }
            prefix = child
        }
        return Self.millis(ofPrefix: prefix)
    }

    /// The trie keeping only the `children` latest children of every node (Actual prunes to 2 before
    /// sending a trie): small on the wire, still exact at the root and along the recent branches.
    public func pruned(keepingChildren children: Int = 2) -> MerkleTrie {
        var kept = MerkleTrie()
        guard nodes[""] != nil else { return kept }
        var pending = [""]
        while let prefix = pending.popLast() {
            kept.nodes[prefix] = nodes[prefix]
            guard prefix.utf8.count < Self.keyDigits else { continue }
            pending += Self.childKeys(of: prefix).filter { nodes[$0] != nil }.suffix(children)
        }
        return kept
    }

    private static func childKeys(of prefix: String) -> [String] {
        [prefix + "0", prefix + "1", prefix + "2"]
    }
}
