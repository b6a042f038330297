import Foundation
import Synchronization
import Testing
import TesseraHTTP
import TesseraLoader
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// Upload and download operations over real HTTP on loopback (docs/files.md, "HTTP"): the raw
/// body stored with its type found by content, and the file served with ETag, 304 and ranges.
@Suite(.hangWatchdog) struct FilesHTTPTests {
    @Test func anUploadedPhotoDownloadsWholeWithItsHashAsETag() async throws {
        try await PhotosServer.start().use { server in
            let photo = PhotosServer.jpeg(count: 2 << 20 | 777)
            let upload = try await server.upload("first-smile", photo, contentType: "image/jpeg")
            #expect(upload.status == 200, "\(upload.text)")
            let address = SHA256.hex(of: photo)
            #expect(upload.json?["address"]?.stringValue == address)
            #expect(upload.json?["links"] == [["table": "photos", "id": "first-smile"]])

            let download = try await server.request("GET", "/v1/plugins/\(PhotosPlugin.id)/ops/photo-get?name=first-smile")
            #expect(download.status == 200)
            #expect(download.body == photo)
            #expect(download.headers["etag"] == "\"\(address)\"")
            #expect(download.headers["content-type"] == "image/jpeg")
            #expect(download.headers["content-length"] == String(photo.count))
            #expect(download.headers["accept-ranges"] == "bytes")
        }
    }

    @Test func ifNoneMatchWithTheHashIsNotModified() async throws {
        try await PhotosServer.start().use { server in
            let photo = PhotosServer.jpeg(count: 4096)
            _ = try await server.upload("a", photo, contentType: nil)
            let path = "/v1/plugins/\(PhotosPlugin.id)/ops/photo-get?name=a"
            let address = SHA256.hex(of: photo)
            let cached = try await server.request("GET", path, headers: [("If-None-Match", "\"other\", W/\"\(address)\"")])
            #expect(cached.status == 304)
            #expect(cached.body.isEmpty)
            #expect(cached.headers["etag"] == "\"\(address)\"")
            let stale = try await server.request("GET", path, headers: [("If-None-Match", "\"\(String(repeating: "0", count: 64))\"")])
            #expect(stale.status == 200)
            #expect(stale.body == photo)
        }
    }

    @Test func rangeRequestsArePartialContent() async throws {
        try await PhotosServer.start().use { server in
            let photo = PhotosServer.jpeg(count: 100_000)
            _ = try await server.upload("a", photo, contentType: "image/jpeg")
            let path = "/v1/plugins/\(PhotosPlugin.id)/ops/photo-get?name=a"
            let middle = try await server.request("GET", path, headers: [("Range", "bytes=1000-1999")])
            #expect(middle.status == 206)
            #expect(middle.headers["content-range"] == "bytes 1000-1999/100000")
            #expect(middle.body == Array(photo[1000...1999]))
            let tail = try await server.request("GET", path, headers: [("Range", "bytes=-10")])
            #expect(tail.status == 206)
            #expect(tail.headers["content-range"] == "bytes 99990-99999/100000")
            #expect(tail.body == Array(photo.suffix(10)))
            let open = try await server.request("GET", path, headers: [("Range", "bytes=99000-")])
            #expect(open.body == Array(photo[99000...]))
            let past = try await server.request("GET", path, headers: [("Range", "bytes=100000-")])
            #expect(past.status == 416)
            #expect(past.headers["content-range"] == "bytes */100000")
            // If-Range with another tag: the whole file.
            let stale = try await server.request("GET", path, headers: [("Range", "bytes=0-9"), ("If-Range", "\"x\"")])
            #expect(stale.status == 200)
            #expect(stale.body == photo)
        }
    }

