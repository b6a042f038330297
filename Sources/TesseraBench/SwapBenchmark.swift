import Foundation
import TesseraManifest
import TesseraRuntime
import TesseraSDK

/// The hot-swap benchmark: the example plugin (made swappable in a scratch copy of its manifest)
/// serves four callers without pause while it is swapped `swaps` times, each time to a distinct
/// copy of its library (a byte appended, so each copy is a new build at a new path and is mapped
/// anew). Reports the admission pause of each swap and the resident memory each retired
/// generation keeps.
struct SwapBenchmarkResult {
    var pause: Summary
    var residentBytesPerRetired: Double
    var libraryBytes: Int
    var calls: Int
    var failedCalls: Int
}

func swapBenchmark(library: String, manifest: String, scratch: String, swaps: Int) async throws -> SwapBenchmarkResult {
    let manifests = scratch + "/manifests"
    try FileManager.default.createDirectory(atPath: manifests, withIntermediateDirectories: true)
    var document = try JSONValue(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: manifest))))
    if case .object(var members) = document {
        members["hotSwap"] = true
        members["library"] = ["path": .string(library)]
        document = .object(members)
    }
    try document.serialized().write(toFile: manifests + "/example.json", atomically: true, encoding: .utf8)
    let deploymentFile = scratch + "/deployment.json"
    try #"{"name": "swap-bench", "role": "device", "manifestDirectories": ["manifests"], "providers": {"clock": {"kind": "virtual"}}, "plugins": [{"id": "dev.tessera.example", "grants": {"storage": {}, "clock": {}}}]}"#
        .write(toFile: deploymentFile, atomically: true, encoding: .utf8)

    // Distinct builds: the library with 1, 2, … bytes appended (an ELF file ends where its
    // headers say; trailing bytes change only its sha256 and so its staged path).
    let original = try Data(contentsOf: URL(fileURLWithPath: library))
    let variants = try (1...swaps).map { i -> String in
        let path = scratch + "/libTesseraExample-\(i).so"
        try (original + Data(repeating: 0, count: i)).write(to: URL(fileURLWithPath: path))
        return path
    }

    let host = try PluginHost(deployment: DeploymentReader.read(file: deploymentFile), options: HostOptions(dataDirectory: scratch + "/data"))
    await host.start()
    guard host.status(of: "dev.tessera.example")?.state == .active else {
        throw PluginError(.unavailable, "example plugin not active: \(host.status(of: "dev.tessera.example")?.reason ?? "?")")
    }
    let input: JSONValue = ["id": "3f2b8c1e-9a4d-4e2f-8b7a-1c2d3e4f5a6b", "title": "t", "amount": 1, "date": "2026-03-02", "tags": []]
    let principal = Principal(id: "bench", role: .user)
    let running = ManagedAtomicFlag()
    let callers = (0..<4).map { _ in
        Task { () -> (Int, Int) in
            var calls = 0, failed = 0
            while !running.isStopped {
                do { _ = try await host.call("dev.tessera.example", "echo", input: input, as: principal) } catch { failed += 1 }
                calls += 1
            }
            return (calls, failed)
        }
    }
    let residentBefore = residentBytes()
    var pauses: [Double] = []
    for variant in variants {
        let report = try await host.swap("dev.tessera.example", to: .library(variant))
        pauses.append(report.pause.timeInterval * 1e9)
    }
    let residentAfter = residentBytes()
    running.stop()
    var calls = 0, failed = 0
    for caller in callers { let (c, f) = await caller.value; calls += c; failed += f }
    await host.stop()
    return SwapBenchmarkResult(pause: Summary(pauses), residentBytesPerRetired: Double(residentAfter - residentBefore) / Double(swaps),
                               libraryBytes: original.count, calls: calls, failedCalls: failed)
}

/// A stop flag shared by the callers.
final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    var isStopped: Bool { lock.lock(); defer { lock.unlock() }; return stopped }
    func stop() { lock.lock(); stopped = true; lock.unlock() }
}
