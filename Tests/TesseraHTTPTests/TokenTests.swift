import Foundation
import Testing
@testable import TesseraHTTP
import TesseraLoader
import TesseraSDK
import TesseraTestFixtures

/// Bearer tokens: what is stored, how they are checked, and that changes reach a running server.
@Suite struct TokenTests {
    @Test func theFileHoldsOnlyHashesAndIsReadableByItsOwnerAlone() throws {
        let data = Fixtures.temporaryDirectory("tokens")
        let store = TokenStore(dataDirectory: data)
        let admin = try #require(try store.ensureAdminToken())
        #expect(try store.ensureAdminToken() == nil)  // made once
        #expect(admin.hasPrefix("tsr_"))
        #expect(admin.count == 4 + 43)  // 32 bytes, base64url without padding
        let text = try String(contentsOfFile: store.path, encoding: .utf8)
        #expect(!text.contains(admin))
        #expect(text.contains(SHA256.hex(of: Array(admin.utf8))))
        let mode = try #require(FileManager.default.attributesOfItem(atPath: store.path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        #expect(store.principal(for: admin) == Principal(id: "admin", role: .admin))
        #expect(store.principal(for: admin + "x") == nil)
        #expect(store.principal(for: "") == nil)
    }

    @Test func createRotateRevokeAndTheirRefusals() throws {
        let store = TokenStore(dataDirectory: Fixtures.temporaryDirectory("tokens"))
        let bob = try store.create(name: "bob", role: .user)
        #expect(store.principal(for: bob) == Principal(id: "bob", role: .user))
        #expect(throws: TokenStoreError.self) { try store.create(name: "bob", role: .user) }
        #expect(throws: TokenStoreError.self) { try store.create(name: "Bob Smith", role: .user) }
        #expect(throws: TokenStoreError.self) { try store.create(name: "root", role: .system) }
        let rotated = try store.rotate(name: "bob")
        #expect(rotated != bob)
        #expect(store.principal(for: bob) == nil)
        #expect(store.principal(for: rotated) == Principal(id: "bob", role: .user))
        // Rotating the admin token when there is none makes it.
        let admin = try store.rotate()
        #expect(store.principal(for: admin)?.role == .admin)
        try store.revoke(name: "bob")
        #expect(store.principal(for: rotated) == nil)
        #expect(throws: TokenStoreError.self) { try store.revoke(name: "bob") }
        #expect(try store.list().map(\.name) == ["admin"])
    }

    @Test func concurrentChangesAreNotLost() async throws {
        let data = Fixtures.temporaryDirectory("tokens")
        // Each store opens the files on its own, as separate `tessera token` processes would.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<16 {
                group.addTask { _ = try await onThread { try TokenStore(dataDirectory: data).create(name: "user-\(i)", role: .user) } }
            }
            try await group.waitForAll()
        }
        #expect(try TokenStore(dataDirectory: data).list().count == 16)
    }

    @Test func aCorruptFileRefusesEveryTokenAndSaysWhy() throws {
        let data = Fixtures.temporaryDirectory("tokens")
        let store = TokenStore(dataDirectory: data)
        let admin = try #require(try store.ensureAdminToken())
        Fixtures.write(#"{"tokens": [{"name": "admin"}]}"#, to: store.path)
        #expect(store.principal(for: admin) == nil)
        #expect(throws: TokenStoreError.self) { try store.list() }
    }

    @Test func digestsCompareInConstantTimeAndBearerParsing() {
        #expect(TokenSecret.constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!TokenSecret.constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!TokenSecret.constantTimeEqual([1, 2, 3], [1, 2]))
        #expect(AuthMiddleware.bearerToken(in: "Bearer abc") == "abc")
        #expect(AuthMiddleware.bearerToken(in: "BEARER  abc ") == "abc")
        #expect(AuthMiddleware.bearerToken(in: "Basic abc") == nil)
        #expect(AuthMiddleware.bearerToken(in: "Bearer") == nil)
        #expect(Set((0..<100).map { _ in TokenSecret.generate() }).count == 100)
    }

    @Test func anotherStoresRotationIsSeenAtOnceThroughTheWriteCountAlone() throws {
        let data = Fixtures.temporaryDirectory("tokens")
        // The server's store watches a folder nobody writes: only the write count can tell it.
        let server = TokenStore(dataDirectory: data, watching: Fixtures.temporaryDirectory("quiet"))
        let other = TokenStore(dataDirectory: data)
        let bob = try other.create(name: "bob", role: .user)
        #expect(server.principal(for: bob) == Principal(id: "bob", role: .user))
        let rotated = try other.rotate(name: "bob")
        #expect(server.principal(for: bob) == nil)
        #expect(server.principal(for: rotated) == Principal(id: "bob", role: .user))
        try other.revoke(name: "bob")
        #expect(server.principal(for: rotated) == nil)
    }

    @Test func theWriteCountStartsFromALockFileMadeBeforeItAndIsReadWhereItIsMapped() throws {
        let lock = Fixtures.temporaryDirectory("tokens") + "/http-tokens.json.lock"
        Fixtures.write("", to: lock)  // as an earlier host's `tessera token` left it: empty
        let mapped = try #require(TokenFileGeneration(lockPath: lock))
        #expect(mapped.current == 0)
        TokenFileGeneration.advance(lockPath: lock)
        TokenFileGeneration.advance(lockPath: lock)
        #expect(mapped.current == 2)
        #expect(try #require(TokenFileGeneration(lockPath: lock)).current == 2)
        // One it makes is its owner's alone, as the token file is.
        let fresh = Fixtures.temporaryDirectory("tokens") + "/http-tokens.json.lock"
        #expect(try #require(TokenFileGeneration(lockPath: fresh)).current == 0)
        #expect(try FileManager.default.attributesOfItem(atPath: fresh)[.posixPermissions] as? Int == 0o600)
    }

    @Test func aRunningServerSeesRotationAndRevocationAtOnce() async throws {
        try await TestServer.start().use { server in
            #expect(try await server.request("GET", "/v1/plugins").status == 200)
            // Another process (tessera token rotate) replaces the file; the server re-reads it.
            let other = TokenStore(dataDirectory: server.root + "/data")
            let newAdmin = try other.rotate()
            #expect(try await server.request("GET", "/v1/plugins").status == 401)
            #expect(try await server.request("GET", "/v1/plugins", as: .token(newAdmin)).status == 200)
            try other.revoke(name: "ada")
            #expect(try await server.request("GET", "/v1/plugins", as: .user).status == 401)
        }
    }
}
