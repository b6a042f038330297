import Foundation
import TesseraFiles
import TesseraHTTP
import TesseraHub
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraSQLite
import TesseraSync
import TesseraSyncClient
import TesseraSystem

/// `photos` JPEGs of `kilobytes` KiB between two devices of one person through a real hub over
/// HTTP on loopback (docs/files.md, "Through the hub"): device A stores each photo in its files,
/// writes a record that refers to it, and runs a sync round (its uploads go before its push);
/// device B runs a round (the records come, the bytes not) and then fetches every missing file,
/// as the eager setting does, each checked against its address. A fresh hub and devices per run.
func hubFilesBenchmark(photos: Int, kilobytes: Int, runs: Int, scratch: String) async throws -> HubFilesBenchmarkResult {
    var result = HubFilesBenchmarkResult(photos: photos, bytes: photos * kilobytes * 1024)
    for run in 0..<runs {
        let (up, down) = try await hubFilesRun(photos: photos, kilobytes: kilobytes, scratch: scratch + "/run-\(run)")
        result.upSeconds.append(up)
        result.downSeconds.append(down)
        try? FileManager.default.removeItem(atPath: scratch + "/run-\(run)")
    }
    return result
}

struct HubFilesBenchmarkResult {
    let photos: Int
    let bytes: Int
    var upSeconds: [Double] = []
    var downSeconds: [Double] = []

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    var up: Double { Self.median(upSeconds) }
    var down: Double { Self.median(downSeconds) }
    var total: Double { Self.median(zip(upSeconds, downSeconds).map { $0 + $1 }) }
    func megabytesPerSecond(_ seconds: Double) -> Double { Double(bytes) / 1_048_576 / seconds }
}

/// One run: A → hub, then hub → B; the seconds of each.
private func hubFilesRun(photos: Int, kilobytes: Int, scratch: String) async throws -> (Double, Double) {
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    let deploymentFile = scratch + "/hub.json"
    try Data(#"{"name": "bench-hub", "role": "hub", "manifestDirectories": [], "providers": {"clock": {"kind": "system"}}, "plugins": []}"#.utf8)
        .write(to: URL(fileURLWithPath: deploymentFile))
    let data = scratch + "/hub-data"
    let host = try PluginHost(deployment: DeploymentReader.read(file: deploymentFile), options: HostOptions(dataDirectory: data))
    await host.start()
    let hub = try await HubStore(dataDirectory: data, now: { Date() })
    let files = HubFiles(store: hub, blobs: HubBlobStore(directory: data + "/hub-files"))
    let server = HTTPServer(host: host, tokens: TokenStore(dataDirectory: data),
                            configuration: HTTPConfiguration(port: 0, maxBodyBytes: 16 << 20, rateLimit: nil), hub: hub, hubFiles: files)
    let port = try await server.start()
    server.markReady()
    return try await withCleanup({ await server.stop(); await host.stop() }) {
        _ = try await hub.createPerson(name: "bench", password: "bench-password")
        let a = try filesBenchDevice(scratch + "/a", node: 0xA, hub: "http://127.0.0.1:\(port)",
                                     token: try await hub.login(name: "bench", password: "bench-password", deviceName: "a").token)
        let b = try filesBenchDevice(scratch + "/b", node: 0xB, hub: "http://127.0.0.1:\(port)",
                                     token: try await hub.login(name: "bench", password: "bench-password", deviceName: "b").token)
        // The photos are stored on A before the clock starts: the figure is the sync, not the put.
        for i in 0..<photos {
            var bytes = [UInt8](repeating: 0, count: kilobytes * 1024)
            bytes[0] = 0xFF; bytes[1] = 0xD8; bytes[2] = 0xFF
            var state = UInt64(i + 1) &* 0x9E37_79B9_7F4A_7C15
            for j in stride(from: 8, to: bytes.count - 8, by: 8) {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                withUnsafeBytes(of: state) { bytes.replaceSubrange(j..<j + 8, with: $0) }
            }
            let photo = try await a.channel.put(bytes)
            try a.sync.store.write([.put(table: "photos", id: "p\(i)", values: ["file": .text(photo.address)])], in: "personal")
            try await a.channel.link(photo.address, table: "photos", id: "p\(i)")
        }
        let start = Date()
        let up = try await a.sync.round()
        let upSeconds = Date().timeIntervalSince(start)
        guard up.filesUploaded.count == photos, up.fileFailures.isEmpty else {
            throw PluginError(.internal, "A uploaded \(up.filesUploaded.count) of \(photos) photos: \(up.fileFailures.prefix(3))")
        }
        let middle = Date()
        _ = try await b.sync.round()
        let fetched = await b.sync.files!.fetchMissing()
        let downSeconds = Date().timeIntervalSince(middle)
        guard fetched.fetched.count == photos, fetched.failed.isEmpty else {
            throw PluginError(.internal, "B fetched \(fetched.fetched.count) of \(photos) photos: \(fetched.failed.prefix(3))")
        }
        return (upSeconds, downSeconds)
    }
}

private struct FilesBenchDevice {
    let channel: PluginFileChannel
    let sync: DeviceSync
}

private func filesBenchDevice(_ directory: String, node: UInt64, hub: String, token: String) throws -> FilesBenchDevice {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let database = try SQLiteDatabase(path: directory + "/photos.sqlite", statementCacheCapacity: 256)
    try database.withConnection { try $0.execute("CREATE TABLE photos(id TEXT PRIMARY KEY, file TEXT)") }
    let store = try SyncStore(database: database, tables: [SyncedTable("photos")], node: HLCNode(node), now: { Date() })
    let channel = PluginFileChannel(pluginID: "dev.tessera.bench", store: FileStore(dataDirectory: directory),
                                    policy: FilePolicy(mediaTypes: ["image/jpeg"], quotaBytes: nil, maxFileBytes: nil), now: { Date() })
    let connection = HubConnection(baseURL: hub, token: token)
    var sync = DeviceSync(hub: connection, plugin: "dev.tessera.bench", store: store, state: try SyncPeerState(path: directory + "/peers.sqlite"))
    sync.files = DeviceFiles(hub: connection, channel: channel)
    return FilesBenchDevice(channel: channel, sync: sync)
}