    @Test func refusalsAreNamedErrorsAndNoPluginCodeRuns() async throws {
        try await PhotosServer.start().use { server in
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 1, count: 64)
            let mismatch = try await server.upload("a", png, contentType: "image/jpeg")
            #expect(mismatch.status == 415)
            #expect(mismatch.errorCode == "unsupported_media_type")
            let pdf = try await server.upload("b", Array("%PDF-1.7\n".utf8), contentType: nil)
            #expect(pdf.status == 415)
            let large = try await server.upload("c", PhotosServer.jpeg(count: (3 << 20) + 1), contentType: "image/jpeg")
            #expect(large.status == 413)
            #expect(large.errorCode == "payload_too_large")
            #expect(server.calls.value == 0, "no refused upload reached the plugin")
            // The quota (3 MiB): three files of 0.9 MiB fit, a fourth does not.
            for seed in 1...3 {
                let ok = try await server.upload("q\(seed)", PhotosServer.jpeg(count: 900 << 10, seed: UInt8(seed)), contentType: nil)
                #expect(ok.status == 200, "\(ok.text)")
            }
            let over = try await server.upload("q4", PhotosServer.jpeg(count: 900 << 10, seed: 4), contentType: nil)
            #expect(over.status == 507)
            #expect(over.errorCode == "quota_exceeded")
            // GET of an operation that is not a download is 405.
            let notDownload = try await server.request("GET", "/v1/plugins/\(PhotosPlugin.id)/ops/photo-add")
            #expect(notDownload.status == 405)
            #expect(notDownload.headers["allow"] == "POST")
            // Allow lists GET only where the operation is a download.
            let ops = "/v1/plugins/\(PhotosPlugin.id)/ops"
            #expect(try await server.request("OPTIONS", "\(ops)/photo-add").headers["allow"] == "POST")
            #expect(try await server.request("OPTIONS", "\(ops)/photo-get").headers["allow"] == "POST, GET, HEAD")
        }
    }

    @Test func aPhotoNoRecordLinksIsCollectedOnTheHostsClock() async throws {
        try await PhotosServer.start().use { server in
            let kept = PhotosServer.jpeg(count: 5000, seed: 1), dropped = PhotosServer.jpeg(count: 5000, seed: 2)
            _ = try await server.upload("kept", kept, contentType: nil)
            _ = try await server.upload("dropped", dropped, contentType: nil)
            let removed = try await server.request("POST", "/v1/plugins/\(PhotosPlugin.id)/ops/photo-remove",
                                                   headers: [("Content-Type", "application/json")], body: Array(#"{"name": "dropped"}"#.utf8))
            #expect(removed.status == 200, "\(removed.text)")
            let path = { (name: String) in "/v1/plugins/\(PhotosPlugin.id)/ops/photo-get?name=\(name)" }
            #expect(try await server.request("GET", path("dropped")).status == 200, "unlinked, but not collected yet")
            _ = try await server.host.advanceClock(by: 2 * 86_400)  // past the day's grace; the collector runs hourly
            #expect(try await server.request("GET", path("dropped")).errorCode == "not_found")
            #expect(try await server.request("GET", path("kept")).body == kept)
        }
    }

    @Test func deletingTheLastRecordThatRefersToAFileLetsTheHostCollectIt() async throws {
        try await PhotosServer.start().use { server in
            let photo = PhotosServer.jpeg(count: 5000, seed: 3), other = PhotosServer.jpeg(count: 5000, seed: 4)
            let json = [("Content-Type", "application/json")]
            func post(_ op: String, _ body: String) async throws -> RawResponse {
                try await server.request("POST", "/v1/plugins/\(PhotosPlugin.id)/ops/\(op)", headers: json, body: Array(body.utf8))
            }
            _ = try await server.upload("p", photo, contentType: nil)
            _ = try await server.upload("o", other, contentType: nil)
            // Two posts refer to the photo, one to the other; the records are in the plugin's storage.
            #expect(try await post("post-write", #"{"id": "1", "photo": "p"}"#).status == 200)
            #expect(try await post("post-write", #"{"id": "2", "photo": "p"}"#).status == 200)
            #expect(try await post("post-write", #"{"id": "3", "photo": "o"}"#).status == 200)
            #expect(try await post("post-delete", #"{"id": "1"}"#).status == 200)
            #expect(try await post("post-delete", #"{"id": "3"}"#).status == 200)
            // photo-add linked each file to photos/<name> too: drop those, leaving only the posts.
            #expect(try await post("photo-remove", #"{"name": "p"}"#).status == 200)
            #expect(try await post("photo-remove", #"{"name": "o"}"#).status == 200)
            _ = try await server.host.advanceClock(by: 2 * 86_400)
            let path = { (name: String) in "/v1/plugins/\(PhotosPlugin.id)/ops/photo-get?name=\(name)" }
            #expect(try await server.request("GET", path("p")).body == photo, "post 2 still refers to it")
            #expect(try await server.request("GET", path("o")).errorCode == "not_found", "its last post was deleted")
        }
    }

    @Test(.needs("python:openapi_spec_validator")) func theOpenAPIDocumentWithFileOperationsIsValid() async throws {
        try await PhotosServer.start().use { server in
            let response = try await server.request("GET", "/openapi.json")
            let document = try #require(response.json)
            let path = document["paths"]?["/v1/plugins/\(PhotosPlugin.id)/ops/photo-get"]
            #expect(path?["get"]?["responses"]?["206"] != nil)
            // The query parameter states the member's own rule, so a client knows what is accepted.
            let parameter = path?["get"]?["parameters"]?.arrayValue?.first { $0["name"] == "name" }
            #expect(parameter?["schema"] == ["type": "string", "pattern": "^[a-z0-9-]{1,40}$"])
            #expect(parameter?["required"] == true)
            #expect(document["paths"]?["/v1/plugins/\(PhotosPlugin.id)/ops/photo-add"]?["post"]?["requestBody"]?["content"]?["image/jpeg"] != nil)
            let file = server.root + "/openapi.json"
            try Data(response.body).write(to: URL(fileURLWithPath: file))
            let verdict = try await OpenAPIValidator.validate(file: file)
            #expect(verdict.status == 0, "\(verdict.stdout)\(verdict.stderr)")
        }
    }
}

/// A host with the photos plugin behind the real edge, reached through its router.
struct PhotosServer: StoppableTestServer {
    let root: String
    let host: PluginHost
    let server: HTTPServer
    let client: EdgeClient
    let token: String
    let calls: CallCounter

    static func start() async throws -> PhotosServer {
        let ws = FixtureWorkspace("files-http")
        ws.addManifest(id: PhotosPlugin.id, library: ws.root + "/in-process.so") {
            $0["requires"] = [["capability": "files", "version": "^1.0"], ["capability": "storage", "version": "^1.0"]]
            $0["permissions"] = ["files": ["mediaTypes": ["image/jpeg", "image/png"], "quotaMB": 3, "maxFileMB": 4], "storage": [:] as [String: Any]]
            $0["operations"] = PhotosPlugin.operations
        }
        // The operator grants less than the manifest asks: 3 MiB a file.
        ws.writeDeployment(plugins: [["id": PhotosPlugin.id, "grants": ["files": ["maxFileMB": 3], "storage": [:] as [String: Any]]]])
        let counter = CallCounter()
        let host = try PluginHost(deployment: DeploymentReader.read(file: ws.deploymentFile), options: HostOptions(
            dataDirectory: ws.dataDirectory, inProcessPlugins: [PhotosPlugin.id: PluginFactory { PhotosPlugin(counter: counter) }]))
        let tokens = TokenStore(dataDirectory: ws.dataDirectory)
        let admin = try tokens.ensureAdminToken()!
        let server = HTTPServer(host: host, tokens: tokens, configuration: HTTPConfiguration(host: "127.0.0.1", port: 0, maxBodyBytes: 4096))
        let client = try await EdgeClient.connect(to: server, by: .router)
        await host.start()
        server.markReady()
        return PhotosServer(root: ws.root, host: host, server: server, client: client, token: admin, calls: counter)
    }

    func request(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil) async throws -> RawResponse {
        try await client.request(method, path, headers: headers + [("Authorization", "Bearer \(token)")], body: body)
    }

    func upload(_ name: String, _ bytes: [UInt8], contentType: String?) async throws -> RawResponse {
        try await request("POST", "/v1/plugins/\(PhotosPlugin.id)/ops/photo-add?name=\(name)",
                          headers: contentType.map { [("Content-Type", $0)] } ?? [], body: bytes)
    }

    func stop() async {
        await server.stop()
        await host.stop()
    }

    static func jpeg(count: Int, seed: UInt8 = 0) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes[0] = 0xFF; bytes[1] = 0xD8; bytes[2] = 0xFF
        for i in 3..<count { bytes[i] = UInt8(truncatingIfNeeded: i &* 31 &+ Int(seed)) }
        return bytes
    }
}

