import Foundation
import TesseraSDK
import TesseraTestFixtures
@testable import TesseraSync

/// Three replicas editing a few rows offline, with an unreliable network between them: the
/// property test's world, driven entirely by one seed.
///
/// - Each replica has its own clock: a shared virtual time plus a fixed skew of up to ±60 s (well
///   inside the five-minute drift limit).
/// - A step is a local record change on a random replica (put, patch, delete, re-insert, or
///   resolving a conflict), a delivery, a time jump, or a merkle-driven catch-up between two replicas.
/// - Every local batch is queued for the two other replicas. A delivery takes some queued batches
///   for one replica, drops some (lost), duplicates some, shuffles their changes and regroups them
///   into batches of random size.
/// - At the end, the replicas catch up pairwise as the protocol will: compare merkle tries, send
///   each other every change from the divergence time on, until every root is equal.
///
/// ``check()`` then demands identical table contents, conflicts and tries on all three, and equal
/// to a fresh replica that received the union of every change in one batch (so the replicas agree
/// on the right answer, not merely on some answer).
struct ConvergenceSimulation {
    let seed: UInt64
    private var random: SplitMix64
    private let time = TestClock()
    private var clocks: [TestClock] = []
    private var skews: [Double] = []
    private(set) var replicas: [SyncStore] = []
    private var queues: [[[SyncChange]]] = [[], [], []]
    private(set) var log: [String] = []
    static let rows = ["r0", "r1", "r2", "r3"]

    init(seed: UInt64) throws {
        self.seed = seed
        random = SplitMix64(seed: seed &* 0x9E37_79B9 &+ 1)
        for node in 0..<3 {
            let skew = Double(Int.random(in: -60_000...60_000, using: &random)) / 1000
            let clock = TestClock(TestClock.epoch.addingTimeInterval(skew))
            clocks.append(clock)
            skews.append(skew)
            replicas.append(try makeReplica(node: 0xA0 + UInt64(node), clock: clock))
        }
    }

