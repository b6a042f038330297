import TesseraTestFixtures
import Foundation
import Synchronization
import Testing
import TesseraOutbound
import TesseraSDK

/// The HTTP client capability against a real server on loopback.
@Suite(.hangWatchdog) struct OutboundHTTPClientTests {
    func client(_ hosts: [String], redirects: [String: String] = [:], maxResponseBytes: Int = 16 * 1_048_576,
                log: @escaping @Sendable (String) -> Void = { _ in }) -> OutboundHTTPClient {
        OutboundHTTPClient(pluginID: "test.plugin", allowed: HostAllowList(hosts),
                           transport: OutboundTransport(redirects: OutboundRedirects(redirects), maxResponseBytes: maxResponseBytes),
                           log: log)
    }

    @Test func aGrantedRequestIsSentWithItsMethodHeadersAndBody() async throws {
        let server = try await LoopbackServer.start()
        try await withCleanup({ await server.stop() }) {
            let http = client(["127.0.0.1"])
            let response = try await http.send(OutboundRequest(method: "POST", url: "http://127.0.0.1:\(server.port)/echo",
                                                               headers: ["Accept-Language": "p1"], body: Array("hello".utf8)))
            #expect(response.status == 201)
            #expect(response.header("cache-control") == "no-store")
            #expect(response.header("Cache-Control") == "no-store")
            #expect(try response.json() == ["method": "POST", "probe": "p1", "length": 5])
        }
    }

    @Test func aHostOutsideTheGrantIsRefusedAndNothingIsSent() async throws {
        let server = try await LoopbackServer.start()
        try await withCleanup({ await server.stop() }) {
            let http = client(["fioapi.fio.cz"])
            let error = await #expect(throws: PluginError.self) {
                _ = try await http.send(OutboundRequest(url: "http://127.0.0.1:\(server.port)/echo"))
            }
            #expect(error?.code == .notGranted)
            #expect(error?.message.contains("127.0.0.1:\(server.port)") == true)
            #expect(error?.message.contains("fioapi.fio.cz") == true)
            #expect(server.requests.isEmpty)
        }
    }

    @Test func aPortInTheGrantAllowsOnlyThatPort() {
        let list = HostAllowList(["stag.example.cz:8443", "Fioapi.FIO.cz"])
        #expect(list.allows(host: "stag.example.cz", port: 8443))
        #expect(!list.allows(host: "stag.example.cz", port: 443))
        #expect(list.allows(host: "fioapi.fio.cz", port: 443))
        #expect(list.allows(host: "FIOAPI.fio.cz", port: 8080))
        #expect(!list.allows(host: "evil.fioapi.fio.cz", port: 443))
        #expect(HostAllowList(["*"]).allows(host: "anything.example", port: 1))
        #expect(!HostAllowList([]).allows(host: "localhost", port: 80))
    }

    @Test func malformedURLsAndMethodsAreInvalidInput() async throws {
        let http = client(["*"])
        for url in ["fioapi.fio.cz/x", "ftp://fioapi.fio.cz/x", "http:///nohost", ""] {
            let error = await #expect(throws: PluginError.self) { _ = try await http.send(OutboundRequest(url: url)) }
            #expect(error?.code == .invalidInput, "\(url)")
        }
        let error = await #expect(throws: PluginError.self) {
            _ = try await http.send(OutboundRequest(method: "GET /x HTTP/1.1\r\n", url: "http://127.0.0.1:1/"))
        }
        #expect(error?.code == .invalidInput)
    }

    @Test func redirectsSendTheRealServiceURLToTheEmulatorAfterTheGrantCheck() async throws {
        let server = try await LoopbackServer.start()
        try await withCleanup({ await server.stop() }) {
            // The plugin is granted the real host only; the deployment points it at the emulator.
            let http = client(["fioapi.fio.cz"], redirects: ["https://fioapi.fio.cz/": "http://127.0.0.1:\(server.port)"])
            let response = try await http.send(OutboundRequest(url: "https://fioapi.fio.cz/v1/rest/last?token=abc"))
            #expect(response.status == 200)
            #expect(response.text == "got /v1/rest/last?token=abc")
            #expect(server.requests == ["GET /v1/rest/last?token=abc"])
        }
    }

    @Test func aRedirectPrefixMatchesWholeHostsOnly() {
        let redirects = OutboundRedirects(["https://a.cz": "http://127.0.0.1:9", "https://a.cz:8443": "http://127.0.0.1:10"])
        #expect(redirects.apply(to: "https://a.cz/x?y") == "http://127.0.0.1:9/x?y")
        #expect(redirects.apply(to: "https://A.cz") == "http://127.0.0.1:9")
        #expect(redirects.apply(to: "https://a.cz:8443/p") == "http://127.0.0.1:10/p")
        #expect(redirects.apply(to: "https://a.cz.evil.com/x") == "https://a.cz.evil.com/x")
        #expect(redirects.apply(to: "https://a.czech/x") == "https://a.czech/x")
    }

    @Test func aServersRedirectIsReturnedNotFollowed() async throws {
        let server = try await LoopbackServer.start()
        try await withCleanup({ await server.stop() }) {
            let http = client(["127.0.0.1"])
            let response = try await http.send(OutboundRequest(url: "http://127.0.0.1:\(server.port)/redirect"))
            #expect(response.status == 302)
            #expect(response.header("location") == "http://not-granted.example/elsewhere")
            #expect(server.requests == ["GET /redirect"])
        }
    }

    @Test func aResponseOverTheLimitIsRefused() async throws {
        let server = try await LoopbackServer.start()
        try await withCleanup({ await server.stop() }) {
            let error = await #expect(throws: PluginError.self) {
                _ = try await client(["127.0.0.1"], maxResponseBytes: 100_000).send(OutboundRequest(url: "http://127.0.0.1:\(server.port)/big"))
            }
            #expect(error?.code == .unavailable)
            #expect(error?.message.contains("at most 100000") == true)
            let whole = try await client(["127.0.0.1"]).send(OutboundRequest(url: "http://127.0.0.1:\(server.port)/big"))
            #expect(whole.body.count == 300_000)
        }
    }

    @Test func anUnreachableHostIsUnavailableAndTheMessageKeepsThePathOut() async throws {
        // A port nothing listens on: bind one, note it, close it.
        let server = try await LoopbackServer.start()
        let port = server.port
        await server.stop()
        let lines = LogLines()
        let error = await #expect(throws: PluginError.self) {
            _ = try await client(["127.0.0.1"], log: lines.append)
                .send(OutboundRequest(url: "http://127.0.0.1:\(port)/v1/rest/last/SECRET-TOKEN/transactions.json"))
        }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("SECRET-TOKEN") == false)
        #expect(error?.message.contains("127.0.0.1") == true)
    }

    @Test func theLogAndTheDescriptionNameOnlyMethodAndHost() async throws {
        let server = try await LoopbackServer.start()
        try await withCleanup({ await server.stop() }) {
            let lines = LogLines()
            let request = OutboundRequest(url: "http://127.0.0.1:\(server.port)/v1/rest/SECRET-TOKEN?key=SECRET-KEY",
                                          headers: ["Authorization": "Bearer SECRET-BEARER"])
            _ = try await client(["127.0.0.1"], log: lines.append).send(request)
            #expect("\(request)" == "GET http://127.0.0.1:\(server.port)/…")
            #expect(lines.all == ["GET http://127.0.0.1:\(server.port)/… -> 200"])
            #expect(!lines.all.joined().contains("SECRET"))
        }
    }
}

/// Collects log lines from a client.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    @Sendable func append(_ line: String) { lines.withLock { $0.append(line) } }
}
