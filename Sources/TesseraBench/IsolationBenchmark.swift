import Foundation
import TesseraManifest
import TesseraRuntime
import TesseraSDK

/// The process tier's cost (docs/isolation.md): the example plugin's `echo` (the dispatch
/// benchmark's ~190-byte input) and `add-note` (one storage write, which crosses the socket twice
/// more: the plugin's write to the host and its answer), each in-process and in the process tier,
/// in the same run.
func isolationBenchmark(buildDirectory: String, scratch: String, calls: Int) async throws -> [(name: String, inProcess: Summary, process: Summary)] {
    var inProcess: [String: Summary] = [:], process: [String: Summary] = [:]
    for tier in ["inProcess", "process"] {
        let deployment = scratch + "/isolation-\(tier).json"
        try Data("""
            {"name": "bench", "role": "device", "manifestDirectories": ["\(FileManager.default.currentDirectoryPath)/manifests"],
             "libraryPaths": ["\(buildDirectory)"], "providers": {"clock": {"kind": "virtual"}},
             "plugins": [{"id": "dev.tessera.example", "isolation": "\(tier)", "grants": {"storage": {}, "clock": {}}}]}
            """.utf8).write(to: URL(fileURLWithPath: deployment))
        let host = try PluginHost(deployment: try DeploymentReader.read(file: deployment),
                                  options: HostOptions(dataDirectory: scratch + "/isolation-\(tier)-data", onlyPlugins: ["dev.tessera.example"]))
        progress("isolation, \(tier): starting the host")
        await host.start()
        guard host.status(of: "dev.tessera.example")?.state == .active else {
            throw PluginError(.unavailable, "example plugin not active (\(tier)): \(host.status(of: "dev.tessera.example")?.reason ?? "?")")
        }
        let echo = Array(#"{"id":"3f2b8c1e-9a4d-4e2f-8b7a-1c2d3e4f5a6b","title":"Groceries at the market","amount":12550,"date":"2026-03-02","tags":["food","weekly","cash"],"note":"paid in cash, receipt in the drawer"}"#.utf8)
        let principal = Principal(id: "bench", role: .user)
        progress("isolation, \(tier): \(calls) echo calls")
        let echoSummary = try await ProfilerWindow.around("echo-\(tier)") {
            try await measure(calls) { _ in _ = try await host.call("dev.tessera.example", "echo", json: echo, as: principal) }
        }
        progress("isolation, \(tier): \(calls / 10) add-note calls")
        let writeSummary = try await measure(calls / 10) { i in
            _ = try await host.call("dev.tessera.example", "add-note", input: ["text": .string("note \(i)")], as: principal)
        }
        if tier == "process" {
            process["echo"] = echoSummary; process["write"] = writeSummary
        } else {
            inProcess["echo"] = echoSummary; inProcess["write"] = writeSummary
        }
        progress("isolation, \(tier): stopping the host")
        await host.stop()
    }
    return [("echo", inProcess["echo"]!, process["echo"]!), ("write (add-note)", inProcess["write"]!, process["write"]!)]
}

/// Warms up with a tenth of `count` calls, then times `count`.
private func measure(_ count: Int, _ call: (Int) async throws -> Void) async throws -> Summary {
    for i in 0..<max(1, count / 10) { try await call(-1 - i) }
    var samples: [Double] = []
    samples.reserveCapacity(count)
    for i in 0..<count {
        let t = monotonicNanoseconds()
        try await call(i)
        samples.append(Double(monotonicNanoseconds() - t))
    }
    return Summary(samples)
}