    /// Runs `steps` random steps, then the final catch-up.
    mutating func run(steps: Int) throws {
        for _ in 0..<steps {
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<55: try localStep(Int.random(in: 0..<3, using: &random))
            case 55..<85: try deliver(to: Int.random(in: 0..<3, using: &random))
            case 85..<93: advance(Double(Int.random(in: 1...90_000, using: &random)) / 1000)
            default:
                let (a, b) = pair()
                try catchUp(a, b)
            }
        }
        try finalCatchUp()
    }

    // MARK: Local changes

    private mutating func localStep(_ r: Int) throws {
        let replica = replicas[r]
        let id = Self.rows.randomElement(using: &random)!
        let alive = try replica.note(id) != nil
        var batch: [RecordChange] = []
        let roll = Int.random(in: 0..<100, using: &random)
        if let conflict = try replica.conflicts().randomElement(using: &random), roll < 10 {
            let choice = ([conflict.current] + conflict.others).randomElement(using: &random)!.value
            let change = try replica.resolveConflict(table: conflict.table, row: conflict.row, column: conflict.column,
                                                     value: Bool.random(using: &random) ? choice : value(for: "body"))
            log.append("\(r): resolve \(conflict.row).\(conflict.column)")
            enqueue([change], from: r)
            return
        }
        switch (alive, roll) {
        case (true, 0..<45): batch.append(.patch(table: "notes", id: id, values: someValues(atLeastOne: true)))
        case (true, 45..<70): batch.append(.put(table: "notes", id: id, values: someValues(atLeastOne: false)))
        case (true, _): batch.append(.delete(table: "notes", id: id))
        case (false, 0..<85): batch.append(.put(table: "notes", id: id, values: someValues(atLeastOne: false)))
        case (false, _): batch.append(.delete(table: "notes", id: id))
        }
        if Int.random(in: 0..<5, using: &random) == 0 {  // sometimes a second change in the same batch
            let other = Self.rows.randomElement(using: &random)!
            batch.append(Bool.random(using: &random) ? .delete(table: "notes", id: other)
                                                     : .put(table: "notes", id: other, values: someValues(atLeastOne: false)))
        }
        log.append("\(r): \(batch)")
        enqueue(try replica.write(batch, in: "s"), from: r)
        time.advance(0.001 * Double(Int.random(in: 0...3, using: &random)))
        syncClocks()
    }

    private mutating func someValues(atLeastOne: Bool) -> [String: SQLValue] {
        var values: [String: SQLValue] = [:]
        for column in ["title", "body", "stars", "score"] where Int.random(in: 0..<3, using: &random) == 0 {
            values[column] = value(for: column)
        }
        if atLeastOne, values.isEmpty { values["body"] = value(for: "body") }
        return values
    }

    private mutating func value(for column: String) -> SQLValue {
        switch column {
        case "title": return .text(["fed", "slept", "walk", "bath"].randomElement(using: &random)!)
        case "body":
            let words = ["milk", "nap", "cried", "smiled", "rash", "ok"]
            return Int.random(in: 0..<8, using: &random) == 0 ? .null
                : .text((0..<Int.random(in: 1...3, using: &random)).map { _ in words.randomElement(using: &random)! }.joined(separator: " "))
        case "stars": return .integer(Int64.random(in: 0...5, using: &random))
        default: return Bool.random(using: &random) ? .null : .real(Double(Int.random(in: 0...100, using: &random)) / 4)
        }
    }

    private mutating func enqueue(_ changes: [SyncChange], from r: Int) {
        guard !changes.isEmpty else { return }
        for other in 0..<3 where other != r { queues[other].append(changes) }
    }

    // MARK: Delivery

    /// Delivers some of the queued batches to replica `r`: lost, duplicated, shuffled, regrouped.
    private mutating func deliver(to r: Int) throws {
        guard !queues[r].isEmpty else { return }
        let count = Int.random(in: 1...queues[r].count, using: &random)
        var picked: [SyncChange] = []
        for _ in 0..<count {
            let batch = queues[r].remove(at: Int.random(in: 0..<queues[r].count, using: &random))
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<15: continue                                                      // lost
            case 15..<25: picked += batch + batch                                      // duplicated
            case 25..<35: picked += batch.filter { _ in Bool.random(using: &random) }  // partly lost
            default: picked += batch
            }
        }
        picked.shuffle(using: &random)
        while !picked.isEmpty {
            let size = Int.random(in: 1...picked.count, using: &random)
            try replicas[r].applyRemote(Array(picked.prefix(size)))
            picked.removeFirst(size)
        }
        log.append("deliver to \(r): \(count) batches")
    }

    /// Brings `a` and `b` together as the protocol will: compare tries; each sends the other every
    /// change from the first differing minute on.
    private mutating func catchUp(_ a: Int, _ b: Int) throws {
        let trieA = try replicas[a].merkle(for: "s"), trieB = try replicas[b].merkle(for: "s")
        guard let since = trieA.diff(trieB) else { return }
        let from = HLCTimestamp.latest(before: since)
        let toB = try replicas[a].changes(in: "s", since: from), toA = try replicas[b].changes(in: "s", since: from)
        try replicas[b].applyRemote(toB.shuffled(using: &random))
        try replicas[a].applyRemote(toA.shuffled(using: &random))
        log.append("catch up \(a)<->\(b) from \(since)")
    }

    private mutating func finalCatchUp() throws {
        for _ in 0..<6 {
            if try Set(replicas.map { try $0.merkle(for: "s").rootHash }).count == 1 { return }
            for (a, b) in [(0, 1), (1, 2), (0, 2)] { try catchUp(a, b) }
        }
    }

    // MARK: Time

    private mutating func advance(_ seconds: Double) {
        time.advance(seconds)
        syncClocks()
    }

    /// Moves every replica's clock to the shared time plus its own skew.
    private func syncClocks() {
        for (clock, skew) in zip(clocks, skews) { clock.set(time.date.addingTimeInterval(skew)) }
    }

    private mutating func pair() -> (Int, Int) {
        let a = Int.random(in: 0..<3, using: &random)
        return (a, (a + Int.random(in: 1...2, using: &random)) % 3)
    }

    // MARK: Checking

    /// What the replicas must agree on.
    struct State: Equatable {
        let notes: [[SQLValue]]
        let conflicts: [SyncConflict]
        let merkle: MerkleTrie
    }

    static func state(of replica: SyncStore) throws -> State {
        State(notes: try replica.notes(), conflicts: try replica.conflicts(), merkle: try replica.merkle(for: "s"))
    }

    /// The three replicas' states, and the state of a fresh replica given every change at once.
    func states() throws -> (replicas: [State], oracle: State) {
        var union: [ChangeID: SyncChange] = [:]
        for replica in replicas {
            for change in try replica.changes(in: "s") { union[change.id] = change }
        }
        let oracle = try makeReplica(node: 0xF0, clock: clocks[0])
        try oracle.applyRemote(union.values.sorted { $0.id < $1.id })
        return (try replicas.map(Self.state), try Self.state(of: oracle))
    }
}
