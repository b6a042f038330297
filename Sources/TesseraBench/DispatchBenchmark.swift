import Foundation
import TesseraManifest
import TesseraRuntime
import TesseraSDK

/// A no-op operation (`echo` of the example plugin) with a ~200-byte JSON input, through the whole
/// in-process call path: parse, schema validation, decode, call, encode.
func dispatchBenchmark(deploymentFile: String, scratch: String, calls: Int) async throws -> (summary: Summary, inputBytes: Int) {
    let deployment = try DeploymentReader.read(file: deploymentFile)
    let host = try PluginHost(deployment: deployment, options: HostOptions(dataDirectory: scratch + "/dispatch-data", onlyPlugins: ["dev.tessera.example"]))
    await host.start()
    guard host.status(of: "dev.tessera.example")?.state == .active else {
        throw PluginError(.unavailable, "example plugin not active: \(host.status(of: "dev.tessera.example")?.reason ?? "?")")
    }
    let input = Array(echoInputJSON.utf8)
    let principal = Principal(id: "bench", role: .user)
    for _ in 0..<1000 { _ = try await host.call("dev.tessera.example", "echo", json: input, as: principal) }  // warm up
    var samples: [Double] = []
    samples.reserveCapacity(calls)
    for _ in 0..<calls {
        let t = monotonicNanoseconds()
        _ = try await host.call("dev.tessera.example", "echo", json: input, as: principal)
        samples.append(Double(monotonicNanoseconds() - t))
    }
    await host.stop()
    return (Summary(samples), input.count)
}
