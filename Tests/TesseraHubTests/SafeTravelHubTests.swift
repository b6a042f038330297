import Foundation
import Testing
import TesseraFiles
import TesseraRuntime
import TesseraHub
import TesseraSafeTravel
import TesseraHubFixtures
import TesseraTestFixtures
import TesseraTesting

/// Safe travel between two people through a real hub on loopback: ada the traveller and bob her
/// guardian, each a device host with the module, rounds on their own virtual clocks. Guardians
/// pair both ways through hub invitations; the guardian sees the trip and cannot change it; and
/// the guardian's host, holding the synced records, keeps the deadlines itself: when ada's phone
/// goes silent (her host stops advancing: no fixes, no rounds) the alert goes out from bob's host
/// at the same second, and a PIN entered in a tunnel counts only if it reaches the hub in time.
@Suite("Safe travel across two people's devices and a hub", .hangWatchdog)
struct SafeTravelHubTests {
    static let manifest = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("manifests/safetravel.json").path
    static let plugin = "cz.tessera.safetravel"

    /// A device host of `person` with safe travel, logged in to `hub` (through `proxy` where given,
    /// so that a test can take the device's network away) and, when `setUp`, its account set up.
    static func device(_ person: String, hub: HubTestServer, config: JSONValue = ["pinIterations": 1000], setUp: Bool = true,
                       named deviceName: String? = nil, through proxy: FaultProxy? = nil) async throws -> PluginTestHost {
        let host = try await PluginTestHost(manifest: manifest, plugin: { SafeTravelPlugin() }, config: config,
                                            grants: ["storage": [:], "clock": [:], "notifications": ["spaces": true], "location": [:], "sync": [:], "files": [:]],
                                            start: Date(timeIntervalSince1970: 1_772_438_400),  // 2026-03-02T08:00:00Z
                                            syncHub: "http://127.0.0.1:\(proxy?.port ?? hub.port)")
        try await host.host.syncLogin(name: person, password: "correct horse battery", device: deviceName ?? "\(person)'s phone")
        if setUp { _ = try await host.call("account-setup", ["username": .string(person), "pin": "4826"]) }
        return host
    }

    /// One sync round on each host, in order: what one wrote reaches the other.
    static func sync(_ hosts: PluginTestHost...) async throws {
        for host in hosts { _ = try await host.host.syncNow(plugin) }
    }

    static func refusalCode(_ body: () async throws -> Any) async -> String? {
        do { _ = try await body(); return nil } catch let error as PluginError {
            return error.reason?.rawValue ?? error.code.rawValue
        } catch { return "\(error)" }
    }

    /// ada and bob paired both ways.
    static func paired(_ hub: HubTestServer, adaConfig: JSONValue = ["pinIterations": 1000]) async throws -> (ada: PluginTestHost, bob: PluginTestHost) {
        let ada = try await device("ada", hub: hub, config: adaConfig), bob = try await device("bob", hub: hub)
        _ = try await ada.call("guardian-add", ["username": "bob"])
        let requests = try await bob.call("guardian-requests")
        #expect(requests["badge"] == 1 && requests["requests"]?.arrayValue?.first?["from"] == "ada")
        let request = try #require(requests["requests"]?.arrayValue?.first?["requestId"])
        _ = try await bob.call("guardian-accept", ["requestId": request])
        // ada's device completes the pairing by itself: bob asked her back.
        #expect(try await ada.call("guardian-requests")["badge"] == 0)
        return (ada, bob)
    }

    /// Issue 39: a guardian request and its acceptance are told, once, to the person concerned.
    @Test func aGuardianRequestAndItsAcceptanceAreTold() async throws {
        try await HubTestServer.start().use { hub in
            for name in ["ada", "bob", "carl"] { try await hub.addPerson(name) }
            let ada = try await Self.device("ada", hub: hub), bob = try await Self.device("bob", hub: hub)
            _ = try await ada.call("guardian-add", ["username": "bob"])
            for _ in 0..<2 { try await bob.advanceClock(by: 120) }
            let asked = try bob.deliveredNotifications().filter { $0.key.hasPrefix("pairing-request-") }
            #expect(asked.map(\.title) == ["ada asks you to be their guardian"])
            let request = try #require(try await bob.call("guardian-requests")["requests"]?.arrayValue?.first?["requestId"])
            _ = try await bob.call("guardian-accept", ["requestId": request])
            for _ in 0..<2 { try await ada.advanceClock(by: 120) }
            let accepted = try ada.deliveredNotifications().filter { $0.key.hasPrefix("pairing-accepted-") }
            #expect(accepted.map(\.title) == ["bob is now your guardian"])
            // Her own request is not hers to accept.
            _ = try await ada.call("guardian-add", ["username": "carl"])
            let own = try #require(try await ada.query("SELECT invitation_id FROM guardians WHERE id = 'out:carl'").first?["invitation_id"].text)
            #expect(await Self.refusalCode { try await ada.call("guardian-accept", ["requestId": .string(own)]) } == "own_request")
            #expect(await Self.refusalCode { try await ada.call("guardian-remove", ["username": "nobody"]) } == "not_found")
            await ada.stop(); await bob.stop()
        }
    }