/// A photo album: `photo-add` (an upload) links the stored file to its name; `photo-remove`
/// unlinks it; `photo-get` (a download) names the file of a name.
final class PhotosPlugin: Plugin {
    static let id = "test.photos"
    let counter: CallCounter
    let names = Mutex<[String: String]>([:])

    init(counter: CallCounter) { self.counter = counter }

    func start(context: PluginContext) async throws {
        let files = try context.capability(.files)
        context.onOperation("photo-add") { [self] call in
            self.counter.increment()
            guard let file = FileDescriptor(json: call.input["file"] ?? .null), let name = call.input["name"]?.stringValue else {
                throw PluginError(.invalidInput, "no file")
            }
            try await files.link(file.address, table: "photos", id: name)
            self.names.withLock { $0[name] = file.address }
            let links = try await files.links(of: file.address).map { JSONValue.object(["table": .string($0.table), "id": .string($0.id)]) }
            guard case .object(var answer) = file.json else { return file.json }
            answer["links"] = .array(links)
            return .object(answer)
        }
        context.onOperation("photo-remove") { [self] call in
            let name = call.input["name"]?.stringValue ?? ""
            guard let address = self.names.withLock({ $0[name] }) else { throw PluginError(.notFound, "no such photo") }
            try await files.unlink(address, table: "photos", id: name)  // the plugin keeps naming it: the host must not serve it once collected
            return ["ok": true]
        }
        // Posts: records in the plugin's storage that refer to a photo, linked to it.
        context.onOperation("post-write") { [self] call in
            let id = call.input["id"]?.stringValue ?? "", name = call.input["photo"]?.stringValue ?? ""
            guard let address = self.names.withLock({ $0[name] }) else { throw PluginError(.notFound, "no such photo") }
            try await context.capability(.storage).write { $0.put("posts", id: id, ["photo": .text(address)]) }
            try await files.link(address, table: "posts", id: id)
            return ["ok": true]
        }
        context.onOperation("post-delete") { call in
            try await context.capability(.storage).write { $0.delete("posts", id: call.input["id"]?.stringValue ?? "") }
            return ["ok": true]  // no unlink: the host drops links to records that are gone
        }
        context.onOperation("photo-get") { [self] call in
            guard let address = self.names.withLock({ $0[call.input["name"]?.stringValue ?? ""] }) else { throw PluginError(.notFound, "no such photo") }
            return ["address": .string(address)]
        }
    }

