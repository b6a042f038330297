import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TesseraSDK
@testable import TesseraHTTP
@testable import TesseraRuntime

/// More of what the edge does with a request, at the router level against ``InMemoryHost`` (no
/// socket, no plugin): the admin's reload, the plugin list, a call the host refuses, and a path
/// asked with a method it does not take.
@Suite struct RouterLevelAdminTests {
    typealias Edge = RouterLevelTests.Edge

    static func withEdge(_ operations: [String: InMemoryHost.Operation] = [:],
                         _ body: (InMemoryHost, Edge) async throws -> Void) async throws {
        let host = try RouterLevelTests.host(operations)
        defer { try? FileManager.default.removeItem(atPath: host.options.dataDirectory) }
        try await body(host, try RouterLevelTests.edge(host))
    }

    @Test func theAdminsReloadAnswersTheHostsReportOrItsRefusalAsItIs() async throws {
        try await Self.withEdge { host, edge in
            var report = ReloadReport()
            report.started = ["cz.tessera.finance"]
            report.notServing = ["cz.tessera.stag": "rejected: library not found"]
            host.reloadOutcome.withLock { $0 = .success(report) }
            try await edge.app.test(.router) { client in
                let reload = RouterLevelTests.post("/v1/deployment/reload", "{}", token: edge.admin)
                try await client.execute(uri: reload.uri, method: .post, headers: reload.headers, body: reload.body) { response in
                    let body = try RouterLevelTests.json(response)
                    #expect(response.status == .ok)
                    #expect(body["started"] == ["cz.tessera.finance"])
                    #expect(body["notServing"]?["cz.tessera.stag"] == "rejected: library not found")
                    #expect(body["deployment"]?.stringValue == host.deployment.file)
                }
                host.reloadOutcome.withLock { $0 = .failure(PluginError(.conflict, "a reload is already under way; try again when it has finished")) }
                try await client.execute(uri: reload.uri, method: .post, headers: reload.headers, body: reload.body) { response in
                    let body = try RouterLevelTests.json(response)
                    #expect(response.status == .conflict)
                    #expect(body["error"]?["message"] == "a reload is already under way; try again when it has finished")
                }
            }
        }
    }

    @Test func thePluginListIsTheHostsStatusesWithTheRestartAdvice() async throws {
        try await Self.withEdge { _, edge in
            try await edge.app.test(.router) { client in
                for token in [edge.user, edge.admin] {
                    try await client.execute(uri: "/v1/plugins", method: .get, headers: [.authorization: "Bearer \(token)"]) { response in
                        let body = try RouterLevelTests.json(response)
                        #expect(response.status == .ok)
                        #expect(body == ["plugins": [], "restartRecommended": false])
                    }
                }
            }
        }
    }

    @Test func aCallToAPluginTheHostDoesNotHaveIs404WithTheHostsSentence() async throws {
        try await Self.withEdge(["echo": { input, _ in input }]) { host, edge in
            try await edge.app.test(.router) { client in
                let request = RouterLevelTests.post("/v1/plugins/test.elsewhere/ops/echo", "{}", token: edge.user)
                try await client.execute(uri: request.uri, method: .post, headers: request.headers, body: request.body) { response in
                    let body = try RouterLevelTests.json(response)
                    #expect(response.status == .notFound)
                    #expect(body == ["error": ["code": "not_found", "message": "no plugin 'test.elsewhere' in this host"]])
                }
            }
            #expect(host.calls.map(\.plugin) == ["test.elsewhere"], "the host, not the edge, knows which plugins it has")
        }
    }

    @Test func aPathAskedWithAMethodItDoesNotTakeIs405NamingTheOnesItTakes() async throws {
        try await Self.withEdge { host, edge in
            try await edge.app.test(.router) { client in
                try await client.execute(uri: "/v1/deployment/reload", method: .get, headers: [.authorization: "Bearer \(edge.admin)"]) { response in
                    #expect(response.status == .methodNotAllowed)
                    #expect(response.headers[.allow]?.contains("POST") == true, "\(response.headers)")
                }
            }
            #expect(host.calls.isEmpty)
        }
    }
}
