import Foundation
import HTTPTypes
import Testing
import TesseraSDK
@testable import TesseraHTTP
import TesseraTestFixtures

/// The shortcut for plugin operations (``EdgeResponder``): which paths it takes, and that a call
/// answers the same through it as through the router.
@Suite struct EdgeResponderTests {
    @Test func onlyTheCanonicalFormOfAnOperationPathIsTaken() {
        let taken = EdgeResponder.operationPath("/v1/plugins/dev.tessera.example/ops/echo")
        #expect(taken?.plugin == "dev.tessera.example")
        #expect(taken?.operation == "echo")
        #expect(EdgeResponder.operationPath("/v1/plugins/p/ops/ž")?.operation == "ž")
        for path in [
            "/v1/plugins/p/ops/echo/", "/v1/plugins//ops/echo", "/v1/plugins/p/ops/", "/v1/plugins/p/ops",
            "/v1/plugins/p/swap", "/v1/plugins/p/ops/a/b", "//v1/plugins/p/ops/echo", "/V1/plugins/p/ops/echo",
            "/v1/plugins/./ops/echo", "/v1/plugins/p/ops/..", "/v1/plugins", "/", "",
        ] {
            #expect(EdgeResponder.operationPath(path) == nil, "\(path)")
        }
    }

    @Test func aCallAnswersTheSameThroughTheRouterAsThroughTheShortcut() async throws {
        try await TestServer.start().use { server in
            let input = #"{"text": "hello", "count": 2}"#
            let direct = try await server.request("POST", "/v1/plugins/test.probe/ops/echo", json: input)
            // A trailing slash is not the canonical form: the router takes it, to the same route.
            let routed = try await server.request("POST", "/v1/plugins/test.probe/ops/echo/", json: input)
            #expect(direct.status == 200 && routed.status == 200)
            #expect(direct.json == ["text": "hello", "count": 2])
            #expect(routed.json == direct.json)
            #expect(server.calls.value == 2)
            // The middlewares run on the shortcut too: no token is 401, an unknown plugin 404.
            let anonymous = try await server.request("POST", "/v1/plugins/test.probe/ops/echo", as: .none, json: input)
            #expect(anonymous.status == 401)
            let unknown = try await server.request("POST", "/v1/plugins/no.such.plugin/ops/echo", json: input)
            #expect(unknown.status == 404)
            #expect(server.calls.value == 2)
        }
    }