    /// Issue 39: a second device of the traveller joins the travel space she has, with its
    /// guardians: a trip or an SOS from it reaches them, and her first device sees the trip.
    @Test func aSecondDeviceJoinsTheTravelSpaceSheHasAlready() async throws {
        try await HubTestServer.start().use { hub in
            for name in ["ada", "bob"] { try await hub.addPerson(name) }
            let (ada, bob) = try await Self.paired(hub)
            let tablet = try await Self.device("ada", hub: hub, named: "ada's tablet")
            let space = try await ada.call("account-state")["space"]
            #expect(try await tablet.call("account-state")["space"] == space, "one travel space per person")
            let listed = try await tablet.call("guardians")
            #expect(listed["guardians"]?.arrayValue?.map { "\($0["username"]!.stringValue!) \($0["status"]!.stringValue!)" } == ["bob ACCEPTED"])
            #expect(listed["guarding"]?.arrayValue?.map { $0["username"] } == ["bob"])
            let trip = try #require(try await tablet.call("trip-start", ["expectedArrivalAt": "2026-03-02T08:30:00Z"])["id"]?.stringValue)
            try await Self.sync(tablet, bob, ada)
            #expect(try await bob.call("trip-status", ["tripId": .string(trip)])["traveller"] == "ada")
            #expect(try await ada.call("trip-status", ["tripId": .string(trip)])["state"] == "ACTIVE")
            #expect(try await bob.call("guardian-requests")["badge"] == 0, "nobody is invited twice")
            let bobsSpace = try await bob.call("account-state")["space"]?.stringValue ?? ""
            #expect(Set(try tablet.host.syncSpaces(of: Self.plugin)).isSubset(of: [space?.stringValue ?? "", bobsSpace]), "no second space of ada's")
        }
    }

    @Test func guardiansPairBothWaysAndAGuardianCannotChangeTheTrip() async throws {
        try await HubTestServer.start().use { hub in
            for name in ["ada", "bob"] { try await hub.addPerson(name) }
            let (ada, bob) = try await Self.paired(hub)
            let adas = try await ada.call("guardians"), bobs = try await bob.call("guardians")
            #expect(adas["guardians"]?.arrayValue?.map { "\($0["username"]!.stringValue!) \($0["status"]!.stringValue!)" } == ["bob ACCEPTED"])
            #expect(adas["guarding"]?.arrayValue?.map { $0["username"] } == ["bob"])
            #expect(bobs["guardians"]?.arrayValue?.map { "\($0["username"]!.stringValue!) \($0["status"]!.stringValue!)" } == ["ada ACCEPTED"])
            #expect(bobs["guarding"]?.arrayValue?.map { $0["username"] } == ["ada"])

            let trip = try #require(try await ada.call("trip-start", ["expectedArrivalAt": "2026-03-02T08:30:00Z"])["id"]?.stringValue)
            try await Self.sync(ada, bob)
            #expect(try await bob.call("trip-status", ["tripId": .string(trip)])["traveller"] == "ada")
            let before = try await bob.query("SELECT expected_arrival_at FROM trips WHERE id = ?", [.text(trip)])
            #expect(await Self.refusalCode { try await bob.call("trip-update-eta", ["tripId": .string(trip), "expectedArrivalAt": "2026-03-02T11:00:00Z"]) } == "not_trip_owner")
            #expect(await Self.refusalCode { try await bob.call("trip-end", ["tripId": .string(trip), "pin": "4826"]) } == "not_trip_owner")
            #expect(await Self.refusalCode { try await bob.call("trip-message", ["tripId": .string(trip), "text": "x"]) } == "not_trip_owner")
            #expect(try await bob.query("SELECT expected_arrival_at FROM trips WHERE id = ?", [.text(trip)]) == before)
            #expect(try await bob.query("SELECT COUNT(*) AS n FROM trip_activities WHERE trip_id = ?", [.text(trip)]).first?["n"].integer == 1)

            // Removal ends both directions.
            _ = try await ada.call("guardian-remove", ["username": "bob"])
            #expect(try await ada.call("guardians") == ["guardians": [], "guarding": []])
            await ada.stop(); await bob.stop()
        }
    }

