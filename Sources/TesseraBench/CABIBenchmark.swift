import Foundation
import TesseraLoader
import TesseraManifest
import TesseraRuntime
import TesseraSDK

/// What `tessera-bench c-abi` measured: each plugin's echo in each tier, and each library's load.
struct CABIFigures {
    var echo: [(plugin: String, tier: String, summary: Summary)] = []
    var load: [(plugin: String, summary: Summary)] = []
}

/// The C-ABI plugins beside the Swift example, in the same run (docs/c-abi.md): the same `echo`
/// (the dispatch benchmark's ~190-byte input) through the Swift example, the C plugin and the Rust
/// one, all three on one host per tier, taken in turns of calls so the machine's drift falls on all
/// alike; and gates 1 to 3 on a new build of each (a Swift plugin's handshake makes its factory; a
/// C one's reads its table).
func cABIBenchmark(buildDirectory: String, scratch: String, calls: Int) async throws -> CABIFigures {
    let subjects = [("Swift example", "dev.tessera.example"), ("C notes", "dev.tessera.c-notes"), ("Rust notes", "dev.tessera.rust-notes")]
    let echo = Array(echoInputJSON.utf8)
    let principal = Principal(id: "bench", role: .user)
    var figures = CABIFigures()
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    for tier in ["inProcess", "process"] {
        let deployment = scratch + "/c-abi-\(tier).json"
        let plugins = subjects.map { #"{"id": "\#($0.1)", "isolation": "\#(tier)", "grants": {"storage": {}, "clock": {}}}"# }
        try Data("""
            {"name": "bench", "role": "device", "manifestDirectories": ["\(FileManager.default.currentDirectoryPath)/manifests"],
             "libraryPaths": ["\(buildDirectory)"], "providers": {"clock": {"kind": "virtual"}},
             "plugins": [\(plugins.joined(separator: ", "))]}
            """.utf8).write(to: URL(fileURLWithPath: deployment))
        let host = try PluginHost(deployment: try DeploymentReader.read(file: deployment),
                                  options: HostOptions(dataDirectory: scratch + "/c-abi-data-\(tier)"))
        await host.start()
        for (name, id) in subjects where host.status(of: id)?.state != .active {
            throw PluginError(.unavailable, "\(name) is not active (\(tier)): \(host.status(of: id)?.reason ?? "?")")
        }
        progress("c-abi, \(tier): \(calls) echo calls on each of \(subjects.count) plugins, in turns of \(max(1, calls / 20))")
        for (_, id) in subjects { for _ in 0..<max(1, calls / 10) { _ = try await host.call(id, "echo", json: echo, as: principal) } }
        var samples: [[Double]] = subjects.map { _ in [] }
        for _ in 0..<20 {
            for (i, subject) in subjects.enumerated() {
                for _ in 0..<max(1, calls / 20) {
                    let t = monotonicNanoseconds()
                    _ = try await host.call(subject.1, "echo", json: echo, as: principal)
                    samples[i].append(Double(monotonicNanoseconds() - t))
                }
            }
        }
        await host.stop()
        for (i, subject) in subjects.enumerated() { figures.echo.append((subject.0, tier, Summary(samples[i]))) }
    }
    let libraries = [("Swift hello", "libTesseraHello.so", false), ("C notes", "libTesseraCNotes.so", true),
                     ("Rust notes", "libtessera_rust_notes.so", true)]
    progress("c-abi: gates 1 to 3 on 10 new builds of each library")
    for (name, file, isCABI) in libraries {
        let builds = try writeDistinctBuilds(of: buildDirectory + "/" + file, count: 10, into: scratch + "/c-abi-builds",
                                             salt: UInt64(getpid()))
        var loads: [Double] = []
        for build in builds {
            let t = monotonicNanoseconds()
            let library = try FileGate.verify(path: build, manifest: nil, host: .current)
            _ = try LibraryLoader.openAndShakeHands(path: library.path, isCABI: isCABI, expectedID: nil)
            loads.append(Double(monotonicNanoseconds() - t))
        }
        figures.load.append((name, Summary(loads)))
    }
    return figures
}
