import Foundation
import Testing
import TesseraSDK

/// `GET /v1/notifications` and `POST /v1/notifications/read`, and the clock routes that deliver
/// what falls due, over real HTTP.
@Suite struct InboxRouteTests {
    func deliver(_ server: TestServer, _ titles: [String]) async throws {
        for title in titles { #expect(try await server.call("notify", #"{"title": "\#(title)"}"#).status == 200) }
        #expect(try await server.request("POST", "/v1/clock/advance", json: #"{"by": "1s"}"#).status == 200)
    }

    @Test func theInboxListsNewestFirstOrAfterAnIdOldestFirst() async throws {
        try await TestServer.start().use { server in
            try await deliver(server, ["a", "b", "c"])
            let page = try await server.request("GET", "/v1/notifications", as: .user)
            #expect(page.status == 200)
            let titles = page.json?["notifications"]?.arrayValue?.compactMap { $0["title"]?.stringValue }
            #expect(titles == ["c", "b", "a"])
            #expect(page.json?["counters"]?["delivered"] == 3)
            let after = try await server.request("GET", "/v1/notifications?after=1&limit=1")
            #expect(after.json?["notifications"]?.arrayValue?.map { $0["title"] } == ["b"])
        }
    }

    @Test func markingReadByIdsOrAllAndTheUnreadFilter() async throws {
        try await TestServer.start().use { server in
            try await deliver(server, ["a", "b", "c"])
            let marked = try await server.request("POST", "/v1/notifications/read", as: .user, json: #"{"ids": [1, 99]}"#)
            #expect(marked.status == 200)
            #expect(marked.json == ["marked": 1])
            let unread = try await server.request("GET", "/v1/notifications?unread=true")
            #expect(unread.json?["notifications"]?.arrayValue?.count == 2)
            let all = try await server.request("POST", "/v1/notifications/read", json: #"{"all": true}"#)
            #expect(all.json == ["marked": 2])
            let none = try await server.request("GET", "/v1/notifications?unread=true")
            #expect(none.json?["notifications"] == [])
            let read = try await server.request("GET", "/v1/notifications?limit=1")
            #expect(read.json?["notifications"]?.arrayValue?.first?["readAt"] == "2026-03-02T08:00:01Z")
        }
    }

    @Test func badQueriesAndBodiesAre400NamingTheField() async throws {
        try await TestServer.start().use { server in
            for (query, field) in [("unread=yes", "unread"), ("limit=0", "limit"), ("limit=501", "limit"), ("after=-1", "after"), ("after=x", "after")] {
                let response = try await server.request("GET", "/v1/notifications?\(query)")
                #expect(response.status == 400, "\(query)")
                #expect(response.json?["error"]?["field"] == .string(field), "\(query)")
            }
            for (body, field) in [(#"{}"#, "$"), (#"{"ids": [1], "all": true}"#, "$"), (#"{"ids": ["x"]}"#, "$.ids[0]"),
                                  (#"{"all": false}"#, "$.all"), (#"{"ids": []}"#, "$.ids"), (#"{"ids": [1], "other": 1}"#, "$.other"), ("[", "$")] {
                let response = try await server.request("POST", "/v1/notifications/read", json: body)
                #expect(response.status == 400, "\(body)")
                #expect(response.json?["error"]?["field"] == .string(field), "\(body): \(response.text)")
            }
            #expect(try await server.request("POST", "/v1/notifications/read", headers: [("Content-Type", "text/plain")], body: Array("x".utf8)).status == 415)
            #expect(try await server.request("GET", "/v1/notifications", as: .none).status == 401)
            #expect(try await server.request("DELETE", "/v1/notifications").status == 405)
        }
    }

    @Test func theClockRoutesShowAndAdvanceAVirtualClockForAdminsOnly() async throws {
        try await TestServer.start().use { server in
            #expect(try await server.request("GET", "/v1/clock", as: .user).json == ["now": "2026-03-02T08:00:00Z", "kind": "virtual"])
            try await server.call("notify", #"{"title": "x"}"#)
            let advanced = try await server.request("POST", "/v1/clock/advance", json: #"{"by": "2h30m"}"#)
            #expect(advanced.status == 200)
            #expect(advanced.json?["now"] == "2026-03-02T10:30:00Z")
            #expect(try await server.request("POST", "/v1/clock/advance", as: .user, json: #"{"by": "1h"}"#).status == 403)
            let bad = try await server.request("POST", "/v1/clock/advance", json: #"{"by": "soon"}"#)
            #expect(bad.status == 400)
            #expect(bad.json?["error"]?["field"] == "$.by")
            let zero = try await server.request("POST", "/v1/clock/advance", json: #"{"by": "0s"}"#)
            #expect(zero.json?["error"]?["field"] == "$.by")
        }

        try await TestServer.start(clock: "system").use { system in
            let refused = try await system.request("POST", "/v1/clock/advance", json: #"{"by": "1h"}"#)
            #expect(refused.status == 409)
            #expect(refused.json?["error"]?["code"] == "conflict")
            #expect(try await system.request("GET", "/v1/clock").json?["kind"] == "system")
        }
    }
}