    /// ada (whose device invited the watcher), bob her guardian, and the watcher, which has joined
    /// her space; every host's clock at the same instant.
    /// `thresholds` go to ada's device and the watcher alike (each decides by its own config).
    static func watched(_ hub: HubTestServer, thresholds: [String: JSONValue] = [:]) async throws
        -> (ada: PluginTestHost, bob: PluginTestHost, watcher: PluginTestHost)
    {
        for name in ["ada", "bob", "watcher"] { try await hub.addPerson(name) }
        let watcher = try await device("watcher", hub: hub, config: .object(thresholds.merging(["watcherName": "watcher"]) { $1 }), setUp: false)
        let (ada, bob) = try await paired(hub, adaConfig: .object(thresholds.merging(["pinIterations": 1000, "watcher": "watcher"]) { $1 }))
        try await advance(by: 30, hub, [watcher, ada, bob])  // the watcher looks for invitations
        #expect(try await watcher.query("SELECT username FROM guardians WHERE direction = 'incoming'").map { $0["username"].text } == ["ada"])
        return (ada, bob, watcher)
    }

    /// Moves the hub's clock and the hosts' together: the hub refuses changes stamped more than
    /// 5 min ahead of its own clock, and a device takes back what the hub refused.
    static func advance(by seconds: TimeInterval, _ hub: HubTestServer, _ hosts: [PluginTestHost]) async throws {
        hub.clock.advance(seconds)
        for host in hosts { try await host.advanceClock(by: seconds) }
    }

    static func alertKeys(_ host: PluginTestHost) throws -> [String] {
        try host.deliveredNotifications().map(\.key).filter { $0.hasPrefix("alert-") }.sorted()
    }

    /// Issue 39, one authority per deadline: ada's phone dies mid-trip. Her guardian's device, which
    /// holds her records, raises nothing; the watcher alerts once, `syncGrace` after the deadline;
    /// her phone, back later, finds it decided.
    @Test func thePhoneGoesSilentAndTheWatcherAloneAlertsOnceAfterTheGrace() async throws {
        try await HubTestServer.start().use { hub in
            let (ada, bob, watcher) = try await Self.watched(hub)
            let trip = try #require(try await ada.call("trip-start", ["expectedArrivalAt": "2026-03-02T09:00:00Z"])["id"]?.stringValue)
            _ = try await ada.call("position-report", ["lat": 50.08, "lon": 14.42, "accuracy": 10, "battery": 30])
            try await Self.sync(ada, bob, watcher)
            // ada's phone dies now (08:00:30): her host neither advances nor syncs any more.
            try await bob.advanceClock(by: 600)
            #expect(try await bob.call("alerts")["alerts"] == [], "a guardian's device raises nothing")
            try await watcher.advanceClock(by: 329)
            #expect(try await watcher.call("alerts")["alerts"] == [], "not before the deadline + the grace")
            try await watcher.advanceClock(by: 1)
            let alerts = try await watcher.call("alerts")["alerts"]?.arrayValue ?? []
            #expect(alerts.map { "\($0["kind"]!.stringValue!) \($0["due_at"]!.stringValue!)" } == ["trip-silent 2026-03-02T08:06:00.000Z"])
            #expect(alerts.first?["id"]?.stringValue?.hasPrefix("trip-\(trip)-silent-") == true)
            hub.clock.advance(335)
            try await watcher.advanceClock(by: 5)
            _ = try await watcher.host.syncNow(Self.plugin)
            _ = try await bob.host.syncNow(Self.plugin)
            #expect(try Self.alertKeys(bob).filter { !$0.contains("-r") }.count == 1)
            // ada's phone comes back at 08:05:40: its fallback (the deadline + grace + fallbackDelay,
            // 08:08:00) finds the alert decided.
            try await ada.advanceClock(by: 310)
            _ = try await ada.host.syncNow(Self.plugin)
            hub.clock.advance(600)
            try await ada.advanceClock(by: 600)
            _ = try await ada.host.syncNow(Self.plugin)
            let adas = try await ada.call("alerts")["alerts"]?.arrayValue ?? []
            #expect(adas.count == 1, "\(adas)")
            _ = try await bob.host.syncNow(Self.plugin)
            #expect(try Self.alertKeys(bob).filter { $0.hasPrefix("alert-trip-\(trip)-silent-") && !$0.contains("-r") }.count == 1)
            await ada.stop(); await bob.stop(); await watcher.stop()
        }
    }

