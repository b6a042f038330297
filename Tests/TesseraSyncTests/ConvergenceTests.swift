import Foundation
import Testing
@testable import TesseraSync

/// The seeded property test: whatever the operations and however the network mangles delivery,
/// three replicas end identical, and identical to the state the union of all changes gives.
@Suite struct ConvergenceTests {
    @Test(arguments: 0..<300)
    func threeReplicasConverge(seed: Int) throws {
        try Self.check(seed: UInt64(seed), steps: 60)
    }

    /// More seeds, for soaking: `TESSERA_SYNC_SEEDS=5000 swift test --filter ConvergenceTests/soak`
    /// (scripts/sync-soak.sh), optionally from `TESSERA_SYNC_SEED_START` and with
    /// `TESSERA_SYNC_STEPS` steps each.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["TESSERA_SYNC_SEEDS"] != nil))
    func soak() async throws {
        let environment = ProcessInfo.processInfo.environment
        let count = UInt64(environment["TESSERA_SYNC_SEEDS"] ?? "") ?? 0
        let start = UInt64(environment["TESSERA_SYNC_SEED_START"] ?? "") ?? 1_000
        let steps = Int(environment["TESSERA_SYNC_STEPS"] ?? "") ?? 120
        // One worker per core, each taking every n-th seed: the simulations share nothing.
        let workers = UInt64(max(1, ProcessInfo.processInfo.activeProcessorCount))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    for seed in stride(from: start + worker, to: start + count, by: Int(workers)) {
                        try Self.check(seed: seed, steps: steps)
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    static func check(seed: UInt64, steps: Int) throws {
        var world = try ConvergenceSimulation(seed: seed)
        try world.run(steps: steps)
        let (replicas, oracle) = try world.states()
        let context = "seed \(seed); operations:\n" + world.log.joined(separator: "\n")
        // Compared into Booleans first, so that a failure prints the seed and the operations rather
        // than three whole states.
        let sameTables = replicas[0].notes == replicas[1].notes && replicas[1].notes == replicas[2].notes
        let sameConflicts = replicas[0].conflicts == replicas[1].conflicts && replicas[1].conflicts == replicas[2].conflicts
        let sameTries = replicas[0].merkle == replicas[1].merkle && replicas[1].merkle == replicas[2].merkle
        #expect(sameTables, "tables differ, \(context)")
        #expect(sameConflicts, "conflicts differ, \(context)")
        #expect(sameTries, "tries differ, \(context)")
        let agreeWithUnion = replicas[0] == oracle
        #expect(agreeWithUnion, "the replicas agree on something other than the union's state, \(context)")
    }
}
