import Foundation
import Testing
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// Hot swap in the process tier (docs/hot-swap.md, docs/isolation.md): each new build gets a child
/// of its own, the slot moves over through the generation pipeline with the state exported by the
/// old child and imported by the new one, and the old child exits.
@Suite(.hangWatchdog) struct ProcessHotSwapTests {
    func workspace(_ name: String) async throws -> FixtureWorkspace {
        let ws = FixtureWorkspace(name)
        ws.addManifest(id: "fixture.counter", library: try await PluginBuilder.library(.counterA)) { m in
            m["operations"] = ["count", "pid"].map { ["name": $0, "input": ["type": "object"] as [String: Any], "output": ["type": "object"] as [String: Any]] }
            m["hotSwap"] = true
            m["state"] = ["schema": 1]
        }
        ws.writeDeployment(plugins: [entry("fixture.counter", grants: [:], extra: ["isolation": "process"])])
        return ws
    }

    @Test func swapsUnderCallsLoseNoCallKeepTheCountAndEachOldChildExits() async throws {
        let builds = [try await PluginBuilder.library(.counterB), try await PluginBuilder.library(.counterA)]
        let host = try await startHost(try await workspace("process-swap"))
        #expect(host.status(of: "fixture.counter")?.state == .active, "\(host.status(of: "fixture.counter")?.history ?? [])")
        let first = try #require(host.isolatedProcessID("fixture.counter"))
        #expect(first != getpid())
        let swaps = 4, callers = 4, callsPerCaller = 40
        let swapping = Task {
            var served: [(SwapReport, Int32)] = []
            for i in 0..<swaps {
                let report = try await host.swap("fixture.counter", to: .library(builds[i % 2]), drainTimeout: .seconds(120))
                served.append((report, host.isolatedProcessID("fixture.counter") ?? -1))
            }
            return served
        }
        let results = try await withThrowingTaskGroup(of: [JSONValue].self) { group in
            for _ in 0..<callers {
                group.addTask {
                    var replies: [JSONValue] = []
                    for _ in 0..<callsPerCaller { replies.append(try await host.call("fixture.counter", "count", input: [:], as: user)) }
                    return replies
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let served = try await swapping.value
        #expect(served.map(\.0.generation) == Array(2...(swaps + 1)))
        #expect(served.allSatisfy { $0.0.stateBytes > 0 })
        // No call lost or served twice: the counter, carried across the children, is exactly 1…n.
        let counts = results.compactMap { $0["count"]?.integerValue }
        #expect(counts.count == callers * callsPerCaller)
        #expect(Set(counts) == Set(1...Int64(callers * callsPerCaller)))
        let last = try await host.call("fixture.counter", "count", input: [:], as: user)
        #expect(last["count"] == .integer(Int64(callers * callsPerCaller + 1)))
        #expect(last["build"] == "A", "the fourth swap went back to build A")
        // Each swap had a new child; every child but the serving one has exited (stop waits for it).
        let pids = [first] + served.map(\.1)
        #expect(Set(pids).count == swaps + 1, "\(pids)")
        #expect(try await host.call("fixture.counter", "pid", input: [:], as: user)["pid"]?.integerValue == Int64(pids.last!))
        for old in pids.dropLast() {
            #expect(kill(old, 0) == -1 && errno == ESRCH, "child \(old) still exists")
        }
        #expect(host.status(of: "fixture.counter")?.generation == swaps + 1)
        await host.stop()
    }

    @Test func aBuildRefusedAtTheGatesLeavesTheServingChildAsItWas() async throws {
        let host = try await startHost(try await workspace("process-swap-refused"))
        _ = try await host.call("fixture.counter", "count", input: [:], as: user)
        let serving = try #require(host.isolatedProcessID("fixture.counter"))
        do {
            _ = try await host.swap("fixture.counter", to: .library(try await PluginBuilder.library(.good)))
            Issue.record("a build with another plugin's id was swapped in")
        } catch let error as PluginError {
            #expect(error.code == .unprocessable, "\(error)")
        }
        #expect(host.isolatedProcessID("fixture.counter") == serving)
        #expect(try await host.call("fixture.counter", "count", input: [:], as: user)["count"] == 2)
        await host.stop()
    }
}