    /// Issue 39: a check-in confirmed a second before its deadline, whose sync reaches the hub ten
    /// seconds after it (inside the watcher's grace), alerts nobody: not the watcher, not the
    /// guardian's device, not hers.
    @Test func aCheckInConfirmedASecondBeforeItsDeadlineAlertsNobody() async throws {
        try await HubTestServer.start().use { hub in
            let (ada, bob, watcher) = try await Self.watched(hub)
            let request = try await bob.call("checkin-request", ["target": "ada"])
            let slot = try #require(request["checkins"]?.arrayValue?.first?["id"]?.stringValue)
            try await Self.sync(bob, ada, watcher)
            // The request reaches her device: she is asked (it was made on bob's).
            try await Self.advance(by: 1, hub, [ada, bob, watcher])
            #expect(try ada.deliveredNotifications().contains { $0.key == "checkin-\(slot)" }, "the target is asked")
            try await Self.advance(by: 598, hub, [ada, bob, watcher])       // 1 s before slot + 10 min
            _ = try await ada.call("checkin-confirm", ["checkinId": .string(slot)])
            try await Self.advance(by: 11, hub, [ada, bob, watcher])        // her sync is late…
            try await Self.sync(ada, watcher, bob)                                         // …but inside the grace
            try await Self.advance(by: 600, hub, [ada, bob, watcher])
            try await Self.sync(watcher, bob, ada)
            for host in [ada, bob, watcher] {
                #expect(try await host.call("alerts")["alerts"] == [])
                let told = try host.deliveredNotifications().map { "\($0.key) \($0.title)" }
                #expect(try Self.alertKeys(host) == [], "\(told)")
            }
            await ada.stop(); await bob.stop(); await watcher.stop()
        }
    }

    /// Issue 39: "I am fine, just late" (her PIN after the ETA, before the overdue deadline) holds:
    /// no overdue alert and no repeats; a trip ended after an alert stops its repeats everywhere
    /// and tells the guardians she is safe.
    @Test func anAnsweredETAPromptHoldsAndAnEndAfterTheAlertStopsItsRepeats() async throws {
        try await HubTestServer.start().use { hub in
            let (ada, bob, watcher) = try await Self.watched(hub, thresholds: ["silenceTimeout": "3h"])  // no fixes on these trips
            let first = try #require(try await ada.call("trip-start", ["expectedArrivalAt": "2026-03-02T08:30:30Z"])["id"]?.stringValue)
            try await Self.sync(ada, watcher, bob)
            try await Self.advance(by: 35 * 60, hub, [ada, bob, watcher])  // ETA + 5 min
            _ = try await ada.call("trip-acknowledge", ["tripId": .string(first), "pin": "4826"])
            try await Self.sync(ada, watcher, bob)
            try await Self.advance(by: 30 * 60, hub, [ada, bob, watcher])
            try await Self.sync(watcher, bob)
            #expect(try await watcher.call("alerts")["alerts"] == [], "acknowledged after the ETA: no overdue alert")
            _ = try await ada.call("trip-end", ["tripId": .string(first), "pin": "4826"])

            // The next trip's overdue alert goes out; she ends the trip after it: the repeats stop.
            let second = try #require(try await ada.call("trip-start", ["expectedArrivalAt": "2026-03-02T09:15:00Z"])["id"]?.stringValue)
            try await Self.sync(ada, watcher, bob)
            try await Self.advance(by: 20 * 60 + 1, hub, [ada, bob, watcher])   // 09:25:31: ETA + 10 min + the 30 s grace
            try await Self.sync(watcher, bob, ada)
            let decided = try await watcher.call("alerts")["alerts"]?.arrayValue ?? []
            let status = try await ada.call("trip-status", ["tripId": .string(second)])
            #expect(decided.map { $0["kind"] } == ["trip-overdue"], "\(decided) \(status)")
            _ = try await ada.call("trip-end", ["tripId": .string(second), "pin": "4826"])
            try await Self.sync(ada, watcher, bob)
            try await Self.advance(by: 30 * 60, hub, [ada, bob, watcher])
            try await Self.sync(watcher, bob)
            let keys = try Self.alertKeys(bob)
            #expect(keys.filter { $0.hasPrefix("alert-trip-\(second)-overdue") } == keys.filter { $0.hasPrefix("alert-trip-") }, "\(keys)")
            #expect(keys.count == 1, "no repeat after the trip ended: \(keys)")
            #expect(try bob.deliveredNotifications().contains { $0.key.hasPrefix("safe-trip-\(second)-overdue") || $0.key == "trip-ended-\(second)" })
            await ada.stop(); await bob.stop(); await watcher.stop()
        }
    }

