import Foundation
import Testing
import TesseraIsolation
import TesseraManifest
@testable import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// Memory and CPU limits per process-tier plugin, from the deployment entry's `limits`
/// (docs/isolation.md, "Limits"): applied in the child as rlimits; a plugin that runs past one is
/// reported as `plugin_crashed` naming the limit, and restarts like any crash.
@Suite(.hangWatchdog) struct ProcessLimitsTests {
    let sandbox = ProcessSandboxTests()

    @Test func aPluginThatAllocatesPastItsMemoryLimitCrashesNamingTheLimitAndRestarts() async throws {
        let (host, _) = try await sandbox.host("limits-memory", isolation: "process", limits: ["memoryMiB": 256])
        try await withCleanup({ await host.stop() }) {
            #expect(host.isolatedSandbox("fixture.isolated")?.mechanisms["memoryLimit"] == .enforced)
            let first = try #require(host.isolatedProcessID("fixture.isolated"))
            // Within the limit: it works.
            let small = try await host.call("fixture.isolated", "allocate", input: ["mib": 32], as: user)
            #expect(small["mib"] == 32)
            // Past it: the allocation fails in the child, which dies; the call says why.
            let crash = await callError(host, "fixture.isolated", "allocate", ["mib": 1024], as: user)
            #expect(crash?.code == .pluginCrashed, "\(String(describing: crash))")
            #expect(crash?.message.contains("reached its memory limit of 256 MiB") == true, "\(String(describing: crash))")
            // The host serves on, and the plugin restarts after its backoff like after any crash.
            #expect(try await host.call("fixture.good", "hello", input: [:], as: user)["hello"] == "world")
            _ = try await host.advanceClock(by: 1)
            #expect(try await host.call("fixture.isolated", "echo", input: ["a": 1], as: user) == ["a": 1])
            #expect(host.isolatedProcessID("fixture.isolated") != first)
        }
    }

    @Test func aPluginThatSpinsPastItsCPULimitIsKilledNamingTheLimit() async throws {
        let (host, _) = try await sandbox.host("limits-cpu", isolation: "process", limits: ["cpuSeconds": 1])
        try await withCleanup({ await host.stop() }) {
            #expect(host.isolatedSandbox("fixture.isolated")?.mechanisms["cpuLimit"] == .enforced)
            // The deadline is an hour on the host's (virtual, unmoved) clock: only the CPU limit ends it.
            let crash = await callError(host, "fixture.isolated", "spin", [:], as: user)
            #expect(crash?.code == .pluginCrashed, "\(String(describing: crash))")
            #expect(crash?.message.contains("reached its CPU limit of 1 s") == true, "\(String(describing: crash))")
            _ = try await host.advanceClock(by: 1)
            #expect(try await host.call("fixture.isolated", "echo", input: ["b": 2], as: user) == ["b": 2])
        }
    }

    @Test func theDeploymentRefusesALimitOutOfRangeNamingTheField() async throws {
        let ws = FixtureWorkspace("limits-invalid")
        ws.addManifest(id: "fixture.good", library: try await PluginBuilder.library(.good))
        ws.writeDeployment(plugins: [entry("fixture.good", extra: ["isolation": "process", "limits": ["memoryMiB": 1]])])
        #expect {
            _ = try DeploymentReader.read(file: ws.deploymentFile)
        } throws: { error in
            "\(error)".contains("$.plugins[0].limits.memoryMiB")
        }
    }
}
