import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// Safe travel end to end through the real CLI: each step a `tessera` process on one data
/// directory and virtual clock, the module's real library loaded by dlopen, the GPX track replayed
/// by `tessera location replay`, the deadlines fired by `tessera clock advance`.
@Suite struct SafeTravelCLITests {
    let ws: FixtureWorkspace

    init() {
        ws = FixtureWorkspace("safetravel-cli")
        ws.writeDeployment(plugins: [[
            "id": "cz.tessera.safetravel",
            "config": ["requireGuardians": false, "pinIterations": 1000] as [String: Any],
            "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any], "notifications": ["spaces": true],
                       "location": [:] as [String: Any], "sync": [:] as [String: Any]],
        ]], extra: ["manifestDirectories": [Fixtures.repositoryRoot + "/manifests"]])
    }

    func tessera(_ arguments: String...) throws -> ProcessResult {
        try run(Fixtures.tesseraExecutable, arguments + ["--deployment", ws.deploymentFile, "--data", ws.dataDirectory])
    }

    func call(_ op: String, _ input: String = "{}") throws -> JSONValue {
        let result = try tessera("call", "cz.tessera.safetravel", op, input, "--json")
        #expect(result.status == 0, "\(op): \(result.stderr)")
        return try JSONValue(parsing: result.stdout)
    }

    @Test func aTripWalkedOffRouteAndGoneSilentAlertsThroughTheRealProcesses() throws {
        #expect(try call("account-setup", #"{"username": "ada", "pin": "4826"}"#)["username"] == "ada")
        let trip = try call("trip-start", """
            {"destination": {"name": "Home", "lat": 50.088, "lon": 14.42}, "expectedArrivalAt": "2026-03-02T08:30:00Z",
             "route": [{"lat": 50.07, "lon": 14.42}, {"lat": 50.088, "lon": 14.42}], "plan": ["WALKING", "TRAM"]}
            """)
        let id = try #require(trip["id"]?.stringValue)
        let gpx = Fixtures.repositoryRoot + "/Tests/TesseraSafeTravelTests/Fixtures/walk-off-route.gpx"
        let replayed = try tessera("location", "replay", gpx, "--device", "ada/phone")
        #expect(replayed.status == 0 && replayed.stdout.contains("accepted 91 fixes"), "\(replayed.stdout)\(replayed.stderr)")
        #expect(try call("trip-status")["off_route_since"] == "2026-03-02T08:10:10.000Z")
        #expect(try tessera("clock", "advance", "30m").status == 0)            // 08:45

        let alerts = try call("alerts")["alerts"]?.arrayValue ?? []
        #expect(alerts.map { "\($0["kind"]!.stringValue!) @ \($0["due_at"]!.stringValue!)" } == [
            "trip-off-route @ 2026-03-02T08:13:10.000Z", "trip-silent @ 2026-03-02T08:20:00.000Z", "trip-overdue @ 2026-03-02T08:40:00.000Z"])
        let listed = try tessera("notifications", "list", "--json")
        let keys = try JSONValue(parsing: listed.stdout)["notifications"]?.arrayValue?.compactMap { $0["key"]?.stringValue } ?? []
        #expect(keys.contains("alert-trip-\(id)-overdue-\(1_772_440_200_000)"))
        #expect(Set(keys).count == keys.count, "each notification once")

        // A wrong PIN is one line on stderr naming the field; the right one ends the trip.
        let wrong = try tessera("call", "cz.tessera.safetravel", "trip-end", #"{"pin": "0000"}"#)
        #expect(wrong.status == 2 && wrong.stderr.contains("$.pin") && wrong.stderr.contains("INVALID_PIN"))
        #expect(!wrong.stderr.contains("4826"))
        #expect(try call("trip-end", #"{"pin": "4826"}"#)["state"] == "ENDED")
        #expect(try tessera("clock", "advance", "2h").status == 0)
        #expect(try call("alerts")["alerts"]?.arrayValue?.count == 3)
    }
}
