import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// `POST /v1/location`: what an OwnTracks app in HTTP mode sends, and the `[]` it expects back.
@Suite struct LocationRouteTests {
    static let fix = #"{"_type": "location", "lat": 50.08, "lon": 14.42, "tst": 1772438400, "acc": 10}"#

    func post(_ server: TestServer, _ body: String, headers: [(String, String)] = [], as who: TestServer.As = .user) async throws -> RawResponse {
        try await server.request("POST", "/v1/location", as: who, headers: headers, json: body)
    }

    @Test func oneMessageOrAnArrayIsAcceptedWithAnEmptyArrayAnswer() async throws {
        try await TestServer.start().use { server in
            let one = try await post(server, Self.fix, headers: [("X-Limit-U", "jane"), ("X-Limit-D", "phone")])
            #expect(one.status == 200)
            #expect(one.headers["content-type"] == "application/json")
            #expect(one.text == "[]")
            #expect(one.headers["tessera-location"] == "accepted=1 rejected=0 skipped=0")
            #expect(await server.host.latestFix(deviceID: "jane/phone")?.latitude == 50.08)

            let batch = """
                [{"_type": "location", "lat": 50.09, "lon": 14.43, "tst": 1772438390, "topic": "owntracks/jane/tablet"},
                 {"_type": "transition", "event": "enter"}, {"_type": "location", "lat": "north", "lon": 1, "tst": 1}, 7]
                """
            let answer = try await post(server, batch)
            #expect(answer.text == "[]")
            #expect(answer.headers["tessera-location"] == "accepted=1 rejected=2 skipped=1")
            #expect(await server.host.latestFix(deviceID: "jane/tablet") != nil)
        }
    }

    @Test func badBodiesAreCountedNeverA500() async throws {
        try await TestServer.start().use { server in
            for body in ["not json", "42", #"{"lat": 1}"#, #"{"_type": "location"}"#, #"{"_type": "location", "lat": 1, "lon": 2, "tst": 3}"#] {
                let response = try await post(server, body)
                #expect(response.status == 200, "\(body)")
                #expect(response.text == "[]", "\(body)")
            }
            // The last one has no device (no topic, headers or tid): malformed too.
            #expect(server.host.locationCounters["malformed"] == 5)
            // Out of range is the validator's: rejected, not malformed.
            let far = try await post(server, #"{"_type": "location", "lat": 91, "lon": 0, "tst": 1772438400, "tid": "jp"}"#)
            #expect(far.headers["tessera-location"] == "accepted=0 rejected=1 skipped=0")
        }
    }

    @Test func anEmptyBodyIsIgnoredAndTheRecorderQueryNamesTheDevice() async throws {
        try await TestServer.start().use { server in
            let empty = try await server.request("POST", "/v1/location", as: .user, body: [])
            #expect(empty.status == 200)
            #expect(empty.text == "[]")
            #expect(empty.headers["tessera-location"] == "accepted=0 rejected=0 skipped=0")
            let query = try await server.request("POST", "/v1/location?u=ann&d=watch", as: .user, json: Self.fix)
            #expect(query.headers["tessera-location"] == "accepted=1 rejected=0 skipped=0")
            #expect(await server.host.latestFix(deviceID: "ann/watch") != nil)
        }
    }

    @Test func theTokenMayBeTheBasicPasswordHereOnly() async throws {
        try await TestServer.start().use { server async throws in  // `throws` spelled out: its only `try`s sit inside #expect, which closure inference does not see
            let basic = "Basic " + Data("jane:\(server.userToken)".utf8).base64EncodedString()
            let wrong = "Basic " + Data("jane:nope".utf8).base64EncodedString()
            #expect(try await post(server, Self.fix, headers: [("X-Limit-U", "j"), ("X-Limit-D", "p"), ("Authorization", basic)], as: .none).status == 200)
            #expect(try await post(server, Self.fix, headers: [("Authorization", wrong)], as: .none).status == 401)
            #expect(try await post(server, Self.fix, as: .none).status == 401)
            #expect(try await server.request("GET", "/v1/plugins", as: .none, headers: [("Authorization", basic)]).status == 401)
        }
    }

    /// OwnTracks' HTTP mode (like any client that answers a server's challenge) needs a Basic
    /// challenge to send its user name and password, and to tell the person their password is
    /// wrong; other routes challenge for Bearer only.
    @Test func aWrongOrMissingCredentialHereIsChallengedForBasic() async throws {
        try await TestServer.start().use { server in
            let wrong = "Basic " + Data("jane:nope".utf8).base64EncodedString()
            for headers in [[("Authorization", wrong)], [], [("Authorization", "Bearer tsr_unknown")]] {
                let refused = try await post(server, Self.fix, headers: headers, as: .none)
                #expect(refused.status == 401)
                #expect(refused.errorCode == "unauthorized")
                let challenges = try #require(refused.headers["www-authenticate"])
                #expect(challenges.hasPrefix(#"Basic realm="tessera""#), "\(challenges)")
                #expect(challenges.contains(#"Bearer realm="tessera""#))
            }
            let elsewhere = try await server.request("GET", "/v1/plugins", as: .none, headers: [("Authorization", wrong)])
            #expect(elsewhere.headers["www-authenticate"] == #"Bearer realm="tessera""#)
        }
    }

    /// On a virtual clock, "in the future" is ahead of that clock, not of the wall clock: a fix
    /// stamped now by a real phone is ahead of a host whose clock says 2 March 2026 08:00, and a fix
    /// an hour after that waits for the clock to get there.
    @Test func aVirtualClockHostJudgesFixesByItsOwnClock() async throws {
        try await TestServer.start(clock: "virtual").use { server in  // starts at 2026-03-02T08:00:00Z
            let virtualNow = 1_772_438_400
            func fix(_ tst: Int) -> String { #"{"_type": "location", "lat": 50.08, "lon": 14.42, "tst": \#(tst), "tid": "jp"}"# }
            let wallClock = Int(Date().timeIntervalSince1970)
            #expect(wallClock > virtualNow + 3600)
            let real = try await post(server, fix(wallClock))
            #expect(real.headers["tessera-location"] == "accepted=0 rejected=1 skipped=0")
            #expect(real.headers["tessera-location-rejected"] == "inTheFuture=1")
            // Within the margin (10 minutes) ahead of the virtual clock: accepted.
            #expect(try await post(server, fix(virtualNow + 540)).headers["tessera-location"] == "accepted=1 rejected=0 skipped=0")
            let hourLater = try await post(server, fix(virtualNow + 3600))
            #expect(hourLater.headers["tessera-location-rejected"] == "inTheFuture=1")
            #expect(try await server.request("POST", "/v1/clock/advance", json: #"{"by": "1h"}"#).status == 200)
            #expect(try await post(server, fix(virtualNow + 3600)).headers["tessera-location"] == "accepted=1 rejected=0 skipped=0")
        }
    }

    @Test func mediaTypeAndSizeAreCheckedAsForOperations() async throws {
        try await TestServer.start(maxBodyBytes: 256).use { server in
            let text = try await server.request("POST", "/v1/location", as: .user, headers: [("Content-Type", "text/plain")], body: Array(Self.fix.utf8))
            #expect(text.status == 415)
            let large = try await post(server, "[" + Array(repeating: Self.fix, count: 10).joined(separator: ",") + "]")
            #expect(large.status == 413)
            #expect(try await server.request("GET", "/v1/location").status == 405)
        }
    }
}
