import Foundation
import HTTPTypes
import Testing
import TesseraSDK
@testable import TesseraHTTP

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
