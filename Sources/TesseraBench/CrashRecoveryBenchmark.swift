import Foundation
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraSystem

/// Crash-to-serving-again in the process tier (docs/isolation.md): the example plugin's child is
/// killed (`SIGKILL`, as the kernel's OOM killer does), and the time is taken until an `echo` is
/// answered by a new child: the reaping, the calls answered `plugin_crashed`/`unavailable`, a new
/// child spawned (sandbox applied), the library loaded and the plugin started again. The restart's
/// backoff is on the host's virtual clock, which is moved past it at once: the figure is the cost
/// of a restart, not the policy's wait. Also counts the host's open descriptors after the first
/// restart and after the last: a crashed child's sockets and pipes must all be closed.
func crashRecoveryBenchmark(buildDirectory: String, scratch: String, rounds: Int) async throws
    -> (restart: Summary, descriptorsAfterFirst: Int, descriptorsAfterLast: Int)
{
    let deployment = try writeExampleDeployment(tier: "process", buildDirectory: buildDirectory, to: scratch + "/isolation-crash.json")
    var options = HostOptions(dataDirectory: scratch + "/isolation-crash-data", onlyPlugins: ["dev.tessera.example"])
    options.isolation = IsolationPolicy(quarantineAfter: .max)  // every round restarts; none quarantines
    let host = try PluginHost(deployment: try DeploymentReader.read(file: deployment), options: options)
    await host.start()
    return try await withCleanup({ await host.stop() }) {
        let id = "dev.tessera.example", principal = Principal(id: "bench", role: .user)
        let echo = Array(#"{"id":"3f2b8c1e-9a4d-4e2f-8b7a-1c2d3e4f5a6b","title":"t","amount":1,"date":"2026-03-02","tags":[]}"#.utf8)
        var samples: [Double] = []
        var afterFirst = 0
        for round in 0..<rounds {
            guard let pid = host.isolatedProcessID(id) else { throw PluginError(.unavailable, "no child serves \(id)") }
            let start = monotonicNanoseconds()
            kill(pid, SIGKILL)
            while true {
                do {
                    _ = try await host.call(id, "echo", json: echo, as: principal)
                    if let now = host.isolatedProcessID(id), now != pid { break }
                } catch let error as PluginError {
                    // The crash, or the restart's backoff: move past it. Anything else is a real failure.
                    let expected: Set<PluginError.Code> = [PluginError.Code.pluginCrashed, PluginError.Code.unavailable]
                    guard expected.contains(error.code) else { throw error }
                    _ = try await host.advanceClock(by: 60)
                }
            }
            samples.append(Double(monotonicNanoseconds() - start))
            if round == 0 { afterFirst = openDescriptors() }
        }
        return (Summary(samples), afterFirst, openDescriptors())
    }
}

/// How many descriptors this process has open (`/proc/self/fd`, less the one reading it).
func openDescriptors() -> Int {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.count ?? 1) - 1
}
