import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// `POST /v1/plugins/{id}/swap`: admin only, a clear error for a bad body, a refused build or a
/// plugin that forbids swapping — over real HTTP. (The swap itself is tested in HotSwapTests.)
@Suite struct SwapRouteTests {
    @Test func onlyAnAdminMaySwapAndEveryRefusalSaysWhy() async throws {
        try await TestServer.start().use { server in
            let path = "/v1/plugins/\(ProbePlugin.id)/swap"
            Fixtures.write("not a plugin", to: server.root + "/broken.so")

            let user = try await server.request("POST", path, as: .user, json: #"{"library": "\#(server.root)/broken.so"}"#)
            #expect(user.status == 403)
            let anonymous = try await server.request("POST", path, as: .none, json: "{}")
            #expect(anonymous.status == 401)
            let badBody = try await server.request("POST", path, json: #"{"library": "relative.so"}"#)
            #expect(badBody.status == 400)
            #expect(try JSONValue(parsing: badBody.body)["error"]?["field"] == "$.library")
            // The probe's manifest does not say hotSwap: true.
            let forbidden = try await server.request("POST", path, json: #"{"library": "\#(server.root)/broken.so"}"#)
            #expect(forbidden.status == 403)
            #expect(try JSONValue(parsing: forbidden.body)["error"]?["message"]?.stringValue?.contains("hotSwap") == true)
            let unknown = try await server.request("POST", "/v1/plugins/nope/swap", json: #"{"library": "/x.so"}"#)
            #expect(unknown.status == 404)
            #expect(server.host.status(of: ProbePlugin.id)?.generation == 1)
        }
    }
}
