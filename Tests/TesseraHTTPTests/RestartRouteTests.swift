import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures
@testable import TesseraHTTP

/// `POST /v1/plugins/{id}/restart`: admin only, on the admin budget, in the OpenAPI document; a
/// plugin in the host's process is refused (409). (A quarantined process-tier plugin restarted
/// over it: PluginsRestartTests, against `tessera serve`.)
@Suite struct RestartRouteTests {
    @Test func onlyAnAdminMayRestartAndOnlyAProcessTierPlugin() async throws {
        let server = try await TestServer.start()
        let path = "/v1/plugins/\(ProbePlugin.id)/restart"
        #expect(try await server.request("POST", path, as: .user).status == 403)
        #expect(try await server.request("POST", path, as: .none).status == 401)
        let inProcess = try await server.request("POST", path)
        #expect(inProcess.status == 409)
        #expect(try JSONValue(parsing: inProcess.body)["error"]?["message"]?.stringValue?.contains("process tier") == true)
        #expect(try await server.request("POST", "/v1/plugins/nope/restart").status == 404)
        await server.stop()
    }

    @Test func theRouteSpendsTheAdminBudgetAndIsDocumented() throws {
        #expect(RateLimitBudget.of(.post, path: "/v1/plugins/fixture.isolated/restart") == .admin)
        #expect(RateLimitBudget.of(.post, path: "/v1/plugins/x/ops/restart") == .calls)  // an operation named restart
        let hostPaths = OpenAPIComponents.hostPaths
        let operation = try #require(hostPaths["/v1/plugins/{id}/restart"]?["post"])
        #expect(operation["operationId"] == "restartPlugin")
        #expect(operation["responses"]?["409"] != nil)
        #expect(operation["responses"]?["200"]?["content"]?["application/json"]?["schema"]?["$ref"] == "#/components/schemas/RestartResult")
        #expect(OpenAPIComponents.edgeSchemas["RestartResult"] != nil)
    }
}
