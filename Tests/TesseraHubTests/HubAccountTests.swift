import Foundation
import Glibc
import Testing
import TesseraHub
import TesseraSDK
import TesseraHubFixtures
import TesseraTestFixtures

@Suite("Hub accounts", .hangWatchdog)
struct HubAccountTests {
    @Test("the admin creates a person, who logs a device in and gets a device token", arguments: HubBackend.available)
    func createAndLogin(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            let id = try await hub.addPerson("ada")
            let token = try await hub.login("ada", device: "phone")
            #expect(token.hasPrefix("tsd_") && token.count == 68)
            let me = try await hub.request("GET", "/v1/hub/me", token: token)
            #expect(me.status == 200)
            #expect(me.json?["person"]?.stringValue == id)
            #expect(me.json?["deviceName"]?.stringValue == "phone")
            // Her personal space exists, with her as its owner.
            let spaces = try await hub.request("GET", "/v1/hub/spaces", token: token)
            #expect(spaces.json?["spaces"]?.arrayValue?.first?["id"]?.stringValue == "personal")
            #expect(spaces.json?["spaces"]?.arrayValue?.first?["role"]?.stringValue == "owner")
            // Only the admin token creates people; a name is taken once.
            let anonymous = try await hub.request("POST", "/v1/hub/people", json: #"{"name":"eve","password":"12345678x"}"#)
            #expect(anonymous.status == 401)
            let byDevice = try await hub.request("POST", "/v1/hub/people", token: token, json: #"{"name":"eve","password":"12345678x"}"#)
            #expect(byDevice.status == 401)
            let twice = try await hub.request("POST", "/v1/hub/people", token: hub.adminToken, json: #"{"name":"ada","password":"12345678x"}"#)
            #expect(twice.status == 409 && twice.errorCode == "name_taken")
            let weak = try await hub.request("POST", "/v1/hub/people", token: hub.adminToken, json: #"{"name":"bob","password":"short"}"#)
            #expect(weak.status == 400 && weak.errorCode == "weak_password")
            // The operator's view: Ada, with one device that reached the hub at the hub's time.
            let people = try await hub.hub.people()
            #expect(people.map(\.name) == ["ada"] && people.first?.id == id && people.first?.devices == 1)
            #expect(people.first?.lastSeenMillis == hub.clock.millis)
        }
    }

    @Test("a wrong password, an unknown name and a forged token are 401", arguments: HubBackend.available)
    func wrongCredentials(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            try await hub.addPerson("ada")
            let wrong = try await hub.request("POST", "/v1/hub/login", json: #"{"name":"ada","password":"incorrect horse","device":"phone"}"#)
            #expect(wrong.status == 401 && wrong.errorCode == "invalid_credentials")
            #expect(wrong.header("WWW-Authenticate") != nil)
            let unknown = try await hub.request("POST", "/v1/hub/login", json: #"{"name":"nobody","password":"correct horse battery","device":"phone"}"#)
            #expect(unknown.status == 401 && unknown.errorCode == "invalid_credentials")
            #expect(unknown.errorMessage == wrong.errorMessage)
            let forged = try await hub.request("GET", "/v1/hub/spaces", token: "tsd_" + String(repeating: "0", count: 64))
            #expect(forged.status == 401)
            let none = try await hub.request("GET", "/v1/hub/spaces")
            #expect(none.status == 401)
            // The admin token is not a device token.
            let admin = try await hub.request("GET", "/v1/hub/spaces", token: hub.adminToken)
            #expect(admin.status == 401)
        }
    }

    @Test("a device token unused for 180 days expires; one in use stays valid", arguments: HubBackend.available)
    func tokensExpireWhenUnused(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            try await hub.addPerson("ada")
            let drawer = try await hub.login("ada", device: "old tablet"), phone = try await hub.login("ada", device: "phone")
            for _ in 0..<4 {  // the phone syncs every 50 days; the tablet is never used
                hub.clock.advance(50 * 86_400)
                #expect(try await hub.request("GET", "/v1/hub/me", token: phone).status == 200)
            }
            let expired = try await hub.request("GET", "/v1/hub/me", token: drawer)
            #expect(expired.status == 401 && expired.errorCode == "token_expired")
            #expect(try await hub.request("GET", "/v1/hub/spaces", token: phone).status == 200)
            // Logging in again gives a working token.
            #expect(try await hub.request("GET", "/v1/hub/me", token: try await hub.login("ada", device: "old tablet")).status == 200)
        }
    }

    @Test("tokens and passwords are not in the hub's files (SQLite's, or PostgreSQL's cluster); passwords are yescrypt hashes", arguments: HubBackend.available)
    func secretsHashedAtRest(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            try await hub.addPerson("ada", password: "sekret-password-42")
            let token = try await hub.login("ada", device: "phone", password: "sekret-password-42")
            // The embedded store's file and WAL; or every file of the PostgreSQL cluster (its WAL too).
            let files: [String]
            switch backend {
            case .sqlite: files = [HubStore.fileName, HubStore.fileName + "-wal"].map { hub.dataDirectory + "/" + $0 }
            case .postgresql:
                let data = try await PostgresTestServer.shared().directory + "/data"
                files = FileManager.default.subpaths(atPath: data)?.map { data + "/" + $0 } ?? []
            }
            var bytes: [UInt8] = []
            for file in files { bytes += (FileManager.default.contents(atPath: file).map(Array.init) ?? []) }
            #expect(bytes.count > 4096)
            #expect(!bytes.holds(token))
            #expect(!bytes.holds(String(token.dropFirst(4).prefix(32))))
            #expect(!bytes.holds("sekret-password-42"))
            #expect(bytes.holds("$y$"))
            // And the token works.
            #expect(try await hub.request("GET", "/v1/hub/me", token: token).status == 200)
        }
    }

    @Test("a person lists their devices and revokes one: its token stops working at once", arguments: HubBackend.available)
    func revokeDevice(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            try await hub.addPerson("ada")
            try await hub.addPerson("bob")
            let phone = try await hub.login("ada", device: "phone")
            let laptop = try await hub.login("ada", device: "laptop")
            let bobs = try await hub.login("bob", device: "bob's")
            let listed = try await hub.request("GET", "/v1/hub/devices", token: laptop)
            let devices = try #require(listed.json?["devices"]?.arrayValue)
            #expect(devices.compactMap { $0["name"]?.stringValue } == ["phone", "laptop"])
            #expect(devices.compactMap { $0["current"] } == [.bool(false), .bool(true)])
            #expect(!listed.text.contains("tsd_"))
            let phoneID = try #require(devices.first?["id"]?.stringValue)
            // Bob cannot revoke Ada's phone; Ada can, from her laptop.
            let byBob = try await hub.request("DELETE", "/v1/hub/devices/\(phoneID)", token: bobs)
            #expect(byBob.status == 404 && byBob.errorCode == "device_not_found")
            #expect(try await hub.request("GET", "/v1/hub/me", token: phone).status == 200)
            #expect(try await hub.request("DELETE", "/v1/hub/devices/\(phoneID)", token: laptop).status == 204)
            #expect(try await hub.request("GET", "/v1/hub/me", token: phone).status == 401)
            #expect(try await hub.request("GET", "/v1/hub/me", token: laptop).status == 200)
        }
    }

    @Test("a person changes their password, proving the current one, and may sign out their other devices; the operator resets a forgotten one",
          arguments: HubBackend.available)
    func passwordChangeAndReset(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            try await hub.addPerson("ada")
            let phone = try await hub.login("ada", device: "phone"), tablet = try await hub.login("ada", device: "tablet")
            let wrong = try await hub.request("PUT", "/v1/hub/password", token: phone, json: #"{"current":"guess","new":"second password"}"#)
            #expect(wrong.status == 401 && wrong.errorCode == "invalid_credentials")
            let weak = try await hub.request("PUT", "/v1/hub/password", token: phone, json: #"{"current":"correct horse battery","new":"short"}"#)
            #expect(weak.status == 400 && weak.errorCode == "weak_password" && weak.json?["error"]?["field"]?.stringValue == "$.new")
            // Changed: the old password no longer logs in, the new one does; other devices stay.
            #expect(try await hub.request("PUT", "/v1/hub/password", token: phone,
                                          json: #"{"current":"correct horse battery","new":"second password"}"#).status == 204)
            #expect(try await hub.request("POST", "/v1/hub/login", json: #"{"name":"ada","password":"correct horse battery","device":"x"}"#).status == 401)
            _ = try await hub.login("ada", device: "laptop", password: "second password")
            #expect(try await hub.request("GET", "/v1/hub/me", token: tablet).status == 200)
            // Changed again, signing out the others: the tablet's token stops, the phone's works.
            #expect(try await hub.request("PUT", "/v1/hub/password", token: phone,
                                          json: #"{"current":"second password","new":"third password","signOutOtherDevices":true}"#).status == 204)
            #expect(try await hub.request("GET", "/v1/hub/me", token: tablet).status == 401)
            #expect(try await hub.request("GET", "/v1/hub/me", token: phone).status == 200)
            // Forgotten: the operator resets it; every device is signed out.
            #expect(try await hub.hub.resetPassword(ofName: "ada", to: "operator set this") == 1)
            #expect(try await hub.request("GET", "/v1/hub/me", token: phone).status == 401)
            _ = try await hub.login("ada", device: "phone", password: "operator set this")
            await #expect(throws: HubError.self) { _ = try await hub.hub.resetPassword(ofName: "nobody", to: "whatever123") }
        }
    }

    @Test("a yescrypt hash verifies its password only")
    func passwordHash() throws {
        let hash = try PasswordHash.make("correct horse battery")
        #expect(hash.hasPrefix("$y$"))
        #expect(PasswordHash.verify("correct horse battery", against: hash))
        #expect(!PasswordHash.verify("correct horse batterx", against: hash))
        #expect(try PasswordHash.make("correct horse battery") != hash)  // a fresh salt each time
    }
}

extension [UInt8] {
    /// Whether `text`'s UTF-8 bytes occur anywhere in these bytes (memchr and memcmp: the
    /// PostgreSQL cluster is tens of megabytes).
    func holds(_ text: String) -> Bool {
        let needle = Array(text.utf8)
        return withUnsafeBytes { haystack in
            needle.withUnsafeBytes { wanted in
                guard let base = haystack.baseAddress, let first = wanted.first else { return false }
                var offset = 0
                while offset + wanted.count <= haystack.count {
                    guard let hit = memchr(base + offset, Int32(first), haystack.count - offset - wanted.count + 1) else { return false }
                    if memcmp(hit, wanted.baseAddress!, wanted.count) == 0 { return true }
                    offset = base.distance(to: UnsafeRawPointer(hit)) + 1
                }
                return false
            }
        }
    }
}

@Suite("The hub's routes in /openapi.json")
struct HubOpenAPITests {
    @Test("a hub's document lists every hub route with its token scheme, and a standard validator accepts it", .needs("python:openapi_spec_validator"))
    func hubRoutesAreDescribed() async throws {
        try await HubTestServer.start().use { hub in
            let response = try await hub.request("GET", "/openapi.json", token: hub.adminToken)
            let paths = try #require(response.json?["paths"])
            let routes: [(String, String)] = [
                ("post", "/v1/hub/people"), ("post", "/v1/hub/login"), ("get", "/v1/hub/me"), ("get", "/v1/hub/devices"),
                ("delete", "/v1/hub/devices/{device}"), ("put", "/v1/hub/password"), ("get", "/v1/hub/spaces"), ("put", "/v1/hub/spaces/{space}"),
                ("delete", "/v1/hub/spaces/{space}"), ("post", "/v1/hub/spaces/{space}/invitations"), ("post", "/v1/hub/invitations/accept"),
                ("put", "/v1/hub/spaces/{space}/members/{person}"), ("delete", "/v1/hub/spaces/{space}/members/{person}"),
                ("post", "/v1/hub/sync/{plugin}/push"), ("get", "/v1/hub/sync/{plugin}/pull"), ("post", "/v1/hub/sync/{plugin}/check"),
                ("get", "/v1/hub/spaces/{space}/invitations"), ("delete", "/v1/hub/spaces/{space}/invitations/{invitation}"),
                ("get", "/v1/hub/invitations"), ("post", "/v1/hub/invitations/{invitation}/accept"),
                ("post", "/v1/hub/invitations/{invitation}/decline"), ("post", "/v1/hub/notifications"), ("get", "/v1/hub/notifications"),
                ("get", "/v1/hub/files/{address}/upload"), ("put", "/v1/hub/files/{address}"), ("get", "/v1/hub/files/{address}"),
                ("get", "/v1/hub/channels"), ("post", "/v1/hub/channels"), ("delete", "/v1/hub/channels/{channel}"),
                ("post", "/v1/hub/channels/{channel}/confirm"),
            ]
            for (method, path) in routes { #expect(paths[path]?[method] != nil, "\(method) \(path)") }
            #expect(paths["/v1/hub/login"]?["post"]?["security"] == [])
            #expect(paths["/v1/hub/me"]?["get"]?["security"] == [["deviceToken": []]])
            #expect(paths["/v1/hub/sync/{plugin}/pull"]?["get"]?["responses"]?["200"]?["headers"]?["Tessera-Sync-Cursor"] != nil)
            let file = hub.root + "/openapi.json"
            try Data(response.body).write(to: URL(fileURLWithPath: file))
            let verdict = try await runDetached("/usr/bin/env", ["python3", "-m", "openapi_spec_validator", "--schema", "3.1", file])
            #expect(verdict.status == 0, "\(verdict.stdout)\(verdict.stderr)")
        }
    }
}
