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

    /// One `tessera` process, waited for on a thread of its own (never on one of the two
    /// cooperative threads, which the other suites' in-process servers need meanwhile).
    func tessera(_ arguments: String...) async throws -> ProcessResult {
        let arguments = arguments + ["--deployment", ws.deploymentFile, "--data", ws.dataDirectory]
        return try await onOwnThread { try run(Fixtures.tesseraExecutable, arguments) }
    }

    func call(_ op: String, _ input: String = "{}") async throws -> JSONValue {
        let result = try await tessera("call", "cz.tessera.safetravel", op, input, "--json")
        #expect(result.status == 0, "\(op): \(result.stderr)")
        return try JSONValue(parsing: result.stdout)
    }

    @Test func aTripWalkedOffRouteAndGoneSilentAlertsThroughTheRealProcesses() async throws {
        #expect(try await call("account-setup", #"{"username": "ada", "pin": "4826"}"#)["username"] == "ada")
        let trip = try await call("trip-start", """
            {"destination": {"name": "Home", "lat": 50.088, "lon": 14.42}, "expectedArrivalAt": "2026-03-02T08:30:00Z",
             "route": [{"lat": 50.07, "lon": 14.42}, {"lat": 50.088, "lon": 14.42}], "plan": ["WALKING", "TRAM"]}
            """)
        let id = try #require(trip["id"]?.stringValue)
        // F7.4 and F7.1: the double tap takes the plan's next action; the destination becomes a favourite.
        #expect(try await call("trip-next-planned")["nextPlanIndex"] == 1)
        let destination = try #require(trip["destination_id"]?.stringValue)
        _ = try await call("destination-favourite", #"{"destinationId": "\#(destination)"}"#)
        #expect(try await call("destinations")["destinations"]?.arrayValue?.first?["is_favourite"] == 1)
        let gpx = Fixtures.repositoryRoot + "/Tests/TesseraSafeTravelTests/Fixtures/walk-off-route.gpx"
        let replayed = try await tessera("location", "replay", gpx, "--device", "ada/phone")
        #expect(replayed.status == 0 && replayed.stdout.contains("accepted 91 fixes"), "\(replayed.stdout)\(replayed.stderr)")
        #expect(try await call("trip-status")["off_route_since"] == "2026-03-02T08:10:10.000Z")
        #expect(try await tessera("clock", "advance", "30m").status == 0)            // 08:45

        let alerts = try await call("alerts")["alerts"]?.arrayValue ?? []
        #expect(alerts.map { "\($0["kind"]!.stringValue!) @ \($0["due_at"]!.stringValue!)" } == [
            "trip-off-route @ 2026-03-02T08:13:10.000Z", "trip-silent @ 2026-03-02T08:20:00.000Z", "trip-overdue @ 2026-03-02T08:40:00.000Z"])
        let listed = try await tessera("notifications", "list", "--json")
        let keys = try JSONValue(parsing: listed.stdout)["notifications"]?.arrayValue?.compactMap { $0["key"]?.stringValue } ?? []
        #expect(keys.contains("alert-trip-\(id)-overdue-\(1_772_440_200_000)"))
        #expect(Set(keys).count == keys.count, "each notification once")

        // A wrong PIN is one line on stderr naming the field; the right one ends the trip.
        let wrong = try await tessera("call", "cz.tessera.safetravel", "trip-end", #"{"pin": "0000"}"#)
        #expect(wrong.status == 2 && wrong.stderr.contains("$.pin") && wrong.stderr.contains("invalid_pin"))
        #expect(!wrong.stderr.contains("4826"))
        #expect(try await call("trip-end", #"{"pin": "4826"}"#)["state"] == "ENDED")
        #expect(try await tessera("clock", "advance", "2h").status == 0)
        #expect(try await call("alerts")["alerts"]?.arrayValue?.count == 3)
    }

    /// F6 and F4 across processes: the button held in one process, the hold reached in the next,
    /// released, the deadline fired by a third — the alert carries the SOS's own live-view link (no
    /// trip runs) — then the PIN reports safe; five wrong PINs lock the PIN for a minute of the
    /// virtual clock, each refusal its own process.
    @Test func anUnansweredSOSAlertsWithItsLinkAndWrongPINsLockThroughTheRealProcesses() async throws {
        _ = try await call("account-setup", #"{"username": "ada", "pin": "4826"}"#)
        _ = try await call("position-report", #"{"lat": 50.08, "lon": 14.42, "accuracy": 8, "battery": 35}"#)
        #expect(try await call("sos-touch-down")["state"] == "ARMING")
        #expect(try await tessera("clock", "advance", "3s").status == 0)                  // held: the SOS exists
        let released = try await call("sos-touch-up")
        let sos = try #require(released["sosId"]?.stringValue)
        #expect(released["deadlineAt"] == "2026-03-02T08:00:18.000Z")
        #expect(try await tessera("clock", "advance", "14s").status == 0)
        #expect(try await call("alerts")["alerts"]?.arrayValue?.isEmpty == true, "one second before the deadline")
        #expect(try await tessera("clock", "advance", "1s").status == 0)
        let alert = try #require(try await call("alerts")["alerts"]?.arrayValue?.first)
        #expect(alert["id"]?.stringValue == "sos-\(sos)" && alert["due_at"] == "2026-03-02T08:00:18.000Z")
        #expect(alert["livePath"]?.stringValue?.hasPrefix("/ui/cz.tessera.safetravel/live.html#") == true)
        let listed = try JSONValue(parsing: try await tessera("notifications", "list", "--json").stdout)
        let told = try #require(listed["notifications"]?.arrayValue?.first { $0["key"]?.stringValue == "alert-sos-\(sos)" })
        #expect(told["payload"]?["liveView"]?["sosId"]?.stringValue == sos, "\(told)")

        for left in [4, 3, 2, 1] {
            let wrong = try await tessera("call", "cz.tessera.safetravel", "sos-enter-pin", #"{"pin": "0000"}"#)
            #expect(wrong.status == 2 && wrong.stderr.contains("(\(left) attempts left)"), "\(wrong.stderr)")
        }
        let fifth = try await tessera("call", "cz.tessera.safetravel", "sos-enter-pin", #"{"pin": "0000"}"#)
        #expect(fifth.status != 0 && !fifth.stderr.contains("0000"))
        let locked = try await tessera("call", "cz.tessera.safetravel", "sos-enter-pin", #"{"pin": "4826"}"#)
        #expect(locked.status != 0 && locked.stderr.contains("pin_locked"), "even the right PIN meanwhile: \(locked.stderr)")
        #expect(try await tessera("clock", "advance", "1m").status == 0)
        let safe = try await call("sos-enter-pin", #"{"pin": "4826"}"#)
        #expect(safe["state"] == "ALERTED" && safe["reportedSafeAt"] != nil)
    }

    /// F5.2 across processes: slots every 15 minutes, one confirmed, one missed (the guardians'
    /// alert at slot + 10 min), then confirmed late.
    @Test func aPeriodicCheckinMissedAlertsAndIsConfirmedLateThroughTheRealProcesses() async throws {
        _ = try await call("account-setup", #"{"username": "ada", "pin": "4826"}"#)
        let bad = try await tessera("call", "cz.tessera.safetravel", "checkin-request-periodic",
                              #"{"target": "ada", "startsAt": "2026-03-02T08:15:00Z", "endsAt": "2026-03-02T08:45:00Z", "periodMinutes": 7}"#)
        #expect(bad.status == 2 && bad.stderr.contains("$.periodMinutes"))
        let request = try await call("checkin-request-periodic",
                               #"{"target": "ada", "startsAt": "2026-03-02T08:15:00Z", "endsAt": "2026-03-02T08:45:00Z", "periodMinutes": 15}"#)
        let id = try #require(request["id"]?.stringValue)
        #expect(try await tessera("clock", "advance", "16m").status == 0)                    // 08:16
        #expect(try await call("checkins")["badge"] == 1)
        #expect(try await call("checkin-confirm", #"{"checkinId": "\#(id):0", "lat": 50.08, "lon": 14.42}"#)["state"] == "CONFIRMED")
        #expect(try await tessera("clock", "advance", "23m59s").status == 0)                 // 08:39:59
        #expect(try await call("alerts")["alerts"]?.arrayValue?.isEmpty == true)
        #expect(try await tessera("clock", "advance", "1s").status == 0)                     // 08:40: the 08:30 slot missed
        #expect(try await call("alerts")["alerts"]?.arrayValue?.map { $0["id"] } == [.string("checkin-\(id):1-missed")])
        #expect(try await call("checkin-confirm", #"{"checkinId": "\#(id):1"}"#)["state"] == "CONFIRMED_LATE")

        // F5.1: a one-time check-in is sent at once and confirmed in the next process.
        let once = try await call("checkin-request", #"{"target": "ada"}"#)
        #expect(once["type"] == "ONE_TIME")
        let slot = try #require(once["checkins"]?.arrayValue?.first?["id"]?.stringValue)
        #expect(try await call("checkin-confirm", #"{"checkinId": "\#(slot)"}"#)["state"] == "CONFIRMED")
    }
}
