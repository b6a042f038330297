import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// Issue 39's guarantee with real processes: a hub (`tessera serve`, role hub), the safe-travel
/// watcher beside it and ada's phone (each `tessera serve` on its own virtual clock and data
/// directory), ada's tablet and bob, her guardian (`tessera call` and `tessera sync now`, as the
/// CLI devices of SafeTravelGuardianBrowserTests). After her tablet is set up, ada starts a trip
/// on her phone, which is killed with SIGKILL before the arrival time. The watcher alone alerts
/// bob, once, at the deadline plus its grace; the phone, started again and catching up, decides
/// from its stale copy and raises the same alert, which the hub files no second time.
@Suite(.serialized) struct SafeTravelKillTests {
    typealias Device = SafeTravelGuardianBrowserTests.Device

    /// A `tessera serve` device of `person` logged in to the hub, with safe travel configured by `config`.
    static func serveDevice(_ name: String, person: String, hubPort: Int, config: [String: Any]) async throws -> FixtureWorkspace {
        let ws = FixtureWorkspace("safetravel-kill-\(name)")
        try ConsoleBrowserTests.copyShippedManifest("safetravel", into: ws)
        ws.writeDeployment(plugins: [["id": "cz.tessera.safetravel", "config": config,
                                      "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any], "location": [:] as [String: Any],
                                                 "notifications": ["spaces": true], "sync": [:] as [String: Any]]]],
                           extra: ["providers": ["storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": "2026-03-02T08:00:00Z"],
                                                 "sync": ["hub": "http://127.0.0.1:\(hubPort)", "every": "1m"]]])
        let login = try await runDetached(Fixtures.tesseraExecutable, ["sync", "login", person, "--device", name, "--deployment", ws.deploymentFile,
                                                                       "--data", ws.dataDirectory], input: "correct horse battery\n")
        #expect(login.status == 0, "\(login.stderr)")
        return ws
    }

    /// A running device: its process and the admin token its first start printed.
    struct Running {
        var serve: ServeProcess
        let token: String

        func call(_ operation: String, _ body: String = "{}") async throws -> JSONValue {
            let answer = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/plugins/cz.tessera.safetravel/ops/\(operation)",
                                                         headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                                                         body: Array(body.utf8))
            return try #require(answer.json, "\(operation): \(answer.status) \(answer.text)")
        }

        /// Moves its virtual clock: its timers fire, and its sync rounds (every minute) run.
        func advance(_ by: String) async throws {
            let answer = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/clock/advance",
                                                         headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                                                         body: Array(#"{"by": "\#(by)"}"#.utf8))
            #expect(answer.status == 200, "\(answer.text)")
        }
    }

    static func start(_ ws: FixtureWorkspace, token: String? = nil) async throws -> Running {
        let serve = try await ServeProcess.start(ws)
        return Running(serve: serve, token: try #require(token ?? serve.adminToken))
    }

    @Test(.hangWatchdog) func thePhoneKilledMidTripLeavesTheWatcherToTellTheGuardianOnce() async throws {
        let hub = try await SafeTravelGuardianBrowserTests.hubWithAdaAndBob("safetravel-kill-hub", others: ["watcher"])
        defer { hub.process.terminate() }

        let watcher = try await Self.start(try await Self.serveDevice("watcher", person: "watcher", hubPort: hub.port,
                                                                      config: ["watcherName": "watcher", "silenceTimeout": "12h"]))
        defer { watcher.serve.process.terminate() }
        let phoneWorkspace = try await Self.serveDevice("phone", person: "ada", hubPort: hub.port,
                                                        config: ["watcher": "watcher", "pinIterations": 1000, "silenceTimeout": "12h"])
        var phone = try await Self.start(phoneWorkspace)
        defer { phone.serve.process.killNow() }
        let bob = try Device("bob", hubPort: hub.port)
        try await bob.tessera(["sync", "login", "bob", "--device", "bob's phone"], input: "correct horse battery\n")
        _ = try await bob.call("account-setup", #"{"username": "bob", "pin": "1234"}"#)
        _ = try await phone.call("account-setup", #"{"username": "ada", "pin": "4826"}"#)
        _ = try await phone.call("guardian-add", #"{"username": "bob"}"#)
        let request = try #require(try await bob.call("guardian-requests")["requests"]?.arrayValue?.first?["requestId"]?.stringValue)
        _ = try await bob.call("guardian-accept", #"{"requestId": "\#(request)"}"#)
        _ = try await phone.call("guardian-requests")  // completes the pairing and invites the watcher
        try await watcher.advance("1m")                  // the watcher accepts
        let incoming = try await watcher.call("guardians")["guarding"]?.arrayValue?.map { $0["username"] } ?? []
        #expect(incoming == ["ada"], "the watcher watches ada")

        // Her tablet is set up: the same travel space, not a second one.
        let tablet = try Device("ada-tablet", hubPort: hub.port)
        try await tablet.tessera(["sync", "login", "ada", "--device", "ada's tablet"], input: "correct horse battery\n")
        _ = try await tablet.call("account-setup", #"{"username": "ada", "pin": "4826"}"#)
        #expect(try await tablet.call("account-state")["space"] == (try await phone.call("account-state")["space"]))

        // The trip, on the phone: arrival at 08:11, so the overdue deadline is 08:21 and the
        // watcher's alert 08:21:30. A minute on, its sync round has pushed the trip; then SIGKILL.
        let trip = try #require(try await phone.call("trip-start", #"{"expectedArrivalAt": "2026-03-02T08:11:00Z"}"#)["id"]?.stringValue)
        try await phone.advance("1m")
        phone.serve.process.killNow()
        phone.serve.process.waitUntilExit()
        try await watcher.advance("2m")  // its round takes the trip from the hub

        try await watcher.advance("18m")  // 08:21:xx, past the deadline, not past its grace
        try await bob.tessera(["sync", "now"])
        let early = try await Self.overdueKeys(bob, trip: trip)
        #expect(early.isEmpty, "nothing before the deadline + the grace: \(early)")
        try await watcher.advance("1m")
        try await bob.tessera(["sync", "now"])
        let told = try await Self.overdue(bob, trip: trip)
        #expect(told.count == 1, "\(told)")
        #expect(told.first?["dueAt"] == "2026-03-02T08:21:30Z" && told.first?["priority"] == "critical", "\(told)")

        // The phone starts again (its data survived the SIGKILL), catches up and syncs: its own
        // fallback decides the same alert; bob is not told twice.
        phone = try await Self.start(phoneWorkspace, token: phone.token)
        try await phone.advance("25m")
        try await watcher.advance("2m")
        try await bob.tessera(["sync", "now"])
        #expect(try await Self.overdue(bob, trip: trip).count == 1)
        let alerts = try await phone.call("alerts")["alerts"]?.arrayValue?.filter { $0["subject_id"]?.stringValue == trip } ?? []
        #expect(alerts.count == 1, "one alert row on the phone too: \(alerts)")
        _ = try await phone.serve.terminate()
        _ = try await watcher.serve.terminate()
        _ = try await hub.terminate()
    }

    /// bob's inbox entries of the trip's overdue alert (not its repeats).
    static func overdue(_ device: Device, trip: String) async throws -> [JSONValue] {
        let listed = try JSONValue(parsing: try await device.tessera(["notifications", "list", "--json"]).stdout)
        return (listed["notifications"]?.arrayValue ?? []).filter {
            guard let key = $0["key"]?.stringValue else { return false }
            return key.hasPrefix("alert-trip-\(trip)-overdue-") && !key.contains("-r")
        }
    }

    static func overdueKeys(_ device: Device, trip: String) async throws -> [String] {
        try await overdue(device, trip: trip).compactMap { $0["key"]?.stringValue }
    }
}