    /// The shortcut runs the router's layers as one function (``EdgeLayers``): every layer's answer
    /// must be the chain's. Each case goes once through the shortcut and once through the router
    /// (a trailing slash), from the same token's bucket of five calls.
    @Test func everyLayerAnswersTheSameThroughTheShortcutAsThroughTheRouter() async throws {
        let limits = HTTPConfiguration.RateLimits(calls: .init(perSecond: 0.0001, burst: 5), admin: nil)
        try await TestServer.start(rateLimits: limits).use { server in
            let path = "/v1/plugins/\(ProbePlugin.id)/ops/"
            func both(_ op: String, as who: TestServer.As = .admin, json: String = #"{"text": "hi", "count": 1}"#)
                async throws -> (shortcut: RawResponse, router: RawResponse)
            {
                (try await server.request("POST", path + op, as: who, json: json),
                 try await server.request("POST", path + op + "/", as: who, json: json))
            }
            func expectSame(_ pair: (shortcut: RawResponse, router: RawResponse), status: Int, _ what: String) {
                #expect(pair.shortcut.status == status && pair.router.status == status, "\(what)")
                #expect(pair.shortcut.errorCode == pair.router.errorCode, "\(what)")
                // A refusal's wait is counted down between the two calls (seconds on a loaded machine).
                if status != 429 { #expect(pair.shortcut.json == pair.router.json, "\(what)") }
                // Every layer's fields: the request id (its value is the request's own), the rate
                // limit's on what passed the rate limit, Retry-After on a refusal.
                let names = { (r: RawResponse) in Set(r.headers.keys).subtracting(["date", "content-length"]) }
                #expect(names(pair.shortcut) == names(pair.router), "\(what)")
                #expect(pair.shortcut.headers["x-request-id"]?.isEmpty == false, "\(what)")
                #expect(pair.shortcut.headers["ratelimit-policy"] == pair.router.headers["ratelimit-policy"], "\(what)")
            }
            // Authentication refuses before the bucket is spent.
            expectSame(try await both("echo", as: .none), status: 401, "no token")
            expectSame(try await both("echo", as: .token("not-a-token")), status: 401, "an unknown token")
            // A call answered, and one the plugin refuses: both spend the bucket and carry its fields.
            let answered = try await both("echo")
            expectSame(answered, status: 200, "an answer")
            #expect(answered.shortcut.headers["ratelimit"]?.contains("r=4") == true)
            #expect(answered.router.headers["ratelimit"]?.contains("r=3") == true)
            expectSame(try await both("fail", json: #"{"code": "conflict"}"#), status: 409, "the plugin's error")
            // The fifth call empties the bucket; then both paths answer 429 with Retry-After.
            _ = try await server.request("POST", path + "echo", json: "{}")
            let refused = try await both("echo")
            expectSame(refused, status: 429, "an empty bucket")
            #expect(refused.shortcut.headers["retry-after"] != nil)
            // The response layer counted each answer of either path (twelve, and the five calls' own).
            let page = try await server.request("GET", "/metrics")
            let lines = Set(page.text.split(separator: "\n").map(String.init))
            #expect(lines.contains(#"tessera_http_responses_total{status="401"} 4"#))
            #expect(lines.contains(#"tessera_http_responses_total{status="429"} 2"#))
            #expect(lines.contains(#"tessera_http_responses_total{status="409"} 2"#))
            #expect(lines.contains(#"tessera_http_responses_total{status="200"} 3"#))
        }
    }

    /// What the shortcut's layers take for granted instead of reading the path (``EdgeLayers``):
    /// every path it takes needs a bearer token (none is open, a link's or Basic) and spends the
    /// calls' budget, whatever the plugin and operation are named.
    @Test func anOperationPathNeedsATokenAndSpendsTheCallsBudget() throws {
        let data = FileManager.default.temporaryDirectory.path + "/edge-layers-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: data) }
        let limits = HTTPConfiguration.RateLimits(calls: .init(perSecond: 1, burst: 1), admin: .init(perSecond: 1, burst: 1))
        let layers = APIRouter.layers(tokens: TokenStore(dataDirectory: data), configuration: HTTPConfiguration(port: 0, rateLimits: limits),
                                      metrics: HTTPMetrics(), hub: nil)
        for (plugin, operation) in [("dev.tessera.example", "echo"), ("p", "swap"), ("p", "restart"), ("links", "location"),
                                    ("hub", "healthz"), ("console", "ui"), ("tokens", "advance"), ("p", "metrics")] {
            let path = "/v1/plugins/\(plugin)/ops/\(operation)"
            #expect(EdgeResponder.operationPath(path) != nil, "\(path)")
            #expect(!layers.auth.opens(path), "\(path)")
            #expect(RateLimitBudget.of(.post, path: path) == .calls, "\(path)")
        }
        // The paths that are open, a link's or Basic are seen as such (the check can fail).
        for path in ["/healthz", "/console/app.js", "/v1/links/abc/ops/x", "/v1/location"] { #expect(layers.auth.opens(path), "\(path)") }
        #expect(RateLimitBudget.of(.post, path: "/v1/plugins/p/swap") == .admin)
    }

    @Test func jsonMediaTypesAreReadInAnyCaseWithParameters() {
        for type in ["application/json", "APPLICATION/JSON", " application/json ; charset=utf-8", "application/merge-patch+json",
                     "Application/Problem+JSON", "application/+json"] {
            #expect(JSONRequestBody.isJSON(type), "\(type)")
        }
        for type in ["", "text/plain", "application/jsonx", "application/json5", "text/json", "application/x-json-seq",
                     "application/", "application+json", "json"] {
            #expect(!JSONRequestBody.isJSON(type), "\(type)")
        }
    }

    @Test func aHeaderIsReadAsTheSubscriptReadsIt() {
        var headers: HTTPFields = [.contentType: "application/json", .authorization: "Bearer a"]
        #expect(headers.value(of: .contentType) == "application/json")
        #expect(headers.value(of: .authorization) == "Bearer a")
        #expect(headers.value(of: .contentLength) == nil)
        // Names compare without case; a field given twice reads as the subscript joins it.
        headers.append(HTTPField(name: HTTPField.Name("AUTHORIZATION")!, value: "Bearer b"))
        #expect(headers.value(of: .authorization) == "Bearer a, Bearer b")
        #expect(headers.value(of: .authorization) == headers[.authorization])
        headers.append(HTTPField(name: .cookie, value: "a=1"))
        headers.append(HTTPField(name: .cookie, value: "b=2"))
        #expect(headers.value(of: .cookie) == headers[.cookie])
    }

    @Test func aCallThroughTheShortcutNamesItsPluginAndOperationInTheContext() async throws {
        try await TestServer.start().use { server in
            // An operation the plugin does not declare: the answer names it, so the route read
            // the operation the shortcut found (and the router finds the same).
            let direct = try await server.request("POST", "/v1/plugins/test.probe/ops/no-such-op", json: "{}")
            let routed = try await server.request("POST", "/v1/plugins/test.probe/ops/no-such-op/", json: "{}")
            #expect(direct.status == 404 && routed.status == 404)
            #expect(direct.text.contains("no-such-op"))
            #expect(direct.json == routed.json)
        }
    }
}
