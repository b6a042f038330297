import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization
import TesseraHTTP
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraSystem

/// What `tessera-bench files` measured: seconds per transfer of one file (medians), and memory.
struct FilesBenchmarkResult {
    var bytes: Int
    var upload: Double, plainUpload: Double
    var download: Double, staticDownload: Double
    /// Resident memory before the runs, and the peak while they ran (this process: host and edge).
    var residentBefore: Int, residentPeak: Int
}

/// Upload and download of one file (50 MiB by default) with `curl` over loopback: through an
/// upload operation and a download operation of an in-process plugin (`"file": "upload"` /
/// `"download"`: the edge streams the body into the plugin's files, sniffed, hashed and fsynced,
/// and serves it back by its address) against, in the same process and run, a plain Hummingbird
/// route that reads and drops the body and Hummingbird's own static file middleware serving the
/// same file. Runs are taken in turns, and the median of each is reported. The peak resident
/// memory of the process during the runs shows the file is never held whole.
func filesBenchmark(scratch: String, megabytes: Int, runs: Int) async throws -> FilesBenchmarkResult {
    let root = scratch + "/files"
    try? FileManager.default.removeItem(atPath: root)
    try FileManager.default.createDirectory(atPath: root + "/static", withIntermediateDirectories: true)
    let file = root + "/static/photo.jpg"
    try benchFile(bytes: megabytes << 20).write(to: URL(fileURLWithPath: file))
    let deployment = try writeFilesDeployment(root: root, megabytes: megabytes)
    let host = try PluginHost(deployment: DeploymentReader.read(file: deployment), options: HostOptions(
        dataDirectory: root + "/data", inProcessPlugins: [BenchAlbum.id: PluginFactory { BenchAlbum() }]))
    await host.start()
    let tokens = TokenStore(dataDirectory: root + "/data")
    guard let token = try tokens.ensureAdminToken() else { throw PluginError(.internal, "no fresh token") }
    let edge = HTTPServer(host: host, tokens: tokens, configuration: HTTPConfiguration(port: 0, rateLimit: nil))
    let edgePort = try await edge.start()
    edge.markReady()
    let plain = try await StaticServer.start(folder: root + "/static")
    return try await withCleanup({ await plain.stop(); await edge.stop(); await host.stop() }) {

        let auth = ["-H", "Authorization: Bearer \(token)"]
        let ops = "http://127.0.0.1:\(edgePort)/v1/plugins/\(BenchAlbum.id)/ops"
        // `Expect:` empty: curl would otherwise wait for a 100 Continue before sending a large body.
        let upload = ["-X", "POST", "--data-binary", "@\(file)", "-H", "Content-Type: image/jpeg", "-H", "Expect:"]
        // Warm both up once, then measure.
        _ = try curlSeconds(auth + upload + ["\(ops)/photo-put?name=warm"])
        _ = try curlSeconds(["\(plain.url)/photo.jpg"])
        let residentBefore = ResidentMemory.now().current
        ResidentMemory.resetPeak()
        var ours: (up: [Double], down: [Double]) = ([], []), theirs: (up: [Double], down: [Double]) = ([], [])
        for run in 0..<runs {
            ours.up.append(try curlSeconds(auth + upload + ["\(ops)/photo-put?name=run\(run)"]))
            theirs.up.append(try curlSeconds(upload + ["\(plain.url)/sink"]))
            ours.down.append(try curlSeconds(auth + ["\(ops)/photo-get?name=run\(run)"]))
            theirs.down.append(try curlSeconds(["\(plain.url)/photo.jpg"]))
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        return FilesBenchmarkResult(bytes: megabytes << 20, upload: median(ours.up), plainUpload: median(theirs.up),
                                    download: median(ours.down), staticDownload: median(theirs.down),
                                    residentBefore: residentBefore, residentPeak: ResidentMemory.now().peak)
    }
}

/// A JPEG's magic, then a pattern: what the album's manifest accepts.
private func benchFile(bytes count: Int) -> Data {
    var bytes = [UInt8](repeating: 0, count: count)
    bytes[0] = 0xFF; bytes[1] = 0xD8; bytes[2] = 0xFF
    for i in 3..<count { bytes[i] = UInt8(truncatingIfNeeded: i &* 131) }
    return Data(bytes)
}

private func writeFilesDeployment(root: String, megabytes: Int) throws -> String {
    let name: JSONValue = ["type": "string"]
    let manifest: JSONValue = [
        "id": .string(BenchAlbum.id), "name": "Bench album", "version": "1.0.0", "sdk": ["abi": "1.10", "toolchain": "6.3.1"],
        "library": ["path": "in-process.so"], "requires": [["capability": "files", "version": "^1.0"]],
        "permissions": ["files": ["mediaTypes": ["image/jpeg"], "maxFileMB": .integer(Int64(megabytes * 2))]],
        "operations": [
            ["name": "photo-put", "file": "upload", "input": ["type": "object", "properties": ["file": ["type": "object"], "name": name]], "output": ["type": "object"]],
            ["name": "photo-get", "file": "download", "input": ["type": "object", "properties": ["name": name]], "output": ["type": "object"]],
        ],
    ]
    try FileManager.default.createDirectory(atPath: root + "/manifests", withIntermediateDirectories: true)
    try Data(manifest.serialized().utf8).write(to: URL(fileURLWithPath: root + "/manifests/album.json"))
    let deployment = root + "/deployment.json"
    try Data("""
        {"name": "bench", "role": "device", "manifestDirectories": ["\(root)/manifests"], "providers": {"clock": {"kind": "virtual"}},
         "plugins": [{"id": "\(BenchAlbum.id)", "grants": {"files": {}}}]}
        """.utf8).write(to: URL(fileURLWithPath: deployment))
    return deployment
}

/// Stores each upload under its name; names the file back.
private final class BenchAlbum: Plugin {
    static let id = "bench.album"
    let names = Mutex<[String: String]>([:])

    func start(context: PluginContext) async throws {
        let files = try context.capability(.files)
        context.onOperation("photo-put") { [self] call in
            guard let file = FileDescriptor(json: call.input["file"] ?? .null) else { throw PluginError(.invalidInput, "no file") }
            let name = call.input["name"]?.stringValue ?? ""
            try await files.link(file.address, table: "photos", id: name)
            self.names.withLock { $0[name] = file.address }
            return file.json
        }
        context.onOperation("photo-get") { [self] call in
            guard let address = self.names.withLock({ $0[call.input["name"]?.stringValue ?? ""] }) else { throw PluginError(.notFound, "no photo") }
            return ["address": .string(address)]
        }
    }
}

/// `curl` once; its `time_total`, after checking the status was 2xx.
private func curlSeconds(_ arguments: [String]) throws -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    process.arguments = ["-s", "-o", "/dev/null", "-w", "%{http_code} %{time_total}"] + arguments
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let parts = text.split(separator: " ")
    guard parts.count == 2, parts[0].hasPrefix("2"), let seconds = Double(parts[1]) else {
        throw PluginError(.internal, "curl \(arguments.last ?? ""): \(text)")
    }
    return seconds
}

/// Hummingbird alone: its static file middleware over a folder, and `POST /sink`, which reads the
/// body and drops it. The baseline the files edge is compared with.
struct StaticServer {
    let url: String
    let group: ServiceGroup
    let task: Task<Void, any Error>

    static func start(folder: String) async throws -> StaticServer {
        let router = Router()
        router.add(middleware: FileMiddleware(folder))
        router.post("/sink") { request, _ -> Response in
            for try await _ in request.body {}
            return Response(status: .ok)
        }
        let (ports, sink) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: "static")
        logger.logLevel = .warning
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { sink.yield($0.localAddress?.port ?? 0); sink.finish() }, logger: logger)
        let group = ServiceGroup(services: [app], logger: app.logger)
        let task = Task { try await group.run() }
        for await port in ports { return StaticServer(url: "http://127.0.0.1:\(port)", group: group, task: task) }
        throw PluginError(.internal, "the static server did not start")
    }

    func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}
