import Foundation
import Testing
import TesseraSDK
import TesseraSync
import TesseraSyncClient
import TesseraHubFixtures
import TesseraTestFixtures

/// The seeded property of issue 5: three devices making random edits and syncing through a network
/// that drops, duplicates, loses answers, replays stale requests out of order and cuts bodies
/// (``FaultProxy``) converge to the same state once the network heals — for every seed. Devices of
/// odd seeds pull pages of 2 changes and apply them 5 at a time, so a fault may fall between the
/// pages of one batch.
///
/// `TESSERA_SYNC_NETWORK_SEEDS` sets how many seeds run (200 by default, about a minute on two cores);
/// `scripts/sync-property.sh 5000` runs more. A failure names the seed, which replays exactly with
/// `TESSERA_SYNC_NETWORK_FIRST_SEED=<seed> TESSERA_SYNC_NETWORK_SEEDS=1`. The hub keeps its store in
/// `hub.sqlite`; a second test runs fewer seeds with the store in PostgreSQL
/// (`TESSERA_SYNC_NETWORK_POSTGRES_SEEDS`, 25 by default).
@Suite("Convergence through a faulty network", .timeLimit(.minutes(20)))
struct SyncFaultPropertyTests {
    static let environment = ProcessInfo.processInfo.environment
    static let seeds = UInt64(environment["TESSERA_SYNC_NETWORK_SEEDS"] ?? "") ?? 200
    static let firstSeed = UInt64(environment["TESSERA_SYNC_NETWORK_FIRST_SEED"] ?? "") ?? 1
    static let postgresSeeds = UInt64(environment["TESSERA_SYNC_NETWORK_POSTGRES_SEEDS"] ?? "") ?? 25
    static let steps = 40

    @Test func threeDevicesConvergeWhateverTheNetworkDoes() async throws {
        try await Self.converge(seeds: Self.seeds, backend: .sqlite)
    }

    @Test(.needs("initdb", "pg_ctl")) func threeDevicesConvergeThroughAHubOnPostgreSQL() async throws {
        try await Self.converge(seeds: Self.postgresSeeds, backend: .postgresql)
    }

    static func converge(seeds: UInt64, backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            try await hub.addPerson("ada")
            var tokens: [String] = []
            for name in ["phone", "laptop", "tablet", "new tablet"] { tokens.append(try await hub.login("ada", device: name)) }
            var failures: [String] = [], faults: [String: Int] = [:]
            for seed in Self.firstSeed..<(Self.firstSeed + seeds) {
                let run = try await Self.run(seed: seed, hub: hub, tokens: tokens)
                if let problem = run.problem { failures.append("seed \(seed): \(problem)") }
                faults.merge(run.faults, uniquingKeysWith: +)
            }
            print("sync property (\(backend.rawValue)): \(seeds) seeds × \(Self.steps) steps; requests by fault: \(faults.sorted { $0.key < $1.key })")
            #expect(failures.isEmpty, "\(failures.count) of \(seeds) seeds did not converge; first: \(failures.prefix(3).map { String($0.prefix(400)) })")
            #expect(faults.keys.count == FaultProxy.Fault.allCases.count, "every fault was exercised: \(faults)")
        }
    }

    /// One seed: random edits and rounds through the proxy, then rounds on a healed network until
    /// everyone is in sync; returns what differs, if anything, and the faults met.
    static func run(seed: UInt64, hub: HubTestServer, tokens: [String]) async throws -> (problem: String?, faults: [String: Int]) {
        let proxy = try FaultProxy(upstreamPort: hub.port, seed: seed)
        defer { proxy.stop() }
        let plugin = "dev.tessera.seed\(seed)"
        func device(_ index: Int, via port: Int) throws -> (DeviceReplica, DeviceSync) {
            let replica = try DeviceReplica(hub: hub, token: tokens[index], node: seed << 4 | UInt64(index), clock: hub.clock.now)
            var sync = DeviceSync(hub: HubConnection(baseURL: "http://127.0.0.1:\(port)", token: tokens[index], timeout: 10), plugin: plugin,
                                  store: replica.store, state: try SyncPeerState(path: hub.root + "/peers-\(seed)-\(index).sqlite"))
            if seed % 2 == 1 {
                // Small pages gathered into small batches, so that faults also fall between the
                // pages of one batch (its changes not yet applied, its cursor not yet saved).
                sync.pullPage = 2
                sync.applyBatch = 5
            }
            return (replica, sync)
        }
        let devices = try (0..<3).map { try device($0, via: proxy.port) }
        var random = SplitMix64(seed: seed &* 0x2545_F491_4F6C_DD1D)
        for _ in 0..<steps {
            let (replica, sync) = devices[Int(random.next() % 3)]
            hub.clock.advance(Double(random.next() % 3))
            if random.next() % 5 < 3 { edit(replica, &random) } else { _ = try? await sync.round() }
        }
        proxy.heal()
        for _ in 0..<2 {
            for (_, sync) in devices {
                if let error = await Self.roundOnHealedNetwork(sync) { return ("a round on the healed network failed: \(error)", proxy.counts) }
            }
        }
        // A device that joins now must get the same state from the hub alone.
        let (newcomer, newcomerSync) = try device(3, via: hub.port)
        _ = try await newcomerSync.round()
        let states = try (devices.map(\.0) + [newcomer]).map { try [$0.notes().description, $0.store.conflicts().description] }
        if Set(states).count != 1 { return ("the devices differ: \(states)", proxy.counts) }
        return (nil, proxy.counts)
    }

    /// A round once the network has healed. A transport failure there — a request timing out while
    /// the whole suite (browsers, hubs, builds of fixtures) shares two cores: 7 and 8 retries in the
    /// full runs of 2026-11-29, once three in a row at one hub — is retried up to five times and
    /// counted, so that it shows in the output; any other error, or a sixth failure, is the test's
    /// failure. What the test judges is convergence, not the machine's load.
    static func roundOnHealedNetwork(_ sync: DeviceSync) async -> (any Error)? {
        for attempt in 1...6 {
            do {
                _ = try await sync.round()
                return nil
            } catch let error as SyncClientError where error.code == "unavailable" && attempt < 6 {
                print("sync property: a round on the healed network was retried after: \(error)")
            } catch {
                return error
            }
        }
        return nil
    }

    /// A random put, patch (of the conflict-keeping `body` too) or delete of one of six notes.
    static func edit(_ replica: DeviceReplica, _ random: inout SplitMix64) {
        let id = "n\(random.next() % 6)", word = ["tea", "walk", "exam", "sleep", "code"][Int(random.next() % 5)]
        let change: RecordChange
        switch random.next() % 4 {
        case 0: change = .put(table: "notes", id: id, values: ["title": .text(word), "stars": .integer(Int64(random.next() % 5))])
        case 1: change = .patch(table: "notes", id: id, values: ["body": .text("\(word) \(random.next() % 100)")])
        case 2: change = .patch(table: "notes", id: id, values: ["stars": .integer(Int64(random.next() % 5))])
        default: change = .delete(table: "notes", id: id)
        }
        _ = try? replica.store.write([change], in: "personal")  // a patch of a missing note is refused: that is fine
    }
}
