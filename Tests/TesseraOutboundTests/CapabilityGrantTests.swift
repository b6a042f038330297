import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures
import TesseraTesting

/// The http and secrets capabilities through the host: granted from the manifest and deployment,
/// checked on every call, redirected to a loopback server, secrets kept out of the plugin's database.
@Suite(.hangWatchdog) struct CapabilityGrantTests {
    /// A plugin that fetches a URL and keeps a token, declared with `hosts` as given.
    static func manifest(hosts: [String], optional: Bool = false) -> String {
        let dir = Fixtures.temporaryDirectory("outbound-manifest")
        let requirements = [#"{"capability": "storage", "version": "^1.0"}"#]
            + ["http", "secrets"].map { #"{"capability": "\#($0)", "version": "^1.0", "optional": \#(optional)}"# }
        let hostList = hosts.map { "\"\($0)\"" }.joined(separator: ", ")
        let text = """
        {
          "id": "test.fetcher", "name": "Fetcher", "version": "1.0.0",
          "sdk": {"abi": "1.10", "toolchain": "6.3.1"}, "library": {"name": "Fetcher"},
          "requires": [\(requirements.joined(separator: ", "))],
          "permissions": {"http": {"hosts": [\(hostList)]}},
          "operations": [
            {"name": "fetch", "input": {"type": "object", "required": ["url"], "properties": {"url": {"type": "string"}}},
             "output": {"type": "object"}},
            {"name": "keep-token", "input": {"type": "object", "required": ["token"], "properties": {"token": {"type": "string"}}},
             "output": {"type": "object"}},
            {"name": "fetch-with-token", "input": {"type": "object", "required": ["base"], "properties": {"base": {"type": "string"}}},
             "output": {"type": "object"}}
          ]
        }
        """
        Fixtures.write(text, to: dir + "/fetcher.json")
        return dir + "/fetcher.json"
    }

    @Test func aGrantedHostIsReachedThroughTheDeploymentsRedirect() async throws {
        let server = try await LoopbackServer.start()
        try await withCleanup({ await server.stop() }) {
            let host = try await PluginTestHost(manifest: Self.manifest(hosts: ["bank.example.cz"]), plugin: { Fetcher() },
                                                httpRedirects: ["https://bank.example.cz": "http://127.0.0.1:\(server.port)"])
            let answer = try await host.call("fetch", ["url": "https://bank.example.cz/v1/rest/x?q=1"])
            #expect(answer == ["status": 200, "text": "got /v1/rest/x?q=1"])
            await host.stop()
        }
    }

    @Test func aHostOutsideTheGrantReachesTheCallerAsNotGranted() async throws {
        let server = try await LoopbackServer.start()
        try await withCleanup({ await server.stop() }) {
            let host = try await PluginTestHost(manifest: Self.manifest(hosts: ["bank.example.cz"]), plugin: { Fetcher() })
            let error = await #expect(throws: PluginError.self) {
                _ = try await host.call("fetch", ["url": .string("http://127.0.0.1:\(server.port)/v1/rest/x")])
            }
            #expect(error?.code == .notGranted)
            #expect(server.requests.isEmpty)
            await host.stop()
        }
    }

    @Test func theOperatorMayNarrowAWildcardToNamedHosts() async throws {
        let server = try await LoopbackServer.start()
        try await withCleanup({ await server.stop() }) {
            let manifest = Self.manifest(hosts: ["*"])
            let narrowed = try await PluginTestHost(manifest: manifest, plugin: { Fetcher() },
                                                    grants: ["storage": [:], "secrets": [:], "http": ["hosts": ["127.0.0.1"]]])
            #expect(try await narrowed.call("fetch", ["url": .string("http://127.0.0.1:\(server.port)/v1/rest/y")])["status"] == 200)
            let error = await #expect(throws: PluginError.self) {
                _ = try await narrowed.call("fetch", ["url": .string("http://localhost:\(server.port)/v1/rest/y")])
            }
            #expect(error?.code == .notGranted)
            await narrowed.stop()
        }
    }

    @Test func aGrantBeyondTheManifestsHostsRejectsThePlugin() async throws {
        let error = await #expect(throws: PluginTestHostError.self) {
            _ = try await PluginTestHost(manifest: Self.manifest(hosts: ["fioapi.fio.cz"]), plugin: { Fetcher() },
                                         grants: ["storage": [:], "secrets": [:], "http": ["hosts": ["evil.example"]]])
        }
        #expect(error?.state == .rejected)
        #expect(error?.reason?.contains("evil.example") == true)
    }

    @Test func aSecretIsKeptOutsideThePluginsDatabaseAndUsedForRequests() async throws {
        let server = try await LoopbackServer.start()
        try await withCleanup({ await server.stop() }) {
            let host = try await PluginTestHost(manifest: Self.manifest(hosts: ["bank.example.cz"]), plugin: { Fetcher() },
                                                httpRedirects: ["https://bank.example.cz": "http://127.0.0.1:\(server.port)"])
            _ = try await host.call("keep-token", ["token": "TOKEN-4711-abcdef"])
            #expect(try host.secretNames() == ["api-token"])
            let answer = try await host.call("fetch-with-token", ["base": "https://bank.example.cz/v1/rest/"])
            #expect(answer["text"] == "got /v1/rest/TOKEN-4711-abcdef?")
            // Not in the plugin's database file, nor its write-ahead log.
            for file in [host.databasePath, host.databasePath + "-wal"] where FileManager.default.fileExists(atPath: file) {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
                #expect(bytes.range(of: Data("TOKEN-4711".utf8)) == nil, "\(file)")
            }
            await host.stop()
        }
    }

    @Test func withoutTheGrantsTheCapabilitiesAreAbsent() async throws {
        let host = try await PluginTestHost(manifest: Self.manifest(hosts: ["bank.example.cz"], optional: true), plugin: { Fetcher() },
                                            grants: ["storage": [:]])
        let error = await #expect(throws: PluginError.self) { _ = try await host.call("keep-token", ["token": "t"]) }
        #expect(error?.code == .notGranted)
        await host.stop()
    }
}

/// The test plugin: fetches URLs and keeps a token as a secret.
final class Fetcher: Plugin {
    struct FetchInput: Decodable, Sendable { let url: String }
    struct TokenInput: Decodable, Sendable { let token: String }
    struct BaseInput: Decodable, Sendable { let base: String }
    struct Fetched: Encodable, Sendable { let status: Int; let text: String }
    struct Done: Encodable, Sendable { let ok: Bool }

    func start(context: PluginContext) async throws {
        context.onOperation("fetch", input: FetchInput.self) { input, _ in
            let response = try await context.capability(.http).send(OutboundRequest(url: input.url))
            return Fetched(status: response.status, text: response.text)
        }
        context.onOperation("keep-token", input: TokenInput.self) { input, _ in
            try await context.capability(.secrets).store(Secret(input.token), named: "api-token")
            return Done(ok: true)
        }
        context.onOperation("fetch-with-token", input: BaseInput.self) { input, _ in
            guard let token = try await context.capability(.secrets).secret(named: "api-token") else {
                throw PluginError(.conflict, "no token stored")
            }
            let response = try await context.capability(.http).send(OutboundRequest(url: input.base + token.revealed))
            return Fetched(status: response.status, text: response.text)
        }
    }
}
