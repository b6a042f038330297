import Foundation
import TesseraHTTP
import TesseraHub
import TesseraManifest
import TesseraRuntime
import TesseraSDK

/// N4 for safe travel (docs/safetravel.md): from an alert's deadline to its delivery in a
/// guardian's inbox, through a real hub. In this process: a hub (its store and HTTP API on
/// loopback) and two device hosts on the system clock with the shipped `libTesseraSafeTravel.so`,
/// each running as `tessera serve` does without its listener (the timer loop, and the long poll at
/// the hub); ada and bob paired as guardians. Each sample: ada's SOS, then `sos-alert-now` (the
/// deadline is that instant) or, for `deadlines` of them, the real PIN timeout (release + 15 s, the
/// deadline fired by the timer loop); the latency is bob's inbox entry's `deliveredAt` − `dueAt`
/// (one machine, one clock). Percentiles of all samples.
func travelBenchmark(samples: Int, deadlines: Int, scratch: String, buildDirectory: String) async throws -> [Double] {
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    let hubFile = scratch + "/hub.json"
    try Data(#"{"name": "bench-hub", "role": "hub", "manifestDirectories": [], "providers": {"clock": {"kind": "system"}}, "plugins": []}"#.utf8)
        .write(to: URL(fileURLWithPath: hubFile))
    let hubHost = try PluginHost(deployment: DeploymentReader.read(file: hubFile), options: HostOptions(dataDirectory: scratch + "/hub"))
    await hubHost.start()
    let hub = try await HubStore(dataDirectory: scratch + "/hub", now: { Date() })
    let server = HTTPServer(host: hubHost, tokens: TokenStore(dataDirectory: scratch + "/hub"),
                            configuration: HTTPConfiguration(port: 0, maxBodyBytes: 16 << 20, rateLimit: nil), hub: hub)
    let port = try await server.start()
    server.markReady()
    for name in ["ada", "bob"] { _ = try await hub.createPerson(name: name, password: "bench-password") }

    var background: [Task<Void, Never>] = []
    func device(_ name: String) async throws -> PluginHost {
        let file = scratch + "/\(name).json"
        try Data("""
            {"name": "\(name)", "role": "device", "manifestDirectories": ["\(FileManager.default.currentDirectoryPath)/manifests"],
             "libraryPaths": ["\(buildDirectory)"], "providers": {"clock": {"kind": "system"}, "sync": {"hub": "http://127.0.0.1:\(port)"}},
             "plugins": [{"id": "cz.tessera.safetravel", "config": {"pinIterations": 1000},
                          "grants": {"storage": {}, "clock": {}, "notifications": {"spaces": true}, "sync": {}}}]}
            """.utf8).write(to: URL(fileURLWithPath: file))
        let host = try PluginHost(deployment: DeploymentReader.read(file: file), options: HostOptions(dataDirectory: scratch + "/\(name)-data"))
        try await host.syncLogin(name: name, password: "bench-password", device: "\(name)'s phone")
        await host.start()
        background += host.startHubWatch()
        background.append(Task { await host.runTimers() })
        _ = try await host.call("cz.tessera.safetravel", "account-setup", input: ["username": .string(name), "pin": "4826"], as: user)
        return host
    }
    let ada = try await device("ada"), bob = try await device("bob")
    defer { for task in background { task.cancel() } }
    func call(_ host: PluginHost, _ op: String, _ input: JSONValue = [:]) async throws -> JSONValue {
        try await host.call("cz.tessera.safetravel", op, input: input, as: user)
    }
    _ = try await call(ada, "guardian-add", ["username": "bob"])
    let request = try await call(bob, "guardian-requests")["requests"]?.arrayValue?.first?["requestId"] ?? .null
    _ = try await call(bob, "guardian-accept", ["requestId": request])
    _ = try await call(ada, "guardian-requests")

    var latencies: [Double] = []
    for i in 0..<(samples + deadlines) {
        let sos = try await call(ada, "sos-touch-down")["sosId"]?.stringValue ?? ""
        if i < samples {
            _ = try await call(ada, "sos-alert-now")
        } else {
            try await Task.sleep(for: .seconds(3.5))
            _ = try await call(ada, "sos-touch-up")               // the alert is due 15 s later
        }
        let key = "alert-sos-\(sos)"
        let waitUntil = Date().addingTimeInterval(i < samples ? 60 : 75)
        while Date() < waitUntil {
            if let entry = try bob.inbox(limit: 50).first(where: { $0.key == key }) {
                latencies.append(entry.deliveredAt.timeIntervalSince(entry.dueAt))
                break
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        if latencies.count <= i { throw PluginError(.internal, "alert \(key) did not reach bob within a minute") }
        // Safe again before the next press: the PIN after the alert.
        _ = try await call(ada, "sos-enter-pin", ["pin": "4826"])
    }
    // The devices' waits at the hub and timer loops end first: a long poll still open at the
    // server's graceful stop kept a run from ending.
    for task in background { task.cancel() }
    await ada.stop(); await bob.stop()
    await server.stop()
    await hubHost.stop()
    return latencies
}

private let user = Principal(id: "bench", role: .user)

/// The `q` quantile of `samples` (nearest rank).
func quantile(_ samples: [Double], _ q: Double) -> Double {
    let sorted = samples.sorted()
    return sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, max(0, Int((Double(sorted.count) * q).rounded(.up)) - 1))]
}
