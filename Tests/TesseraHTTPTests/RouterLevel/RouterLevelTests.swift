import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TesseraSDK
@testable import TesseraHTTP

/// The edge's router and middlewares, tested without a socket (Hummingbird's `.router` test mode)
/// against ``InMemoryHost``: what the edge does with a request — the token, the route, the error's
/// shape — apart from what a real host does. The live-socket tests (``TestServer``) stay for what
/// needs a connection: streams, keep-alive, body limits on the wire, the real host.
@Suite struct RouterLevelTests {
    /// The router over `host`, and a user token and an admin token for it.
    struct Edge {
        let app: Application<EdgeResponder>
        let user: String
        let admin: String
    }

    static func edge(_ host: InMemoryHost) throws -> Edge {
        let tokens = TokenStore(dataDirectory: host.options.dataDirectory)
        let admin = try #require(try tokens.ensureAdminToken())
        let user = try tokens.create(name: "ada", role: .user)
        let responder = APIRouter.make(host: host, tokens: tokens, configuration: HTTPConfiguration(port: 0), metrics: HTTPMetrics(),
                                       readiness: Readiness(), streams: StreamHub())
        return Edge(app: Application(responder: responder), user: user, admin: admin)
    }

    static func host(_ operations: [String: InMemoryHost.Operation]) throws -> InMemoryHost {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-router-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return try InMemoryHost(dataDirectory: directory, operations: operations)
    }

    static func post(_ path: String, _ json: String, token: String?) -> (uri: String, headers: HTTPFields, body: ByteBuffer) {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return (path, headers, ByteBuffer(string: json))
    }

    static func json(_ response: TestResponse) throws -> JSONValue {
        try JSONValue(parsing: Array(response.body.readableBytesView))
    }

    @Test func aCallReachesTheHostAsTheTokensPrincipalAndItsAnswerIsTheBody() async throws {
        let host = try Self.host(["echo": { input, _ in input }])
        defer { try? FileManager.default.removeItem(atPath: host.options.dataDirectory) }
        let edge = try Self.edge(host)
        try await edge.app.test(.router) { client in
            let request = Self.post("/v1/plugins/\(InMemoryHost.pluginID)/ops/echo", #"{"text": "ahoj"}"#, token: edge.user)
            try await client.execute(uri: request.uri, method: .post, headers: request.headers, body: request.body) { response in
                let body = try Self.json(response)
                #expect(response.status == .ok)
                #expect(body == ["text": "ahoj"])
            }
        }
        #expect(host.calls == [InMemoryHost.Call(plugin: InMemoryHost.pluginID, operation: "echo", role: .user)])
    }

    @Test func aRefusalAnswersItsKindAsTheStatusAndTheModulesReasonBesideTheMessage() async throws {
        let host = try Self.host(["week-start": { _, _ throws(PluginError) in
            throw PluginError(.conflict, "week 2 opens on 9 March", reason: "waiting_until")
        }])
        defer { try? FileManager.default.removeItem(atPath: host.options.dataDirectory) }
        let edge = try Self.edge(host)
        try await edge.app.test(.router) { client in
            let request = Self.post("/v1/plugins/\(InMemoryHost.pluginID)/ops/week-start", "{}", token: edge.user)
            try await client.execute(uri: request.uri, method: .post, headers: request.headers, body: request.body) { response in
                let body = try Self.json(response)
                #expect(response.status == .conflict)
                #expect(body == ["error": ["code": "conflict", "message": "week 2 opens on 9 March", "reason": "waiting_until"]])
            }
        }
    }

    @Test func aCallWithoutATokenIsRefusedBeforeTheHostIsAsked() async throws {
        let host = try Self.host(["echo": { input, _ in input }])
        defer { try? FileManager.default.removeItem(atPath: host.options.dataDirectory) }
        let edge = try Self.edge(host)
        try await edge.app.test(.router) { client in
            let request = Self.post("/v1/plugins/\(InMemoryHost.pluginID)/ops/echo", "{}", token: nil)
            try await client.execute(uri: request.uri, method: .post, headers: request.headers, body: request.body) { response in
                let body = try Self.json(response)
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
                #expect(body["error"]?["code"] == "unauthorized")
            }
        }
        #expect(host.calls.isEmpty)
    }

    @Test func anInternalFailureNeverShowsThePluginsMessage() async throws {
        let host = try Self.host(["leak": { _, _ throws(PluginError) in
            throw PluginError(.internal, "SELECT * FROM secrets failed in /var/lib/tessera/data/plugin.sqlite")
        }])
        defer { try? FileManager.default.removeItem(atPath: host.options.dataDirectory) }
        let edge = try Self.edge(host)
        try await edge.app.test(.router) { client in
            let request = Self.post("/v1/plugins/\(InMemoryHost.pluginID)/ops/leak", "{}", token: edge.user)
            try await client.execute(uri: request.uri, method: .post, headers: request.headers, body: request.body) { response in
                #expect(response.status == .internalServerError)
                let body = String(buffer: response.body)
                #expect(!body.contains("secrets") && !body.contains("/var/lib"), "\(body)")
            }
        }
    }

    @Test func malformedJSONIsRefusedNamingTheBodyAndNeverReachesThePlugin() async throws {
        let host = try Self.host(["echo": { input, _ in input }])
        defer { try? FileManager.default.removeItem(atPath: host.options.dataDirectory) }
        let edge = try Self.edge(host)
        try await edge.app.test(.router) { client in
            let request = Self.post("/v1/plugins/\(InMemoryHost.pluginID)/ops/echo", #"{"text": "#, token: edge.user)
            try await client.execute(uri: request.uri, method: .post, headers: request.headers, body: request.body) { response in
                #expect(response.status == .badRequest)
                let error = try Self.json(response)["error"]
                #expect(error?["code"] == "invalid_input" && error?["field"] == "$", "\(String(describing: error))")
            }
        }
    }

    @Test func theAdminRoutesRefuseAUserTokenAndAnUnknownRouteIs404() async throws {
        let host = try Self.host([:])
        defer { try? FileManager.default.removeItem(atPath: host.options.dataDirectory) }
        let edge = try Self.edge(host)
        try await edge.app.test(.router) { client in
            let reload = Self.post("/v1/deployment/reload", "{}", token: edge.user)
            try await client.execute(uri: reload.uri, method: .post, headers: reload.headers, body: reload.body) { response in
                #expect(response.status == .forbidden)
            }
            try await client.execute(uri: "/v1/no-such-route", method: .get, headers: [.authorization: "Bearer \(edge.admin)"]) { response in
                let body = try Self.json(response)
                #expect(response.status == .notFound)
                #expect(body["error"]?["code"] == "not_found")
            }
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
    }
}
