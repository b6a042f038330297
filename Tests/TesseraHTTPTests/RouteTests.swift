import Foundation
import Testing
import TesseraSDK

/// Each route's answer when all is well, over real HTTP on loopback.
@Suite struct RouteTests {
    @Test func healthzAnswersWithoutAToken() async throws {
        try await TestServer.start().use { server in
            let health = try await server.request("GET", "/healthz", as: .none)
            #expect(health.status == 200)
            #expect(health.json == ["status": "ok"])
            #expect(health.headers["content-type"] == "application/json")
            let head = try await server.request("HEAD", "/healthz", as: .none)
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
        }
    }

    @Test func readyzIs503UntilTheHostHasStarted() async throws {
        try await TestServer.start(ready: false).use { server in
            let before = try await server.request("GET", "/readyz")
            #expect(before.status == 503)
            #expect(before.errorCode == "unavailable")
            #expect(before.json?["error"]?["message"]?.stringValue?.contains("starting") == true)
            server.server.markReady()
            let after = try await server.request("GET", "/readyz")
            #expect(after.status == 200)
            #expect(after.json == ["status": "ready"])
        }
    }

    @Test func pluginsListsStatesReasonsGenerationsGrantsAndOperations() async throws {
        try await TestServer.start().use { server in
            let listed = try await server.request("GET", "/v1/plugins")
            #expect(listed.status == 200)
            let plugins = try #require(listed.json?["plugins"]?.arrayValue)
            let probe = try #require(plugins.first { $0["id"] == .string(ProbePlugin.id) })
            #expect(probe["state"] == "active")
            #expect(probe["version"] == "1.0.0")
            #expect(probe["generation"] == 1)
            #expect(probe["retiredGenerations"] == 0)
            #expect(probe["grants"] == ["clock": [:], "notifications": [:], "events": [:]])
            #expect(probe["operations"] == ["echo", "fail", "crash", "whoami", "admin-only", "notify", "publish", "hold"])
            #expect(probe["ui"] == ["title": "Probe", "titles": [:], "url": "/ui/test.probe/"])
            #expect(probe["history"]?.arrayValue?.isEmpty == false)  // an admin sees the history
            let broken = try #require(plugins.first { $0["id"] == .string(BrokenPlugin.id) })
            #expect(broken["state"] == "failed")
            #expect(broken["reason"]?.stringValue?.contains("start threw") == true)

            let asUser = try await server.request("GET", "/v1/plugins", as: .user)
            #expect(asUser.status == 200)
            let userProbe = try #require(asUser.json?["plugins"]?.arrayValue?.first { $0["id"] == .string(ProbePlugin.id) })
            #expect(userProbe["state"] == "active")
            #expect(userProbe["history"] == nil)
            #expect(userProbe["manifest"] == nil)
        }
    }

