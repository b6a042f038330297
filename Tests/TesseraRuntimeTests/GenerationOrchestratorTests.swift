import Foundation
import Testing
import TesseraManifest
@testable import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// The generations part of the host (`Sources/TesseraRuntime/Generations/`): a start, a swap and a
/// reload take every plugin through the one pipeline sequence, whichever tier it runs in, so the
/// two tiers' histories, refusals and reports read alike (docs/architecture.md, "Generations").
@Suite(.hangWatchdog) struct GenerationOrchestratorTests {
    static let id = "fixture.counter"

    func workspace(_ name: String, tier: Isolation) async throws -> FixtureWorkspace {
        let ws = FixtureWorkspace("\(name)-\(tier.rawValue)")
        ws.addManifest(id: Self.id, library: try await PluginBuilder.library(.counterA)) { m in
            m["operations"] = ["count"].map { ["name": $0, "input": ["type": "object"] as [String: Any], "output": ["type": "object"] as [String: Any]] }
            m["hotSwap"] = true
            m["state"] = ["schema": 1]
        }
        ws.writeDeployment(plugins: [entry(Self.id, grants: [:], extra: ["isolation": tier.rawValue])])
        return ws
    }

    /// The lifecycle states a history went through, without their notes.
    func states(_ host: PluginHost) -> [String] {
        (host.status(of: Self.id)?.history ?? []).map { String($0.prefix { $0 != ":" }) }
    }

    @Test(arguments: [Isolation.inProcess, .process])
    func aStartWalksTheSameStepsInEitherTier(tier: Isolation) async throws {
        let host = try await startHost(try await workspace("orchestrator-start", tier: tier))
        try await withCleanup({ await host.stop() }) {
            #expect(states(host) == ["discovered", "validated", "loaded", "resolved", "starting", "active"], "\(host.status(of: Self.id)?.history ?? [])")
            let history = host.status(of: Self.id)?.history ?? []
            #expect(history.contains { $0.hasPrefix("validated: gate 1 passed: sha256 ") }, "gate 1 is heard of before any code of the library runs")
            let first = try await host.call(Self.id, "count", input: [:], as: user)
            #expect(first["count"] == 1)
        }
    }

    @Test(arguments: [Isolation.inProcess, .process])
    func aSwapMovesTheStateAndReportsAlikeInEitherTier(tier: Isolation) async throws {
        let host = try await startHost(try await workspace("orchestrator-swap", tier: tier))
        try await withCleanup({ await host.stop() }) {
            _ = try await host.call(Self.id, "count", input: [:], as: user)
            let build = try await PluginBuilder.library(.counterB)
            let report = try await host.swap(Self.id, to: .library(build))
            #expect(report.generation == 2)
            #expect(report.stateBytes > 0, "the count crossed to the new build")
            #expect(report.libraryPath == nil || report.libraryPath?.contains("/generations/") == true)
            let reply = try await host.call(Self.id, "count", input: [:], as: user)
            #expect(reply["count"] == 2 && reply["build"] == "B", "\(reply)")
            #expect(states(host).last == "active")
            #expect(host.status(of: Self.id)?.history.last?.hasPrefix("active: swapped in generation 2") == true)
        }
    }

    @Test(arguments: [Isolation.inProcess, .process])
    func aRefusedBuildIsRefusedAlikeInEitherTier(tier: Isolation) async throws {
        let ws = try await workspace("orchestrator-refused", tier: tier)
        let host = try await startHost(ws)
        try await withCleanup({ await host.stop() }) {
            _ = try await host.call(Self.id, "count", input: [:], as: user)
            // Gate 3, run here or in a throwaway child: the build says it is another plugin.
            let other = try await PluginBuilder.library(.good)
            let handshake = await refusal(try await host.swap(Self.id, to: .library(other)))
            #expect(handshake?.code == .unprocessable)
            #expect(handshake?.message == "swap refused: gate 3 (handshake): id: expected fixture.counter (manifest), found fixture.good (plugin); the old generation keeps serving")
            // Gate 1, always here: not a library at all, named as the operator gave it.
            let text = ws.root + "/libNotALibrary.so"
            Fixtures.write("not a shared library", to: text)
            let gate1 = await refusal(try await host.swap(Self.id, to: .library(text)))
            #expect(gate1?.code == .unprocessable)
            #expect(gate1?.message.contains("gate 1") == true && gate1?.message.contains(text) == true, "\(gate1?.message ?? "")")
            #expect(gate1?.message.contains("/generations/") == false, "not its staged copy: \(gate1?.message ?? "")")
            #expect(host.status(of: Self.id)?.generation == 1)
            let reply = try await host.call(Self.id, "count", input: [:], as: user)
            #expect(reply["count"] == 2, "the serving generation kept its state")
        }
    }

    /// The error a swap refused with, or `nil` (recorded as an issue) if it went through.
    func refusal(_ swap: @autoclosure () async throws(PluginError) -> SwapReport) async -> PluginError? {
        do {
            _ = try await swap()
            Issue.record("the build was swapped in")
            return nil
        } catch {
            return error
        }
    }

    @Test func linkedCodeIsSwappedInOnlyInTheHostsOwnProcess() async throws {
        let host = try await startHost(try await workspace("orchestrator-linked", tier: .process))
        try await withCleanup({ await host.stop() }) {
            do {
                _ = try await host.swap(Self.id, to: .inProcess(PluginFactory { fatalError("never made") }))
                Issue.record("linked code was swapped into the process tier")
            } catch let error as PluginError {
                #expect(error.code == .unprocessable)
                #expect(error.message.contains("runs in the process tier, so it is swapped to a library build"), "\(error.message)")
            }
            #expect(host.status(of: Self.id)?.state == .active)
        }
    }

    @Test func eventRoutesFollowTheEnabledManifests() async throws {
        let ws = try await workspace("orchestrator-events", tier: .inProcess)
        let host = try await startHost(ws)
        try await withCleanup({ await host.stop() }) {
            #expect(host.generations.eventSubscriptions().isEmpty, "the counter consumes nothing")
            #expect(host.generations.registry.all.map(\.id) == [Self.id])
            #expect(host.deployment.file == host.generations.deployment.file)
        }
    }
}
