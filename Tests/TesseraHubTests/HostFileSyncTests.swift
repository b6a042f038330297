import Foundation
import Testing
import TesseraRuntime
import TesseraSDK
import TesseraSyncClient
import TesseraHubFixtures
import TesseraTestFixtures
import TesseraTesting

/// The host's wiring of files through the hub: two device hosts running a photo plugin in-process,
/// logged in to a real hub as the same person; the plugin reads a photo the other device stored.
@Suite("Host-wired files through the hub", .hangWatchdog)
struct HostFileSyncTests {
    static let plugin = "test.photos"

    static func manifest() -> String {
        let dir = Fixtures.temporaryDirectory("photos-manifest")
        let object = #"{"type": "object"}"#
        Fixtures.write("""
        {
          "id": "test.photos", "name": "Photos", "version": "1.0.0",
          "sdk": {"abi": "1.10", "toolchain": "6.3.1"}, "library": {"name": "Photos"},
          "requires": [{"capability": "storage", "version": "^1.0"}, {"capability": "sync", "version": "^1.0"},
                       {"capability": "files", "version": "^1.0"}],
          "permissions": {"files": {"mediaTypes": ["image/jpeg"]}},
          "sync": {"tables": {"photos": {}}},
          "operations": [
            {"name": "add", "input": \(object), "output": \(object)},
            {"name": "check", "input": \(object), "output": \(object)}
          ]
        }
        """, to: dir + "/photos.json")
        return dir + "/photos.json"
    }

    /// Whether the host holds the file's bytes (without asking the plugin, whose read would fetch it).
    static func holds(_ device: PluginTestHost, _ address: String) -> Bool {
        FileManager.default.fileExists(atPath: device.directory + "/data/plugins/\(plugin)/files/objects/\(address.prefix(2))/\(address)")
    }

    @Test("a photo stored on the phone is read on the laptop: fetched when first read, or right after the round when eager")
    func photoReadOnTheOtherDevice() async throws {
        try await HubTestServer.start().use { hub in
            try await hub.addPerson("ada")
            let url = "http://127.0.0.1:\(hub.port)"
            let phone = try await PluginTestHost(manifest: Self.manifest(), plugin: { PhotoPlugin() }, syncHub: url)
            let laptop = try await PluginTestHost(manifest: Self.manifest(), plugin: { PhotoPlugin() }, syncHub: url)
            let tablet = try await PluginTestHost(manifest: Self.manifest(), plugin: { PhotoPlugin() }, syncHub: url, eagerFiles: true)
            for (device, name) in [(phone, "phone"), (laptop, "laptop"), (tablet, "tablet")] {
                try await device.host.syncLogin(name: "ada", password: "correct horse battery", device: name)
            }
            let added = try await phone.call("add", ["id": "p1", "seed": 5, "size": 150_000])
            let address = try #require(added["address"]?.stringValue)
            let pushed = try await phone.host.syncNow(Self.plugin)
            #expect(pushed.filesUploaded == [address])
            _ = try await laptop.host.syncNow(Self.plugin)
            #expect(!Self.holds(laptop, address))  // the record came; the bytes wait for a read
            #expect(try await laptop.call("check", ["id": "p1", "seed": 5, "size": 150_000]) == ["equal": true])
            #expect(Self.holds(laptop, address))
            _ = try await tablet.host.syncNow(Self.plugin)
            #expect(Self.holds(tablet, address))  // eager: fetched with the round
            await phone.stop()
            await laptop.stop()
            await tablet.stop()
        }
    }
}

/// Stores a generated JPEG, keeps its address in a synced record and links it; `check` reads the
/// record's photo through the files capability and compares it with the bytes it would generate.
final class PhotoPlugin: Plugin {
    struct Add: Decodable, Sendable { let id: String; let seed: Int; let size: Int }
    struct Check: Decodable, Sendable { let id: String; let seed: Int; let size: Int }
    struct Added: Encodable, Sendable { let address: String }
    struct Checked: Encodable, Sendable { let equal: Bool }

    var migrations: [StorageMigration] {
        [StorageMigration(version: 1, sql: "CREATE TABLE photos (id TEXT PRIMARY KEY, file TEXT NOT NULL DEFAULT '');")]
    }

    static func jpeg(seed: Int, size: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: size)
        bytes[0] = 0xFF; bytes[1] = 0xD8; bytes[2] = 0xFF
        for i in 3..<size { bytes[i] = UInt8(truncatingIfNeeded: i &* 13 &+ seed &+ i >> 9) }
        return bytes
    }

    func start(context: PluginContext) async throws {
        let storage = try context.capability(.storage)
        let files = try context.capability(.files)
        context.onOperation("add", input: Add.self) { input, _ in
            let photo = try await files.put(Self.jpeg(seed: input.seed, size: input.size))
            try await storage.write { $0.put("photos", id: input.id, ["file": .text(photo.address)]) }
            try await files.link(photo.address, table: "photos", id: input.id)
            return Added(address: photo.address)
        }
        context.onOperation("check", input: Check.self) { input, _ in
            let row = try await storage.query("SELECT file FROM photos WHERE id = ?", [.text(input.id)]).first
            let address = row?["file"].text ?? ""
            return Checked(equal: try await files.read(address) == Self.jpeg(seed: input.seed, size: input.size))
        }
    }
}
