import Foundation
import Testing
import TesseraClock
import TesseraFiles
import TesseraHub
import TesseraLoader
import TesseraSDK
import TesseraSync
import TesseraSyncClient
import TesseraHubFixtures
import TesseraTestFixtures

/// File bytes through a real hub (docs/files.md, "Through the hub"; docs/hub.md, "Files"): devices
/// with real file stores and sync stores on SQLite, the hub on loopback HTTP, its bytes on disk.
@Suite("Files through the hub", .hangWatchdog)
struct FileSyncTests {
    static let shared = "6f1c1a52-8d3e-4b7a-9c0d-2e5f7a9b1c3d"

    /// `count` bytes of a JPEG (the magic, then a pattern numbered by `seed`).
    static func jpeg(count: Int, seed: UInt8) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes[0] = 0xFF; bytes[1] = 0xD8; bytes[2] = 0xFF
        for i in 3..<count { bytes[i] = UInt8(truncatingIfNeeded: i &* 31 &+ Int(seed) &* 7 &+ i >> 8) }
        return bytes
    }

    /// One person's device: its notes (a sync store) and its files, talking to the hub at `port`.
    struct Device {
        let replica: DeviceReplica
        let store: FileStore
        let channel: PluginFileChannel
        let sync: DeviceSync

        init(_ hub: HubTestServer, name: String, token: String, node: UInt64, port: Int? = nil) throws {
            replica = try DeviceReplica(hub: hub, token: token, node: node, clock: hub.clock.now)
            try FileManager.default.createDirectory(atPath: hub.root + "/\(name)-data", withIntermediateDirectories: true)
            store = FileStore(dataDirectory: hub.root + "/\(name)-data")
            let connection = hub.connection(token, port: port)
            var channel = PluginFileChannel(pluginID: DeviceReplica.plugin, store: store,
                                            policy: FilePolicy(mediaTypes: ["image/jpeg"], quotaBytes: nil, maxFileBytes: nil), now: hub.clock.now)
            channel.remote = Remote(hub: connection)
            self.channel = channel
            var sync = DeviceSync(hub: connection, plugin: DeviceReplica.plugin, store: replica.store,
                                  state: try SyncPeerState(path: hub.root + "/\(name)-peers.sqlite"))
            sync.files = DeviceFiles(hub: connection, channel: channel)
            self.sync = sync
        }

        var files: DeviceFiles { sync.files! }
        func has(_ address: String) throws -> Bool { try store.descriptor(plugin: DeviceReplica.plugin, address: address) != nil }
    }

    /// The hub as a device's files reach it when a plugin reads a file that is not here.
    struct Remote: RemoteFileSource {
        let hub: HubConnection
        func fetch(_ address: String, into channel: PluginFileChannel) async throws {
            try await DeviceFiles(hub: hub, channel: channel).fetch(address)
        }
    }

    /// The files whose bytes are on the hub's disk.
    static func hubObjects(_ hub: HubTestServer) -> [String] {
        let objects = hub.dataDirectory + "/hub-files/objects"
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: objects)) ?? []
        return folders.flatMap { (try? FileManager.default.contentsOfDirectory(atPath: objects + "/" + $0)) ?? [] }.sorted()
    }

    /// Ada's phone stores a photo, refers to it from a note in the shared space and syncs; Bob
    /// (an editor there) syncs his tablet. Returns both devices and the photo's address.
    static func photoShared(_ hub: HubTestServer, size: Int = 200 * 1024, tabletPort: Int? = nil)
        async throws -> (phone: Device, tablet: Device, address: String, photo: [UInt8], bobID: String, adaToken: String) {
        try await hub.addPerson("ada")
        let bobID = try await hub.addPerson("bob")
        let adaToken = try await hub.login("ada", device: "phone")
        let bobToken = try await hub.login("bob", device: "tablet")
        let phone = try Device(hub, name: "phone", token: adaToken, node: 0xA1)
        let tablet = try Device(hub, name: "tablet", token: bobToken, node: 0xB2, port: tabletPort)
        let photo = jpeg(count: size, seed: 1)
        let stored = try await phone.channel.put(photo)
        try phone.replica.put("p1", title: stored.address, in: shared)
        try await phone.channel.link(stored.address, table: "notes", id: "p1")
        let first = try await phone.sync.round()
        #expect(first.filesUploaded == [stored.address] && first.fileFailures.isEmpty)
        try await hub.share(shared, owner: adaToken, with: bobToken, role: "editor")
        _ = try await tablet.sync.round()
        #expect(try tablet.replica.notes().map { $0[1] } == [.text(stored.address)])
        return (phone, tablet, stored.address, photo, bobID, adaToken)
    }

    @Test("a photo linked on one device is read on another member's device when first read; the hub keeps it once", arguments: HubBackend.available)
    func photoCrossesDevices(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            let (phone, tablet, address, photo, _, _) = try await Self.photoShared(hub)
            // Lazy: the record came, the bytes did not; the first read fetches and verifies them.
            // Two reads and an eager fetch at once share one transfer (they would otherwise
            // append to one partial file together, and the hash check would refuse it).
            #expect(try !tablet.has(address))
            async let first = tablet.channel.read(address)
            async let second = tablet.channel.read(address)
            async let eager = tablet.files.fetchMissing()
            #expect(try await first == photo)
            #expect(try await second == photo)
            #expect(await eager.failed.isEmpty)
            #expect(try tablet.has(address))
            #expect(try await tablet.channel.links(of: address) == [FileLink(table: "notes", id: "p1")])
            // The same photo in Ada's personal space: not uploaded again, and one copy on the hub.
            try phone.replica.put("p2", title: address, in: "personal")
            let again = try await phone.sync.round()
            #expect(again.pushed > 0 && again.filesUploaded.isEmpty)
            #expect(Self.hubObjects(hub) == [address])
            // Bob's tablet syncs again: the file is there, nothing fetched twice.
            _ = try await tablet.sync.round()
            #expect(try await tablet.files.fetchMissing().fetched.isEmpty)
        }
    }

    @Test("eager: the files a round brought references to are fetched at once")
    func eagerFetch() async throws {
        try await HubTestServer.start().use { hub in
            let (_, tablet, address, photo, _, _) = try await Self.photoShared(hub)
            let fetched = await tablet.files.fetchMissing()
            #expect(fetched.fetched == [address] && fetched.failed.isEmpty)
            #expect(try tablet.store.open(plugin: DeviceReplica.plugin, address: address).read(at: 0, count: photo.count) == photo)
        }
    }

    @Test("only a member of a space whose record refers to the file fetches it; knowing the address is not enough")
    func nonMemberRefused() async throws {
        try await HubTestServer.start().use { hub in
            let (_, _, address, photo, _, _) = try await Self.photoShared(hub)
            try await hub.addPerson("carol")
            let carolToken = try await hub.login("carol", device: "laptop")
            let carol = try Device(hub, name: "carol", token: carolToken, node: 0xC3)
            await #expect(throws: SyncClientError.self) { try await carol.files.fetch(address) }
            let refused = try await hub.request("GET", "/v1/hub/files/\(address)?plugin=\(DeviceReplica.plugin)", token: carolToken)
            #expect(refused.status == 404 && refused.errorCode == "file_not_found")
            // A record of her own naming the address gives her nothing: she never had the bytes.
            try carol.replica.put("x", title: address, in: "personal")
            _ = try await carol.sync.round()
            #expect(try await hub.request("GET", "/v1/hub/files/\(address)?plugin=\(DeviceReplica.plugin)", token: carolToken).status == 404)
            // Nor does uploading other bytes under that address.
            var forged = photo
            forged[100] ^= 0xFF
            let upload = try await hub.request("PUT", "/v1/hub/files/\(address)?size=\(forged.count)", token: carolToken, body: forged,
                                               contentType: "application/octet-stream")
            #expect(upload.status == 422 && upload.errorCode == "hash_mismatch")
            #expect(try await hub.request("GET", "/v1/hub/files/\(address)?plugin=\(DeviceReplica.plugin)", token: carolToken).status == 404)
            // Another plugin's name is not the record's plugin either; no plugin is a 400.
            let bobToken = try await hub.login("bob", device: "phone")
            #expect(try await hub.request("GET", "/v1/hub/files/\(address)?plugin=dev.tessera.other", token: bobToken).status == 404)
            #expect(try await hub.request("GET", "/v1/hub/files/\(address)", token: bobToken).errorCode == "invalid_plugin")
            #expect(try await hub.request("GET", "/v1/hub/files/\(address)?plugin=\(DeviceReplica.plugin)", token: bobToken).body == photo)
        }
    }

    @Test("a download cut in the middle resumes from the bytes that arrived")
    func interruptedDownloadResumes() async throws {
        try await HubTestServer.start().use { hub in
            let proxy = try CuttingProxy(target: hub.port)
            defer { proxy.stop() }
            let (_, tablet, address, photo, _, _) = try await Self.photoShared(hub, size: 3 << 20, tabletPort: proxy.port)
            // The first piece (1 MiB) arrives whole; the connection drops in the second.
            proxy.cut(afterAnswerBytes: 1_500_000)
            await #expect(throws: (any Error).self) { try await tablet.channel.read(address) }
            #expect(try tablet.store.receivedSize(plugin: DeviceReplica.plugin, address: address) == 1 << 20)
            #expect(try !tablet.has(address))
            // Read again: it goes on from byte 1,048,576, and the whole file checks out.
            #expect(try await tablet.channel.read(address) == photo)
            #expect(proxy.requests.lowercased().contains("range: bytes=1048576-2097151"))
            #expect(try tablet.store.receivedSize(plugin: DeviceReplica.plugin, address: address) == 0)
        }
    }

    @Test("an upload cut short resumes from what the hub kept; a wrong offset is refused with the hub's")
    func interruptedUploadResumes() async throws {
        try await HubTestServer.start().use { hub in
            try await hub.addPerson("ada")
            let token = try await hub.login("ada", device: "phone")
            let phone = try Device(hub, name: "phone", token: token, node: 0xA1)
            let photo = Self.jpeg(count: 300 * 1024, seed: 3)
            let stored = try await phone.channel.put(photo)
            let half = try await hub.request("PUT", "/v1/hub/files/\(stored.address)?size=\(photo.count)&offset=0", token: token,
                                             body: Array(photo[..<100_000]), contentType: "application/octet-stream")
            #expect(half.status == 200 && half.json?["complete"]?.boolValue == false && half.json?["offset"]?.integerValue == 100_000)
            let wrong = try await hub.request("PUT", "/v1/hub/files/\(stored.address)?size=\(photo.count)&offset=5", token: token,
                                              body: [1, 2, 3], contentType: "application/octet-stream")
            #expect(wrong.status == 409 && wrong.errorCode == "upload_offset")
            #expect(try await hub.connection(token).fileUploadState(stored.address) == (held: false, offset: 100_000))
            #expect(try await phone.files.upload(stored.address))
            #expect(try await hub.connection(token).fileUploadState(stored.address) == (held: true, offset: 0))
            #expect(try await phone.files.upload(stored.address) == false)  // held: nothing sent
            #expect(Self.hubObjects(hub) == [stored.address])
        }
    }

    @Test("removing a member drops their device's copies of the space's files, and the hub serves them no more")
    func revokeDropsCopies() async throws {
        try await HubTestServer.start().use { hub in
            let (_, tablet, address, photo, bobID, adaToken) = try await Self.photoShared(hub)
            #expect(try await tablet.channel.read(address) == photo)
            let removed = try await hub.request("DELETE", "/v1/hub/spaces/\(Self.shared)/members/\(bobID)", token: adaToken)
            #expect(removed.status == 204)
            let round = try await tablet.sync.round()
            #expect(round.dropped == [Self.shared] && round.filesDropped == [address])
            #expect(try !tablet.has(address))
            #expect(!FileManager.default.fileExists(atPath: tablet.store.directory(of: DeviceReplica.plugin) + "/objects/\(address.prefix(2))/\(address)"))
            let bobToken = try await hub.login("bob", device: "laptop")
            #expect(try await hub.request("GET", "/v1/hub/files/\(address)?plugin=\(DeviceReplica.plugin)", token: bobToken).status == 404)
        }
    }

    @Test("bytes that do not hash to their address are refused on the device, and nothing is kept")
    func tamperedBytesRefused() async throws {
        try await HubTestServer.start().use { hub in
            let (_, tablet, address, photo, _, _) = try await Self.photoShared(hub)
            // Damage the hub's copy on its disk: same size, one byte changed.
            var damaged = photo
            damaged[photo.count / 2] ^= 0x01
            try Data(damaged).write(to: URL(fileURLWithPath: hub.dataDirectory + "/hub-files/objects/\(address.prefix(2))/\(address)"))
            do {
                _ = try await tablet.files.fetch(address)
                Issue.record("damaged bytes were accepted")
            } catch let error as PluginError {
                #expect(error.code == .unprocessable && error.message.contains("hash"))
            }
            #expect(try !tablet.has(address))
            #expect(try tablet.store.receivedSize(plugin: DeviceReplica.plugin, address: address) == 0)
        }
    }

    @Test("each person's quota and the largest file are the operator's; refused with named errors", arguments: HubBackend.available)
    func quotas(backend: HubBackend) async throws {
        try await HubTestServer.start(backend, filePolicy: HubFilePolicy(quotaBytesPerPerson: 300 * 1024, maxFileBytes: 1 << 20)).use { hub in
            try await hub.addPerson("ada")
            let token = try await hub.login("ada", device: "phone")
            let phone = try Device(hub, name: "phone", token: token, node: 0xA1)
            let first = try await phone.channel.put(Self.jpeg(count: 200 * 1024, seed: 1))
            let second = try await phone.channel.put(Self.jpeg(count: 200 * 1024, seed: 2))
            let large = try await phone.channel.put(Self.jpeg(count: 2 << 20, seed: 3))
            #expect(try await phone.files.upload(first.address))
            do {
                try await phone.files.upload(second.address)
                Issue.record("an upload past the quota was taken")
            } catch let error as SyncClientError {
                #expect(error.status == 507 && error.code == "quota_exceeded" && error.message.contains("quotaMBPerPerson"))
            }
            do {
                try await phone.files.upload(large.address)
                Issue.record("a file past maxFileMB was taken")
            } catch let error as SyncClientError {
                #expect(error.status == 413 && error.code == "payload_too_large")
            }
            let tooLarge = try await hub.request("PUT", "/v1/hub/files/\(large.address)?size=\(2 << 20)", token: token, body: [0xFF],
                                                 contentType: "application/octet-stream")
            #expect(tooLarge.status == 413 && tooLarge.errorCode == "payload_too_large")
            // The operator raises Ada's quota: the second goes up.
            try await hub.files.setQuota(personName: "ada", bytes: 1 << 20)
            #expect(try await phone.files.upload(second.address))
            // A round whose upload is refused still pushes the record; the failure is reported.
            try await hub.files.setQuota(personName: "ada", bytes: 400 * 1024)
            let third = try await phone.channel.put(Self.jpeg(count: 200 * 1024, seed: 4))
            try phone.replica.put("p3", title: third.address, in: "personal")
            let round = try await phone.sync.round()
            #expect(round.pushed > 0 && round.fileFailures.map(\.address) == [third.address])
            #expect(round.fileFailures.first?.reason.contains("quota_exceeded") == true)
            // Owed, not forgotten: once the quota allows, the next round sends it.
            try await hub.files.setQuota(personName: "ada", bytes: 1 << 20)
            let next = try await phone.sync.round()
            #expect(next.filesUploaded == [third.address] && next.fileFailures.isEmpty)
            #expect(try phone.store.pendingUploads(plugin: DeviceReplica.plugin).isEmpty)
        }
    }

    @Test("hub collection: an unreferenced file goes after the grace; one a record pushed after the scan refers to stays", arguments: HubBackend.available)
    func collectionRace(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            try await hub.addPerson("ada")
            let token = try await hub.login("ada", device: "phone")
            let phone = try Device(hub, name: "phone", token: token, node: 0xA1)
            let kept = try await phone.channel.put(Self.jpeg(count: 50_000, seed: 1))
            let dropped = try await phone.channel.put(Self.jpeg(count: 50_000, seed: 2))
            try await phone.files.upload(kept.address)
            try await phone.files.upload(dropped.address)
            let collector = HubFileCollector(files: hub.files, clock: SystemClockSource())
            // Within the grace nothing goes: a device uploads just before it pushes the record.
            #expect(try await collector.collect(now: hub.clock.now()).isEmpty)
            hub.clock.advance(86_400 + 1)
            let removed = try await collector.collect(now: hub.clock.now()) { candidates in
                #expect(candidates == [kept.address, dropped.address].sorted())
                // Between the scan and the removals, a record that refers to one of them arrives.
                try phone.replica.put("n1", title: kept.address, in: "personal")
                _ = try await phone.sync.round()
            }
            #expect(removed == [dropped.address])
            #expect(Self.hubObjects(hub) == [kept.address])
            #expect(try await hub.connection(token).fileUploadState(dropped.address).held == false)
            // Deleting the record lets it go at the next collection.
            try phone.replica.store.write([.delete(table: "notes", id: "n1")], in: "personal")
            _ = try await phone.sync.round()
            #expect(try await collector.collect(now: hub.clock.now()) == [kept.address])
            #expect(Self.hubObjects(hub).isEmpty)
        }
    }
}
