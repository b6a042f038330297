import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// The host's own endpoints answered in the connection's pipeline, on its event loop
/// (`HostEndpointsOnTheLoop`), beside the requests the connection's task answers: HTTP/1's order,
/// the same middlewares, a connection closed when asked. (That they answer while plugins hold
/// every thread of the shared pool is `SpinningPluginTests`, with `tessera serve`.)
@Suite struct HostEndpointsOnTheLoopTests {
    static func get(_ path: String, token: String? = nil, method: String = "GET", close: Bool = false) -> [UInt8] {
        Array(("\(method) \(path) HTTP/1.1\r\nHost: x\r\n" + (token.map { "Authorization: Bearer \($0)\r\n" } ?? "")
            + (close ? "Connection: close\r\n" : "") + "\r\n").utf8)
    }

    static func call(_ op: String, _ json: String, token: String) -> [UInt8] {
        Array(("POST /v1/plugins/test.probe/ops/\(op) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\n\r\n\(json)").utf8)
    }

    @Test func pipelinedRequestsAreAnsweredInTheOrderTheyCameWhicheverSideAnswersThem() async throws {
        try await TestServer.start(transport: .socket).use { server in
            let token = server.adminToken
            let answers = try await RawHTTPClient.pipelined(port: server.port, [
                (Self.get("/healthz"), true),
                (Self.call("echo", #"{"text": "one"}"#, token: token), true),
                (Self.get("/v1/plugins", token: token), true),
                (Self.get("/v1/plugins"), true),
                (Self.get("/healthz", method: "HEAD"), false),
                (Self.get("/readyz?verbose=1"), true),
                (Self.call("echo", #"{"text": "two"}"#, token: token), true),
                (Self.get("/metrics", token: token), true),
            ])
            #expect(answers.map(\.status) == [200, 200, 200, 401, 200, 200, 200, 200])
            #expect(answers[0].json == ["status": "ok"])
            #expect(answers[1].json == ["text": "one"])
            #expect(answers[2].text.contains("test.probe"))
            // The same middlewares as through the router: no token, no list; the error in the
            // edge's JSON form; the request's id; the date.
            #expect(answers[3].errorCode == "unauthorized")
            #expect(answers[0].headers["x-request-id"] != nil)
            #expect(answers[0].headers["date"]?.hasSuffix(" GMT") == true)
            // The connection's task writes them too (EdgeServerService, as Hummingbird's application did).
            #expect(answers[1].headers["date"]?.hasSuffix(" GMT") == true)
            #expect(answers[1].headers["x-request-id"] != nil && answers[1].headers["x-request-id"] != answers[6].headers["x-request-id"])
            #expect(answers[4].body.isEmpty)
            #expect(answers[6].json == ["text": "two"])
            #expect(answers[7].text.contains("tessera_operation_calls_total"))
            #expect(server.calls.value == 2)
        }
    }

    @Test func aHostsEndpointBehindACallStillBeingAnsweredWaitsForThatAnswer() async throws {
        try await TestServer.start(transport: .socket).use { server in
            let name = "behind-\(UUID().uuidString)"
            HeldCalls.shared.hold(name)
            defer { HeldCalls.shared.release(name) }
            let fd = try RawHTTPClient.connect(port: server.port)
            defer { close(fd) }
            _ = RawHTTPClient.send(fd, Self.call("hold", #"{"name": "\#(name)"}"#, token: server.adminToken)
                + Self.get("/healthz") + Self.get("/v1/plugins", token: server.adminToken))
            // The call has reached the plugin, and the requests behind it have been read with it.
            await HeldCalls.shared.arrival(of: name)
            var waiting = [UInt8](repeating: 0, count: 16)
            #expect(recv(fd, &waiting, waiting.count, Int32(MSG_DONTWAIT)) == -1, "an answer came before the held call's")

            HeldCalls.shared.release(name)
            let answers = try await onThread { () throws -> [RawResponse] in
                var buffer: [UInt8] = []
                return try (0..<3).map { _ in try RawHTTPClient.readResponse(fd, expectBody: true, buffer: &buffer) }
            }
            #expect(answers.map(\.status) == [200, 200, 200])
            #expect(answers[0].json == ["released": true])
            #expect(answers[1].json == ["status": "ok"])
            #expect(answers[2].text.contains("test.probe"))
        }
    }

    @Test func aHostsEndpointAskedToCloseTheConnectionIsItsLastAnswer() async throws {
        try await TestServer.start(transport: .socket).use { server in
            let fd = try RawHTTPClient.connect(port: server.port)
            defer { close(fd) }
            _ = RawHTTPClient.send(fd, Self.get("/healthz", close: true) + Self.get("/readyz"))
            let (answer, rest) = try await onThread { () throws -> (RawResponse, Int) in
                var buffer: [UInt8] = []
                let answer = try RawHTTPClient.readResponse(fd, expectBody: true, buffer: &buffer)
                var more = [UInt8](repeating: 0, count: 4096)
                var read = buffer.count
                while true {
                    let n = recv(fd, &more, more.count, 0)
                    if n < 0, errno == EINTR { continue }
                    guard n > 0 else { break }
                    read += n
                }
                return (answer, read)
            }
            #expect(answer.status == 200)
            #expect(rest == 0, "the server answered after the request that asked it to close")
        }
    }
}
