import Foundation
import TesseraManifest
import TesseraRuntime
import TesseraSDK

/// What `tessera-bench isolation` measured: each operation in the host's process and in the process
/// tier, and the echo through the process tier without lanes, taken in turns with the echo on lanes.
struct IsolationFigures {
    var rows: [(name: String, inProcess: Summary, process: Summary)]
    /// The echo on lanes (the default) and through the reader thread (no lanes), in alternating blocks.
    var echoOnLanes: Summary
    var echoWithoutLanes: Summary
}

/// The process tier's cost (docs/isolation.md): the example plugin's `echo` (the dispatch
/// benchmark's ~190-byte input) and `add-note` (one storage write, which crosses the socket twice
/// more: the plugin's write to the host and its answer), each in-process and in the process tier,
/// in the same run. The echo through the process tier is measured on two hosts at once, one whose
/// child has lanes and one whose child has none, in alternating blocks of calls, so that the
/// machine's drift (other work, a slower minute) falls on both alike.
func isolationBenchmark(buildDirectory: String, scratch: String, calls: Int) async throws -> IsolationFigures {
    let echo = Array(#"{"id":"3f2b8c1e-9a4d-4e2f-8b7a-1c2d3e4f5a6b","title":"Groceries at the market","amount":12550,"date":"2026-03-02","tags":["food","weekly","cash"],"note":"paid in cash, receipt in the drawer"}"#.utf8)
    let principal = Principal(id: "bench", role: .user)
    let callEcho = { (host: PluginHost) in _ = try await host.call("dev.tessera.example", "echo", json: echo, as: principal) }
    let addNote = { (host: PluginHost, i: Int) in
        _ = try await host.call("dev.tessera.example", "add-note", input: ["text": .string("note \(i)")], as: principal)
    }

    let inProcess = try await startHost(tier: "inProcess", lanes: nil, buildDirectory: buildDirectory, scratch: scratch)
    progress("isolation, inProcess: \(calls) echo calls, \(calls / 10) add-note calls")
    let inProcessEcho = try await ProfilerWindow.around("echo-inProcess") { try await measure(calls) { _ in try await callEcho(inProcess) } }
    let inProcessWrite = try await measure(calls / 10) { try await addNote(inProcess, $0) }
    await inProcess.stop()

    let onLanes = try await startHost(tier: "process", lanes: nil, buildDirectory: buildDirectory, scratch: scratch)
    let withoutLanes = try await startHost(tier: "process", lanes: 0, buildDirectory: buildDirectory, scratch: scratch + "/no-lanes")
    progress("isolation, process: \(calls) echo calls on lanes and \(calls) without, in turns of \(max(1, calls / 20))")
    _ = try await measure(calls / 10) { _ in try await callEcho(withoutLanes) }
    var lanesSamples: [Double] = [], noLanesSamples: [Double] = []
    try await ProfilerWindow.around("echo-process") {
        for _ in 0..<20 {
            lanesSamples += try await timed(max(1, calls / 20)) { _ in try await callEcho(onLanes) }
            noLanesSamples += try await timed(max(1, calls / 20)) { _ in try await callEcho(withoutLanes) }
        }
    }
    progress("isolation, process: \(calls / 10) add-note calls")
    let processWrite = try await measure(calls / 10) { try await addNote(onLanes, $0) }
    await onLanes.stop()
    await withoutLanes.stop()

    return IsolationFigures(rows: [("echo", inProcessEcho, Summary(lanesSamples)), ("write (add-note)", inProcessWrite, processWrite)],
                            echoOnLanes: Summary(lanesSamples), echoWithoutLanes: Summary(noLanesSamples))
}

/// A host with the example plugin alone, in `tier`; `lanes` as ``IsolationPolicy/callLanes``.
private func startHost(tier: String, lanes: Int?, buildDirectory: String, scratch: String) async throws -> PluginHost {
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    let deployment = try writeExampleDeployment(tier: tier, buildDirectory: buildDirectory, to: scratch + "/isolation-\(tier).json")
    var options = HostOptions(dataDirectory: scratch + "/isolation-\(tier)-data", onlyPlugins: ["dev.tessera.example"])
    options.isolation.callLanes = lanes
    let host = try PluginHost(deployment: try DeploymentReader.read(file: deployment), options: options)
    progress("isolation, \(tier)\(lanes == 0 ? " without lanes" : ""): starting the host")
    await host.start()
    guard host.status(of: "dev.tessera.example")?.state == .active else {
        throw PluginError(.unavailable, "example plugin not active (\(tier)): \(host.status(of: "dev.tessera.example")?.reason ?? "?")")
    }
    return host
}

/// Writes a deployment of the example plugin alone, in `tier` (`inProcess` or `process`), with
/// storage and the virtual clock, on the manifests of the working directory; returns its path.
func writeExampleDeployment(tier: String, buildDirectory: String, to path: String) throws -> String {
    try Data("""
        {"name": "bench", "role": "device", "manifestDirectories": ["\(FileManager.default.currentDirectoryPath)/manifests"],
         "libraryPaths": ["\(buildDirectory)"], "providers": {"clock": {"kind": "virtual"}},
         "plugins": [{"id": "dev.tessera.example", "isolation": "\(tier)", "grants": {"storage": {}, "clock": {}}}]}
        """.utf8).write(to: URL(fileURLWithPath: path))
    return path
}

/// Warms up with a tenth of `count` calls, then times `count`.
private func measure(_ count: Int, _ call: (Int) async throws -> Void) async throws -> Summary {
    for i in 0..<max(1, count / 10) { try await call(-1 - i) }
    return Summary(try await timed(count, call))
}

/// The nanoseconds of each of `count` calls.
private func timed(_ count: Int, _ call: (Int) async throws -> Void) async throws -> [Double] {
    var samples: [Double] = []
    samples.reserveCapacity(count)
    for i in 0..<count {
        let t = monotonicNanoseconds()
        try await call(i)
        samples.append(Double(monotonicNanoseconds() - t))
    }
    return samples
}