    @Test func anOperationTakesJSONAndAnswersJSON() async throws {
        try await TestServer.start().use { server in
            let echoed = try await server.call("echo", #"{"text": "hello, 世界", "count": 3, "note": null}"#)
            #expect(echoed.status == 200)
            #expect(echoed.headers["content-type"] == "application/json")
            #expect(echoed.json == ["text": "hello, 世界", "count": 3, "note": nil])
            // Media type parameters and +json types are JSON too.
            let withCharset = try await server.request("POST", "/v1/plugins/test.probe/ops/echo", headers: [("Content-Type", "application/json; charset=utf-8")], json: "{}")
            #expect(withCharset.status == 200)
            // A bare POST (no body, no Content-Type) is the empty input {}.
            let bare = try await server.request("POST", "/v1/plugins/test.probe/ops/echo")
            #expect(bare.status == 200)
            #expect(bare.json == .object([:]))
            #expect(server.calls.value == 3)
        }
    }

    @Test func theTokensNameAndRoleAreThePrincipal() async throws {
        try await TestServer.start().use { server in
            let admin = try await server.call("whoami", "{}")
            #expect(admin.json == ["id": "admin", "role": "admin"])
            let user = try await server.call("whoami", "{}", as: .user)
            #expect(user.json == ["id": "ada", "role": "user"])
        }
    }

    @Test func metricsCountCallsErrorsLatencyAndStates() async throws {
        try await TestServer.start().use { server in
            _ = try await server.call("echo", "{}")
            _ = try await server.call("echo", "{}")
            _ = try await server.call("echo", #"{"count": -1}"#)
            _ = try await server.call("fail", #"{"code": "conflict"}"#)
            _ = try await server.request("POST", "/v1/plugins/test.probe/ops/no-such-op", json: "{}")  // not counted: undeclared
            _ = try await server.request("GET", "/v1/plugins", as: .none)  // 401
            let page = try await server.request("GET", "/metrics")
            #expect(page.status == 200)
            #expect(page.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
            let lines = Set(page.text.split(separator: "\n").map(String.init))
            #expect(lines.contains(#"tessera_operation_calls_total{plugin="test.probe",operation="echo"} 3"#))
            #expect(lines.contains(#"tessera_operation_errors_total{plugin="test.probe",operation="echo",code="invalid_input"} 1"#))
            #expect(lines.contains(#"tessera_operation_calls_total{plugin="test.probe",operation="fail"} 1"#))
            #expect(lines.contains(#"tessera_operation_errors_total{plugin="test.probe",operation="fail",code="conflict"} 1"#))
            #expect(lines.contains(#"tessera_operation_duration_seconds_bucket{plugin="test.probe",operation="echo",le="+Inf"} 3"#))
            #expect(lines.contains(#"tessera_operation_duration_seconds_count{plugin="test.probe",operation="echo"} 3"#))
            #expect(lines.contains("# TYPE tessera_operation_duration_seconds histogram"))
            #expect(!page.text.contains("no-such-op"))
            #expect(lines.contains(#"tessera_plugins{state="active"} 1.0"#))
            #expect(lines.contains(#"tessera_plugins{state="failed"} 1.0"#))
            #expect(lines.contains(#"tessera_plugins{state="retired"} 0.0"#))
            #expect(lines.contains(#"tessera_plugin_state{plugin="test.broken",state="failed"} 1.0"#))
            #expect(lines.contains(#"tessera_plugin_generation{plugin="test.probe"} 1.0"#))
            #expect(lines.contains(#"tessera_plugin_retired_generations{plugin="test.probe"} 0.0"#))
            #expect(lines.contains(#"tessera_http_responses_total{status="401"} 1"#))
            #expect(lines.contains(#"tessera_http_responses_total{status="200"} 2"#))
            // Buckets are cumulative: never decreasing, ending at the count.
            let buckets = page.text.split(separator: "\n").filter { $0.hasPrefix(#"tessera_operation_duration_seconds_bucket{plugin="test.probe",operation="echo""#) }
            let counts = buckets.compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }
            #expect(counts.count == 15)
            #expect(counts == counts.sorted())
        }
    }

    /// Issue 46: `/metrics` is read with a token of the admin or the metrics role (the default), or
    /// from loopback without one where the deployment says `http.metrics: loopback`; a metrics
    /// token reads nothing else.
    @Test func metricsAreReadByTheRolesAndPlacesTheDeploymentSays() async throws {
        try await TestServer.start().use { server in
            let prometheus = try server.tokens.create(name: "prometheus", role: .metrics)
            #expect(try await server.request("GET", "/metrics", as: .none).status == 401)
            #expect(try await server.request("GET", "/metrics", as: .user).status == 403)
            #expect(try await server.request("GET", "/metrics", as: .admin).status == 200)
            let scraped = try await server.request("GET", "/metrics", as: .token(prometheus))
            #expect(scraped.status == 200 && scraped.text.contains("process_resident_memory_bytes"))
            for path in ["/v1/plugins", "/v1/notifications", "/openapi.json"] {
                #expect(try await server.request("GET", path, as: .token(prometheus)).status == 403, "\(path)")
            }
            #expect(try await server.request("POST", "/v1/plugins/test.probe/ops/echo", as: .token(prometheus), json: "{}").status == 403)
        }
        try await TestServer.start(deploymentExtra: ["http": ["metrics": "loopback"] as [String: Any]], transport: .socket).use { (server: TestServer) async throws -> Void in
            // The test's client is on loopback: its connection's address is what the edge reads.
            #expect(try await server.request("GET", "/metrics", as: .none).status == 200)
            #expect(try await server.request("GET", "/v1/plugins", as: .none).status == 401)
        }
    }
}