    var migrations: [StorageMigration] {
        [StorageMigration(version: 1, sql: "CREATE TABLE posts (id TEXT PRIMARY KEY, photo TEXT NOT NULL)")]
    }

    static var operations: [[String: Any]] {
        let name: [String: Any] = ["type": "string", "pattern": "^[a-z0-9-]{1,40}$"]
        return [
            ["name": "photo-add", "file": "upload", "summary": "Stores a photo under a name.",
             "input": ["type": "object", "required": ["file", "name"], "properties": ["file": ["type": "object"], "name": name]] as [String: Any],
             "output": ["type": "object"]],
            ["name": "photo-remove", "summary": "Unlinks a photo from its name.",
             "input": ["type": "object", "required": ["name"], "properties": ["name": name], "additionalProperties": false] as [String: Any],
             "output": ["type": "object"]],
            ["name": "post-write", "input": ["type": "object", "required": ["id", "photo"],
                                             "properties": ["id": ["type": "string"], "photo": name]] as [String: Any], "output": ["type": "object"]],
            ["name": "post-delete", "input": ["type": "object", "required": ["id"], "properties": ["id": ["type": "string"]]] as [String: Any],
             "output": ["type": "object"]],
            ["name": "photo-get", "file": "download", "summary": "The photo of a name.",
             "input": ["type": "object", "required": ["name"], "properties": ["name": name], "additionalProperties": false] as [String: Any],
             "output": ["type": "object", "required": ["address"], "properties": ["address": ["type": "string"]]] as [String: Any]],
        ]
    }
}