    /// Issue 21: a guardian whose devices are all off still gets the SOS, on the webhook channel
    /// they keep at the hub (docs/hub.md, "Delivery channels"), with the last positions and battery.
    @Test func aGuardianWithNoDeviceOnlineGetsTheSOSOnTheirWebhook() async throws {
        let receiver = try LoopbackHTTPServer(.status(200))
        defer { receiver.close() }
        try await HubTestServer.start().use { hub in
            for name in ["ada", "bob"] { try await hub.addPerson(name) }
            let (ada, bob) = try await Self.paired(hub)
            let bobsLaptop = try await hub.login("bob", device: "laptop")
            let added = try await hub.request("POST", "/v1/hub/channels", token: bobsLaptop,
                                              json: #"{"kind": "webhook", "url": "\#(receiver.url("/bob"))", "plugin": "\#(Self.plugin)"}"#)
            #expect(added.status == 201, "\(added.text)")
            await bob.stop()  // bob's phone is off from now on; his laptop never fetches anything

            _ = try await ada.call("position-report", ["lat": 50.08804, "lon": 14.42076, "accuracy": 8, "battery": 41])
            _ = try await ada.call("sos-touch-down")
            try await ada.advanceClock(by: 3)  // held: the SOS exists, with the last fix sampled
            #expect(try await ada.call("sos-alert-now")["state"] == "ALERTED")
            try await ada.advanceClock(by: 5)  // the alert falls due and is relayed to the hub
            #expect(await HubChannelSender(store: hub.hub).deliverDue().sent == 1)

            let request = try #require(receiver.requests.first)
            #expect(receiver.requests.count == 1 && request.path == "/bob")
            let alert = try JSONValue(parsing: request.body)
            #expect(alert["plugin"]?.stringValue == Self.plugin && alert["title"]?.stringValue == "SOS from ada")
            #expect(alert["payload"]?["battery"]?.integerValue == 41, "\(request.body)")
            let position = alert["payload"]?["lastPositions"]?.arrayValue?.first
            #expect(position?["lat"]?.doubleValue == 50.08804 && position?["lon"]?.doubleValue == 14.42076)
            #expect(request.headers["tessera-signature"]?.hasPrefix("t=") == true)
            await ada.stop()
        }
    }

    /// The always-on watcher (manifests/deployments/watcher.json): the same module on a host logged in
    /// as the service member "watcher", which ada's device invites and which joins by itself.
    @Test func theWatcherJoinsByItselfAndAlertsWhenThePhoneIsSwitchedOff() async throws {
        try await HubTestServer.start().use { hub in
            for name in ["ada", "watcher"] { try await hub.addPerson(name) }
            let watcher = try await Self.device("watcher", hub: hub, config: ["watcherName": "watcher"], setUp: false)
            let ada = try await Self.device("ada", hub: hub, config: ["pinIterations": 1000, "requireGuardians": false, "watcher": "watcher"])
            try await watcher.advanceClock(by: 30)                         // the watcher looks for invitations
            #expect(try await watcher.query("SELECT username FROM guardians WHERE direction = 'incoming'").map { $0["username"].text } == ["ada"])
            #expect(try await ada.call("guardians")["guardians"] == [], "the watcher is no guardian")

            _ = try await ada.call("position-report", ["lat": 50.08, "lon": 14.42, "accuracy": 5, "battery": 12])
            let sos = try #require(try await ada.call("sos-touch-down")["sosId"]?.stringValue)
            try await ada.advanceClock(by: 3)                              // HOLDING, its first position recorded
            try await Self.sync(ada, watcher)
            // The phone is smashed while the button is held: no release, no fix. The watcher alerts at
            // the last sign of life (08:00:03) + 15 s, on its own clock.
            try await watcher.advanceClock(by: 16)
            #expect(try await watcher.query("SELECT due_at, traveller FROM alerts WHERE id = ?", [.text("sos-\(sos)")]).map { $0["due_at"].text } ==
                    ["2026-03-02T08:00:18.000Z"])
            #expect(try await watcher.query("SELECT COUNT(*) AS n FROM sos WHERE state = 'HOLDING'").first?["n"].integer == 1, "the watcher writes no SOS state")
            try await watcher.advanceClock(by: 5)
            _ = try await watcher.host.syncNow(Self.plugin)
            // The alert reached the hub for every member: ada's other devices see it on their next fetch.
            try await ada.advanceClock(by: 20)
            _ = try await ada.host.syncNow(Self.plugin)
            let told = try ada.deliveredNotifications().filter { $0.key == "alert-sos-\(sos)" }
            #expect(told.count == 1 && told.first?.payload["reason"] == "DEVICE_SILENT" && told.first?.payload["battery"] == 12)
            let status = try await ada.call("sos-status", ["sosId": .string(sos)])
            #expect(status["state"] == "ALERTED" && status["alert_reason"] == "DEVICE_SILENT")
            // The phone's own record followed: a new SOS can start.
            #expect(try await ada.call("sos-touch-down")["state"] == "ARMING")
            await ada.stop(); await watcher.stop()
        }
    }

