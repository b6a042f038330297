import Foundation
import Testing
@testable import TesseraHTTP
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// Every error status the API answers, each with the JSON error body; and that no malformed
/// request reaches plugin code or yields a 500.
@Suite struct ErrorStatusTests {
    @Test func status400ForMalformedJSONAndSchemaViolationsNamingTheField() async throws {
        try await TestServer.start().use { server in
            let malformed = try await server.call("echo", #"{"text": "#)
            #expect(malformed.status == 400)
            #expect(malformed.errorCode == "invalid_input")
            #expect(malformed.json?["error"]?["field"] == "$")
            let wrongType = try await server.call("echo", #"{"count": "three"}"#)
            #expect(wrongType.status == 400)
            #expect(wrongType.json?["error"]?["field"] == "$.count")
            let unknownMember = try await server.call("echo", #"{"colour": "red"}"#)
            #expect(unknownMember.json?["error"]?["field"] == "$.colour")
            let nested = try await server.call("echo", #"{"where": {"lat": "north"}}"#)
            #expect(nested.json?["error"]?["field"] == "$.where.lat")
            #expect(server.calls.value == 0)
        }
    }

    /// Issue 43: a plugin the host is still starting answers 503 with Retry-After, not 404.
    @Test func aPluginStillStartingIs503WithRetryAfter() {
        let starting = APIError(PluginError(.unavailable, "plugin 'x' " + PluginError.startingMessageEnding))
        #expect(starting.status == .serviceUnavailable && starting.headers[.retryAfter] == "1")
        let quarantined = APIError(PluginError(.unavailable, "plugin 'x' is not active: quarantined"))
        #expect(quarantined.status == .serviceUnavailable && quarantined.headers[.retryAfter] == nil)
    }

    @Test func status400ForABodyCutOffBeforeItsLength() async throws {
        try await TestServer.start(transport: .socket).use { server in
            let head = "POST /v1/plugins/\(ProbePlugin.id)/ops/echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(server.adminToken)\r\n"
                + "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
            let port = server.port
            let response = try await onThread {
                let fd = try RawHTTPClient.connect(port: port)
                defer { close(fd) }
                _ = RawHTTPClient.send(fd, Array((head + #"{"text": "only a "#).utf8))
                shutdown(fd, Int32(SHUT_WR))  // the client goes away mid-body
                return try RawHTTPClient.readResponse(fd, expectBody: true)
            }
            #expect(response.status == 400)
            #expect(response.text.contains("invalid_input") && response.text.contains("could not be read whole"))
            #expect(server.calls.value == 0)
        }
    }

    @Test func status401WithoutAValidTokenAndTheBearerChallenge() async throws {
        try await TestServer.start().use { server in
            for (who, headers) in [(TestServer.As.none, []), (.token("tsr_not-a-real-token"), []), (.none, [("Authorization", "Basic YWRtaW46YWRtaW4=")]),
                                   (.none, [("Authorization", "Bearer")]), (.none, [("Authorization", "Bearer \(server.adminToken)x")])] {
                let refused = try await server.request("POST", "/v1/plugins/test.probe/ops/echo", as: who, headers: headers, json: "{}")
                #expect(refused.status == 401)
                #expect(refused.errorCode == "unauthorized")
                #expect(refused.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
            }
            // Every route but the probes needs a token — an unknown one too, so the routes stay hidden.
            for path in ["/v1/plugins", "/openapi.json", "/metrics", "/no-such-route"] {
                #expect(try await server.request("GET", path, as: .none).status == 401, "\(path)")
            }
            // Issue 46: a probe has no token; /readyz says ready, and nothing else.
            let probe = try await server.request("GET", "/readyz", as: .none)
            #expect(probe.status == 200 && probe.json == ["status": "ready"], "\(probe.text)")
            // The scheme's name is case-insensitive.
            #expect(try await server.request("GET", "/v1/plugins", as: .none, headers: [("Authorization", "bearer \(server.adminToken)")]).status == 200)
            #expect(server.calls.value == 0)
        }
    }

    @Test func status403ForARoleTheOperationRefusesAndForAMissingGrant() async throws {
        try await TestServer.start().use { server in
            let forbidden = try await server.call("admin-only", "{}", as: .user)
            #expect(forbidden.status == 403)
            #expect(forbidden.errorCode == "forbidden")
            #expect(try await server.call("admin-only", "{}").status == 200)
            let notGranted = try await server.call("fail", #"{"code": "not_granted", "message": "needs the clock"}"#)
            #expect(notGranted.status == 403)
            #expect(notGranted.errorCode == "not_granted")
        }
    }

    @Test func status404ForAnUnknownPluginOperationOrRoute() async throws {
        try await TestServer.start().use { server in
            let plugin = try await server.request("POST", "/v1/plugins/no.such.plugin/ops/echo", json: "{}")
            #expect(plugin.status == 404)
            #expect(plugin.errorCode == "not_found")
            #expect(plugin.json?["error"]?["message"]?.stringValue?.contains("no.such.plugin") == true)
            let operation = try await server.request("POST", "/v1/plugins/test.probe/ops/no-such-op", json: "{}")
            #expect(operation.status == 404)
            #expect(operation.json?["error"]?["message"]?.stringValue?.contains("no-such-op") == true)
            let route = try await server.request("GET", "/v2/everything")
            #expect(route.status == 404)
            #expect(route.errorCode == "not_found")
        }
    }

    @Test func status405WithAllowForAMethodThePathDoesNotTake() async throws {
        try await TestServer.start(transport: .socket).use { server in
            let get = try await server.request("GET", "/v1/plugins/test.probe/ops/echo")
            #expect(get.status == 405)
            #expect(get.errorCode == "method_not_allowed")
            #expect(get.headers["allow"] == "POST")
            let post = try await server.request("POST", "/v1/plugins", json: "{}")
            #expect(post.status == 405)
            #expect(post.headers["allow"] == "GET, HEAD")
            #expect(try await server.request("DELETE", "/metrics").status == 405)
            // A HEAD refusal has no body: the response after it on the same connection parses cleanly.
            let auth = "Authorization: Bearer \(server.adminToken)\r\n"
            let answers = try await RawHTTPClient.pipelined(port: server.port, [
                (Array("HEAD /v1/plugins/test.probe/ops/echo HTTP/1.1\r\nHost: x\r\n\(auth)\r\n".utf8), false),
                (Array("HEAD /v1/plugins HTTP/1.1\r\nHost: x\r\n\r\n".utf8), false),
                (Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8), true),
            ])
            #expect(answers.map(\.status) == [405, 401, 200])
            #expect(answers[0].headers["allow"] == "POST")
            #expect(answers[2].json == ["status": "ok"])
        }
    }

    @Test func status409And422FromThePlugin() async throws {
        try await TestServer.start().use { server in
            let conflict = try await server.call("fail", #"{"code": "conflict", "message": "already booked"}"#)
            #expect(conflict.status == 409)
            #expect(conflict.json == ["error": ["code": "conflict", "message": "already booked"]])
            let unprocessable = try await server.call("fail", #"{"code": "unprocessable", "message": "end before start", "field": "$.end"}"#)
            #expect(unprocessable.status == 422)
            #expect(unprocessable.json == ["error": ["code": "unprocessable", "message": "end before start", "field": "$.end"]])
        }
    }

    @Test func status413ForADeclaredLengthOverTheLimitBeforeAByteIsRead() async throws {
        try await TestServer.start(maxBodyBytes: 1024, transport: .socket).use { server in
            // Only the head is sent: the answer cannot have waited for the body.
            let head = "POST /v1/plugins/test.probe/ops/echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(server.adminToken)\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
            let refused = try await RawHTTPClient.exchange(port: server.port, parts: [Array(head.utf8)])
            #expect(refused.status == 413)
            #expect(refused.errorCode == "payload_too_large")
            // At the limit is fine.
            let text = String(repeating: "a", count: 1024 - #"{"text":""}"#.utf8.count)
            #expect(try await server.call("echo", #"{"text":"\#(text)"}"#).status == 200)
            #expect(try await server.call("echo", #"{"text":"\#(text)a"}"#).status == 413)
            #expect(server.calls.value == 1)
        }
    }

    @Test func status413ForAChunkedBodyThatGrowsPastTheLimitWhileItIsRead() async throws {
        try await TestServer.start(maxBodyBytes: 4096, transport: .socket).use { server in
            let head = "POST /v1/plugins/test.probe/ops/echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(server.adminToken)\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            func chunk(_ size: Int) -> [UInt8] { Array((String(size, radix: 16) + "\r\n" + String(repeating: " ", count: size) + "\r\n").utf8) }
            // Two chunks over the limit and no final chunk: the body never ends, yet the answer comes.
            let refused = try await RawHTTPClient.exchange(port: server.port, parts: [Array(head.utf8), chunk(3000), chunk(3000)], pause: .milliseconds(20))
            #expect(refused.status == 413)
            #expect(refused.errorCode == "payload_too_large")
            #expect(server.calls.value == 0)
        }
    }

    @Test func status415ForABodyNotDeclaredAsJSON() async throws {
        try await TestServer.start().use { server in
            let plain = try await server.request("POST", "/v1/plugins/test.probe/ops/echo", headers: [("Content-Type", "text/plain")], json: "{}")
            #expect(plain.status == 415)
            #expect(plain.errorCode == "unsupported_media_type")
            let form = try await server.request("POST", "/v1/plugins/test.probe/ops/echo", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array("a=1".utf8))
            #expect(form.status == 415)
            let undeclared = try await server.request("POST", "/v1/plugins/test.probe/ops/echo", body: Array("{}".utf8))
            #expect(undeclared.status == 415)
            #expect(server.calls.value == 0)
        }
    }

    @Test func status429WithRetryAfterOncePerTokenBudgetIsSpent() async throws {
        // One token per 10,000 s: the bucket stays empty however long a loaded machine takes between calls.
        try await TestServer.start(rateLimit: .init(perSecond: 0.0001, burst: 3)).use { server in
            for _ in 0..<3 { #expect(try await server.call("echo", "{}").status == 200) }
            let limited = try await server.call("echo", "{}")
            #expect(limited.status == 429)
            #expect(limited.errorCode == "rate_limited")
            let retryAfter = try #require(limited.headers["retry-after"].flatMap { Int($0) })
            #expect(retryAfter >= 1 && retryAfter <= 10_000)
            #expect(try await server.request("GET", "/v1/plugins").status == 429)
            // Another token has its own budget; /healthz has none.
            #expect(try await server.call("echo", "{}", as: .user).status == 200)
            #expect(try await server.request("GET", "/healthz", as: .none).status == 200)
            #expect(server.calls.value == 4)
        }
    }

    @Test func status500OnlyForAPluginFailureAndNeverWithItsDetails() async throws {
        try await TestServer.start().use { server in
            let crash = try await server.call("crash", "{}")
            #expect(crash.status == 500)
            #expect(crash.errorCode == "internal")
            #expect(!crash.text.contains("secret-path"))
            let internalWithDetails = try await server.call("fail", #"{"code": "internal", "message": "password=hunter2"}"#)
            #expect(internalWithDetails.status == 500)
            #expect(!internalWithDetails.text.contains("hunter2"))
            // A code the API does not know is answered as internal too.
            let custom = try await server.call("fail", #"{"code": "teapot", "message": "I am one"}"#)
            #expect(custom.status == 500)
            #expect(custom.errorCode == "internal")
        }
    }

    @Test func status503ForAPluginThatIsNotActiveNamingItsState() async throws {
        try await TestServer.start().use { server in
            let unavailable = try await server.request("POST", "/v1/plugins/test.broken/ops/hello", json: "{}")
            #expect(unavailable.status == 503)
            #expect(unavailable.errorCode == "unavailable")
            #expect(unavailable.json?["error"]?["message"]?.stringValue?.contains("failed") == true)
        }
    }

    @Test func aMalformedRequestLineIs400NotA500() async throws {
        try await TestServer.start(transport: .socket).use { server in
            let garbage = try await RawHTTPClient.exchange(port: server.port, parts: [Array("NOT HTTP AT ALL\r\n\r\n".utf8)])
            #expect(garbage.status == 400)
            #expect(try await server.request("GET", "/healthz", as: .none).status == 200)  // the server lives on
        }
    }

    /// Bodies a fuzzer would send: truncated, nested past the parser's depth, invalid UTF-8, control
    /// bytes, random bytes. None may reach the plugin, none may be a 500.
    @Test func malformedBodiesNeverReachThePluginNorYield500() async throws {
        try await TestServer.start(maxBodyBytes: 1 << 16).use { server in
            var bodies: [[UInt8]] = [
                Array(String(repeating: "[", count: 5000).utf8), Array((String(repeating: "[", count: 200) + String(repeating: "]", count: 200)).utf8),
                [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D], Array("{\"text\": \"\u{0}\"}".utf8), Array("nul\u{0}l".utf8),
                Array("1e999999".utf8), Array("{\"count\": 99999999999999999999999}".utf8), Array("\"just a string\"".utf8),
                Array("{\"text\": \"\\ud800\"}".utf8), Array("{,}".utf8), Array("{\"a\":1,}".utf8), [],
            ]
            var random = SplitMix64(seed: 42)
            for _ in 0..<40 {
                let count = Int(random.next() % 64)
                bodies.append((0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) })
            }
            for body in bodies {
                let answer = try await server.request("POST", "/v1/plugins/test.probe/ops/fail", headers: [("Content-Type", "application/json")], body: body)
                #expect((400..<500).contains(answer.status), "\(body.prefix(40)) → \(answer.status) \(answer.text)")
                #expect(answer.errorCode != nil)
            }
            #expect(server.calls.value == 0)
        }
    }
}