    @Test func aPINEnteredInATunnelCountsOnlyIfItReachesTheHubBeforeTheDeadline() async throws {
        try await HubTestServer.start().use { hub in
            let (ada, bob, watcher) = try await Self.watched(hub)
            for (late, expectAlert) in [(false, false), (true, true)] {
                _ = try await ada.call("sos-touch-down")
                try await Self.advance(by: 4, hub, [ada, bob, watcher])
                let sos = try #require(try await ada.call("sos-touch-up")["sosId"]?.stringValue)
                try await Self.sync(ada, watcher, bob)                         // the watcher holds RELEASED with its deadline
                try await Self.advance(by: 12, hub, [ada, bob, watcher])   // in the tunnel
                #expect(try await ada.call("sos-enter-pin", ["pin": "4826"])["state"] == "SAFE")
                if !late { try await Self.sync(ada, watcher) }                  // out of the tunnel within the deadline
                hub.clock.advance(18)
                for host in [bob, watcher] { try await host.advanceClock(by: 18) }   // past release + 15 s
                let alerted = try await watcher.query("SELECT COUNT(*) AS n FROM alerts WHERE id = ?", [.text("sos-\(sos)")]).first?["n"].integer
                #expect(alerted == (expectAlert ? 1 : 0), "late: \(late)")
                #expect(try await bob.query("SELECT COUNT(*) AS n FROM alerts").first?["n"].integer == 0, "bob's device decides nothing")
                if late { try await Self.sync(watcher, ada, bob) }             // ada learns what the watcher decided
                #expect(try await ada.call("sos-status", ["sosId": .string(sos)])["state"] == (expectAlert ? "ALERTED" : "SAFE"))
                try await ada.advanceClock(by: 18)
                try await Self.advance(by: 60, hub, [ada, bob, watcher])
                try await Self.sync(ada, watcher, bob)
            }
            // The late PIN: bob heard the SOS once, then that she reported safe.
            let keys = try bob.deliveredNotifications().map(\.key)
            #expect(keys.filter { $0.hasPrefix("alert-sos-") && !$0.contains("-r") }.count == 1, "\(keys)")
            #expect(keys.contains { $0.hasPrefix("sos-safe-") }, "\(keys)")
            await ada.stop(); await bob.stop(); await watcher.stop()
        }
    }

    // MARK: The live view and trip photos (issue 21)

    /// Whoever holds a capability link (`Principal.Role.link`, as the manifest spells it).
    static let link = Principal.Role(rawValue: "link")

    @Test func theGuardianGetsTheLiveLinkWithTheAlertAndItOpensOnTheirOwnHost() async throws {
        try await HubTestServer.start().use { hub in
            for name in ["ada", "bob"] { try await hub.addPerson(name) }
            let (ada, bob) = try await Self.paired(hub)
            let started = try await ada.call("trip-start", ["expectedArrivalAt": "2026-03-02T09:00:00Z"])
            let trip = try #require(started["id"]?.stringValue)
            let token = try #require(started["liveLink"]?["token"]?.stringValue)
            _ = try await ada.call("position-report", ["lat": 50.08, "lon": 14.42, "accuracy": 10, "battery": 30])
            try await ada.advanceClock(by: 1)
            try await Self.sync(ada, bob)
            // No fix reaches ada's phone for 5 min (she is in a tunnel): her device, the authority
            // where no watcher serves her space, raises the silence alert at 08:05:01 with the link.
            hub.clock.advance(300)
            try await ada.advanceClock(by: 300)
            try await Self.sync(ada)
            try await bob.advanceClock(by: 305)
            _ = try await bob.host.syncNow(Self.plugin)
            let told = try bob.deliveredNotifications()
            let alert = try #require(told.first { $0.key.hasPrefix("alert-trip-\(trip)-silent-") && !$0.key.contains("-r") })
            #expect(alert.payload["liveView"]?["token"]?.stringValue == token)
            #expect(alert.body.contains("/ui/cz.tessera.safetravel/live.html#\(token)"))
            #expect(told.contains { $0.key == "trip-started-\(trip)" && $0.payload["liveView"]?["token"]?.stringValue == token },
                    "the trip's start, relayed from ada's device, carried it first")
            // bob opens it on his own host, which holds the trip by sync.
            let view = try await bob.call("live-view", ["token": .string(token)], as: Self.link)
            #expect(view["traveller"] == "ada" && view["last"]?["battery"] == 30 && view["state"] == "ACTIVE")
            #expect(view["alerts"]?.arrayValue?.map { $0["kind"] } == ["trip-silent"])
            // ada, back (her clock within the hub's 5 minutes of skew), revokes it: bob's host refuses it after one round.
            try await ada.advanceClock(by: 10)
            #expect(try await ada.call("live-link-revoke")["revoked"] == 1)
            try await Self.sync(ada, bob)
            await #expect(throws: PluginError.self) { try await bob.call("live-view", ["token": .string(token)], as: Self.link) }
            await ada.stop(); await bob.stop()
        }
    }

    /// A real 1×1 PNG.
    static let png = Array(Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!)

    /// The SHA-256 of `bytes` in hex, by the system's `sha256sum` (not by the code under test) over
    /// a file, through ``runDetached``: never a wait for a program on a cooperative thread.
    static func sha256sum(_ bytes: [UInt8]) async throws -> String {
        let file = Fixtures.temporaryDirectory("sha256") + "/bytes"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return String(try await runDetached("/usr/bin/sha256sum", [file]).stdout.prefix(64))
    }

    @Test func aTripPhotoPutByTheTravellerIsFetchedByTheGuardiansDeviceThroughTheHub() async throws {
        try await HubTestServer.start().use { hub in
            for name in ["ada", "bob"] { try await hub.addPerson(name) }
            let (ada, bob) = try await Self.paired(hub)
            _ = try await ada.call("trip-start", ["expectedArrivalAt": "2026-03-02T09:00:00Z"])
            _ = try await ada.call("position-report", ["lat": 50.08, "lon": 14.42, "accuracy": 10, "battery": 44])
            let added = try await ada.call("trip-photo-put", ["data": .string(Data(Self.png).base64EncodedString())])
            let address = try #require(added["file"]?["address"]?.stringValue)
            try await Self.sync(ada, bob)                                  // the file goes up before its record
            // bob's device has the record, not yet the bytes: the download reads the file, which the host fetches from the hub.
            let file = try await bob.host.download(Self.plugin, "trip-photo-get", input: ["address": .string(address)],
                                                   as: Principal(id: "bob", role: .user))
            let bytes = try file.read(at: 0, count: Int(file.descriptor.size))
            #expect(bytes == Self.png && file.descriptor.mediaType == "image/png")
            let (fetched, sent) = (try await Self.sha256sum(bytes), try await Self.sha256sum(Self.png))
            #expect(fetched == address && address == sent)
            let row = try await bob.query("SELECT type, lat, battery FROM trip_activities WHERE file_ref = ?", [.text(address)])
            #expect(row.first?["type"].text == "PHOTO" && row.first?["battery"].integer == 44)
            await ada.stop(); await bob.stop()
        }
    }

    // MARK: Retention and deletion (Retention.swift)

    static func count(_ host: PluginTestHost, _ sql: String, _ id: String) async throws -> Int64 {
        try await host.query("SELECT COUNT(*) AS n FROM \(sql) = ?", [.text(id)]).first?["n"].integer ?? -1
    }

    /// The purge deletes through the record API in ada's space, so the deletions reach the hub and
    /// bob's copy goes at his next round; and a guardian removed holds nothing of ada's any more.
    /// (Retention of 1 day here, not 30: each host runs a sync round every 15 min of its clock.)
    @Test func aPurgedTripLeavesTheGuardiansDeviceAndARemovedGuardianHoldsNothing() async throws {
        try await HubTestServer.start().use { hub in
            for name in ["ada", "bob"] { try await hub.addPerson(name) }
            let config: JSONValue = ["pinIterations": 1000, "retentionDays": 1]
            let ada = try await Self.device("ada", hub: hub, config: config), bob = try await Self.device("bob", hub: hub, config: config)
            _ = try await ada.call("guardian-add", ["username": "bob"])
            let request = try #require(try await bob.call("guardian-requests")["requests"]?.arrayValue?.first?["requestId"])
            _ = try await bob.call("guardian-accept", ["requestId": request])
            _ = try await ada.call("guardian-requests")

            let old = try #require(try await ada.call("trip-start", ["expectedArrivalAt": "2026-03-02T09:00:00Z"])["id"]?.stringValue)
            _ = try await ada.call("position-report", ["lat": 50.08, "lon": 14.42, "accuracy": 10, "battery": 44])
            let photo = try await ada.call("trip-photo-put", ["data": .string(Data(Self.png).base64EncodedString())])
            let address = try #require(photo["file"]?["address"]?.stringValue)
            _ = try await ada.call("trip-end", ["pin": "4826"])
            try await Self.sync(ada, bob)
            #expect(try await Self.count(bob, "trips WHERE id", old) == 1)
            #expect(try await Self.count(bob, "trip_activities WHERE trip_id", old) == 4)
            #expect(try await Self.count(bob, "trip_activities WHERE file_ref", address) == 1)
            // Only the traveller deletes: bob's device refuses, and nothing of his copy goes.
            #expect(await Self.refusalCode { try await bob.call("trip-delete", ["tripId": .string(old), "pin": "4826"]) } == "not_trip_owner")
            #expect(try await Self.count(bob, "trips WHERE id", old) == 1)

            // A day and the purge interval later, on every clock (the hub, then the devices: a
            // replica refuses changes stamped more than 5 min into its future).
            hub.clock.advance(86_400 + 3_601)
            try await ada.advanceClock(by: 86_400 + 3_601)
            try await bob.advanceClock(by: 86_400 + 3_601)
            #expect(try await Self.count(ada, "trips WHERE id", old) == 0)
            try await Self.sync(ada, bob)
            #expect(try await Self.count(bob, "trips WHERE id", old) == 0, "the guardian's copy goes with the traveller's")
            #expect(try await Self.count(bob, "trip_activities WHERE trip_id", old) == 0)
            #expect(try await Self.count(bob, "live_links WHERE trip_id", old) == 0)
            #expect(await Self.refusalCode { try await bob.call("trip-photo-get", ["address": .string(address)]) } == "not_found")

            // A recent trip and a place reach bob; then ada removes him as her guardian.
            let recent = try #require(try await ada.call("trip-start", ["expectedArrivalAt": "2026-03-03T12:00:00Z"])["id"]?.stringValue)
            _ = try await ada.call("place-add", ["name": "Home", "lat": 50.088, "lon": 14.42])
            try await Self.sync(ada, bob)
            #expect(try await Self.count(bob, "trips WHERE id", recent) == 1)
            #expect(try await Self.count(bob, "places WHERE traveller", "ada") == 1)
            let place = try #require(try await bob.query("SELECT id FROM places WHERE traveller = 'ada'").first?["id"].text)
            #expect(await Self.refusalCode { try await bob.call("place-remove", ["placeId": .string(place)]) } == "not_trip_owner")
            _ = try await ada.call("guardian-remove", ["username": "bob"])
            try await Self.sync(ada, bob)
            for table in ["trips", "trip_activities", "live_links", "places", "alerts"] {
                #expect(try await bob.query("SELECT COUNT(*) AS n FROM \(table)").first?["n"].integer == 0, "bob still holds ada's \(table)")
            }
            await ada.stop(); await bob.stop()
        }
    }
}
