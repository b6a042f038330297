import Foundation
import TesseraSDK

/// The trip's monitors, beyond the thesis (Apple's Check In, Life360), each with the ladder
/// "a reminder to the traveller first, then the guardians, repeated until acknowledged":
///
/// - **missed arrival**: ETA → reminder "extend, or end with your PIN"; ETA + `overdueGrace` and
///   not within `arrivalRadius` (a fix with accuracy ≤ `arrivalMaxAccuracy`) → guardians;
/// - **route deviation**: outside `corridorHalfWidth` of the planned route continuously for
///   `offRouteDwell` → reminder; still outside `offRouteResponse` later → guardians;
/// - **silence** (F8): no fix, report or activity for `silenceTimeout` → guardians;
/// - **battery low**: a fix at or under `batteryLow` % → guardians, once per trip.
///
/// Every deadline is a host timer computed from the trip's record by ``armTrip(_:)``: after each
/// change here, at start (recovery), and on a watching host when the records arrive by sync.
extension Travel {
    static let etaTimer = "trip-eta", overdueTimer = "trip-overdue", tripSilenceTimer = "trip-silence"
    static let offRoutePromptTimer = "trip-offroute-prompt", offRouteAlertTimer = "trip-offroute-alert"
    static let tripTimers = [etaTimer, overdueTimer, tripSilenceTimer, offRoutePromptTimer, offRouteAlertTimer]

    /// A fix while a trip is active: last position, heartbeat, arrival, corridor, battery.
    func tripHeard(_ fix: Fix) async throws {
        guard let me = try await meIfSetUp(), let trip = try await activeTrip(of: me.username) else { return }
        let id = trip.string("id")
        var values: [String: SQLValue] = ["last_lat": .real(fix.lat), "last_lon": .real(fix.lon), "last_accuracy": SQLValue(fix.accuracy),
                                          "last_fix_at": SQLValue(fix.at), "last_battery": SQLValue(fix.battery)]
        if fix.at > (trip.date("last_seen_at") ?? .distantPast) { values["last_seen_at"] = SQLValue(fix.at) }
        let recordPosition = trip.date("last_position_at").map { fix.at.timeIntervalSince($0) >= 60 } ?? true
        if recordPosition { values["last_position_at"] = SQLValue(fix.at) }
        let arrived = trip.string("arrived_at").isEmpty ? arrival(trip, fix) : false
        if arrived { values["arrived_at"] = SQLValue(fix.at) }
        if !arrived, trip.string("arrived_at").isEmpty, let outside = outsideCorridor(trip, fix) {
            let since = trip.string("off_route_since")
            if outside, since.isEmpty { values["off_route_since"] = SQLValue(fix.at) }
            if !outside, !since.isEmpty { values["off_route_since"] = "" }
        }
        try await storage.write { [values] batch in
            batch.inSpace(me.space)
            batch.patch("trips", id: id, values)
            if recordPosition {
                batch.put("trip_activities", id: "\(id):pos:\(Instant.millis(fix.at))", [
                    "trip_id": .text(id), "type": "POSITION", "created_at": SQLValue(fix.at), "lat": .real(fix.lat), "lon": .real(fix.lon),
                    "accuracy": SQLValue(fix.accuracy), "battery": SQLValue(fix.battery)])
            }
        }
        try await armTrip(id)
        if arrived {
            await notifyGuardians(key: "trip-arrived-\(id)", space: me.space, title: "\(me.username) arrived at \(trip.string("destination_name"))",
                                  body: "Arrived at \(Instant.spoken(fix.at)).",
                                  message: NotificationMessage("notify.tripArrived", ["name": .text(me.username),
                                                                                     "place": .text(trip.string("destination_name")), "at": .instant(fix.at)]),
                                  payload: ["trip": .string(id)], at: fix.at)
            await notifyTraveller(key: "trip-arrived-you-\(id)", title: "You have arrived", body: "End the trip with your PIN.",
                                  message: NotificationMessage("notify.youArrived"), priority: .timeSensitive, payload: ["trip": .string(id)], at: fix.at)
        }
        if let battery = fix.battery, battery <= config.batteryLow {
            try await raise(try await tripAlert(trip, kind: "trip-battery", suffix: "battery", at: fix.at, space: me.space, repeats: false,
                                      title: "\(me.username)'s battery is low", body: "Battery \(battery) % at \(fix.lat), \(fix.lon).",
                                      message: NotificationMessage("notify.alert.trip-battery", ["name": .text(me.username),
                                                                                                "battery": .number(Double(battery))])))
        }
    }

    private func arrival(_ trip: Row, _ fix: Fix) -> Bool {
        guard let lat = trip["dest_lat"].real, let lon = trip["dest_lon"].real, decides(fix, within: config.arrivalMaxAccuracy) else { return false }
        return GeoPoint(latitude: fix.lat, longitude: fix.lon).isWithin(config.arrivalRadius, of: GeoPoint(latitude: lat, longitude: lon))
    }

    /// Whether the fix is outside the corridor; nil when there is no route or the fix is too vague.
    private func outsideCorridor(_ trip: Row, _ fix: Fix) -> Bool? {
        guard decides(fix), let route = Self.route(trip), route.points.count >= 2,
              let distance = route.distance(from: GeoPoint(latitude: fix.lat, longitude: fix.lon)) else { return nil }
        return distance > config.corridorHalfWidth
    }

    static func route(_ trip: Row) -> GeoPolyline? {
        let text = trip.string("route")
        guard !text.isEmpty, let points = (try? JSONValue(parsing: text))?.arrayValue else { return nil }
        return GeoPolyline(points.compactMap { point in
            guard let pair = point.arrayValue, pair.count == 2, let lat = pair[0].doubleValue, let lon = pair[1].doubleValue else { return nil }
            return GeoPoint(latitude: lat, longitude: lon)
        })
    }

    /// Arms (or cancels) the trip's timers from its record.
    func armTrip(_ id: String) async throws {
        guard let trip = try await row("SELECT * FROM trips WHERE id = ?", [.text(id)]), trip.string("state") == "ACTIVE" else {
            for timer in Self.tripTimers { try await clock.cancelTimer(key: "\(timer):\(id)") }
            return
        }
        func set(_ timer: String, _ at: Date?) async throws {
            if let at { try await clock.schedule(TimerRequest(key: "\(timer):\(id)", name: timer, fireAt: at, payload: ["trip": .string(id)])) }
            else { try await clock.cancelTimer(key: "\(timer):\(id)") }
        }
        // A deadline already decided is not armed again (its alert row, or the prompt's marker, says
        // so): otherwise every later fix would re-arm a past deadline and fire it once more. A
        // guardians' deadline is armed at the moment this host decides it (Authority.swift): later
        // on the watcher, never on a guardian's device.
        let traveller = trip.string("traveller")
        let open = trip.string("arrived_at").isEmpty, mine = try await meIfSetUp()?.username == traveller
        let eta = open ? trip.date("expected_arrival_at") : nil
        try await set(Self.etaTimer, mine && trip.string("eta_passed_at").isEmpty ? eta : nil)
        let overdue = Self.overdueDeadline(trip, grace: config.overdueGrace)
        let overdueDecided = try await eta.asyncMap { try await alertExists("trip-\(id)-overdue-\(Instant.millis($0))") } ?? true
        try await set(Self.overdueTimer, overdueDecided ? nil : try await decisionTime(of: overdue, traveller: traveller))
        let seen = trip.date("last_seen_at")
        let silenceDecided = try await seen.asyncMap { try await alertExists("trip-\(id)-silent-\(Instant.millis($0))") } ?? true
        try await set(Self.tripSilenceTimer, silenceDecided ? nil : try await decisionTime(of: seen?.addingTimeInterval(config.silenceTimeout), traveller: traveller))
        let since = open ? Self.unansweredOffRoute(trip) : nil
        let prompted = try await since.asyncMap { try await wasHandled("trip-offroute-\(id)-\(Instant.millis($0))") } ?? true
        try await set(Self.offRoutePromptTimer, mine && !prompted ? since?.addingTimeInterval(config.offRouteDwell) : nil)
        let offRouteDecided = try await since.asyncMap { try await alertExists("trip-\(id)-offroute-\(Instant.millis($0))") } ?? true
        let offRoute = since?.addingTimeInterval(config.offRouteDwell + config.offRouteResponse)
        try await set(Self.offRouteAlertTimer, offRouteDecided ? nil : try await decisionTime(of: offRoute, traveller: traveller))
    }

    /// ``decisionTime(_:traveller:synced:)`` of a deadline that may not be there.
    private func decisionTime(of deadline: Date?, traveller: String) async throws -> Date? {
        guard let deadline else { return nil }
        return try await decisionTime(deadline, traveller: traveller)
    }

    /// ETA + `grace`, unless she has arrived or answered the ETA prompt (an acknowledgement with her
    /// PIN at or after the ETA: "I am fine, just late").
    static func overdueDeadline(_ trip: Row, grace: TimeInterval) -> Date? {
        guard trip.string("arrived_at").isEmpty, let eta = trip.date("expected_arrival_at") else { return nil }
        if let answered = trip.date("acknowledged_at"), answered >= eta { return nil }
        return eta.addingTimeInterval(grace)
    }

    /// When she left the route, unless she has acknowledged that since (a detour she knows of:
    /// neither she nor the guardians hear of it again until she is back on the route).
    static func unansweredOffRoute(_ trip: Row) -> Date? {
        guard let since = trip.date("off_route_since") else { return nil }
        if let answered = trip.date("acknowledged_at"), answered >= since { return nil }
        return since
    }

    /// The trip a firing is about, if it is still active (and the record still implies this deadline).
    private func dueTrip(_ firing: TimerFiring) async throws -> Row? {
        guard let id = firing.payload["trip"]?.stringValue,
              let trip = try await row("SELECT * FROM trips WHERE id = ?", [.text(id)]), trip.string("state") == "ACTIVE" else { return nil }
        return trip
    }

    /// ETA reached: the first rung, a reminder to the traveller (on the traveller's device only).
    func etaDue(_ firing: TimerFiring) async throws {
        guard let trip = try await dueTrip(firing), trip.string("arrived_at").isEmpty, let eta = trip.date("expected_arrival_at"), eta <= firing.dueAt,
              let me = try await meIfSetUp(), me.username == trip.string("traveller") else { return }
        let id = trip.string("id")
        try await storage.write { batch in
            batch.inSpace(me.space)
            batch.patch("trips", id: id, ["eta_passed_at": SQLValue(eta)])
        }
        await notifyTraveller(key: "trip-eta-\(id)-\(Instant.millis(eta))", title: "Your arrival time has passed",
                              body: "Extend it, or end the trip with your PIN. Your guardians are told at \(Instant.spoken(eta.addingTimeInterval(config.overdueGrace))).",
                              message: NotificationMessage("notify.etaPassed", ["at": .instant(eta.addingTimeInterval(config.overdueGrace))]),
                              priority: .timeSensitive,
                              payload: ["trip": .string(id)], at: eta)
    }

    /// ETA + grace, not arrived and not answered: the guardians.
    func overdueDue(_ firing: TimerFiring) async throws {
        guard let trip = try await dueTrip(firing), let deadline = Self.overdueDeadline(trip, grace: config.overdueGrace),
              let eta = trip.date("expected_arrival_at"), deadline <= firing.dueAt,
              try await decides(for: trip.string("traveller")),
              let space = try await spaceOf(traveller: trip.string("traveller")) else { return }
        let distance = (trip["last_lat"].real, trip["last_lon"].real, trip["dest_lat"].real, trip["dest_lon"].real)
        var far = ""
        var values: [String: NotificationValue] = ["name": .text(trip.string("traveller")), "place": .text(trip.string("destination_name")),
                                                   "eta": .instant(eta)]
        if let lat = distance.0, let lon = distance.1, let dlat = distance.2, let dlon = distance.3 {
            let metres = Geodesy.distance(from: GeoPoint(latitude: lat, longitude: lon), to: GeoPoint(latitude: dlat, longitude: dlon))
            far = " \(Int(metres)) m from \(trip.string("destination_name"))."
            values["distance"] = .meters(metres.rounded())
        }
        try await raise(try await tripAlert(trip, kind: "trip-overdue", suffix: "overdue-\(Instant.millis(eta))", at: try await alertDue(deadline),
                                  space: space, repeats: true, title: "\(trip.string("traveller")) has not arrived",
                                  body: "Expected at \(trip.string("destination_name")) by \(Instant.spoken(eta)).\(far)",
                                  message: NotificationMessage(values["distance"] == nil ? "notify.alert.trip-overdue" : "notify.alert.trip-overdue-far", values)))
    }

    /// No sign of life for `silenceTimeout`: the guardians (the device may be off, smashed or out of signal).
    func tripSilenceDue(_ firing: TimerFiring) async throws {
        guard let trip = try await dueTrip(firing), let seen = trip.date("last_seen_at"),
              seen.addingTimeInterval(config.silenceTimeout) <= firing.dueAt,
              try await decides(for: trip.string("traveller")),
              let space = try await spaceOf(traveller: trip.string("traveller")) else { return }
        try await raise(try await tripAlert(trip, kind: "trip-silent", suffix: "silent-\(Instant.millis(seen))",
                                  at: try await alertDue(seen.addingTimeInterval(config.silenceTimeout)),
                                  space: space, repeats: true, title: "No signal from \(trip.string("traveller"))",
                                  body: "Nothing heard since \(Instant.spoken(seen)).",
                                  message: NotificationMessage("notify.alert.trip-silent", ["name": .text(trip.string("traveller")), "at": .instant(seen)])))
    }

    /// Off route for `offRouteDwell`: the reminder to the traveller.
    func offRoutePromptDue(_ firing: TimerFiring) async throws {
        guard let trip = try await dueTrip(firing), let since = Self.unansweredOffRoute(trip), since.addingTimeInterval(config.offRouteDwell) <= firing.dueAt,
              let me = try await meIfSetUp(), me.username == trip.string("traveller") else { return }
        let key = "trip-offroute-\(trip.string("id"))-\(Instant.millis(since))"
        try await markHandled(key)
        await notifyTraveller(key: key, title: "You are off your route",
                              body: "Acknowledge with your PIN, or your guardians are told at \(Instant.spoken(since.addingTimeInterval(config.offRouteDwell + config.offRouteResponse))).",
                              message: NotificationMessage("notify.offRoute", ["at": .instant(since.addingTimeInterval(config.offRouteDwell + config.offRouteResponse))]),
                              priority: .timeSensitive,
                              payload: ["trip": .string(trip.string("id"))], at: since.addingTimeInterval(config.offRouteDwell))
    }

    /// Still off route `offRouteResponse` after the reminder: the guardians.
    func offRouteAlertDue(_ firing: TimerFiring) async throws {
        let delay = config.offRouteDwell + config.offRouteResponse
        guard let trip = try await dueTrip(firing), let since = Self.unansweredOffRoute(trip), since.addingTimeInterval(delay) <= firing.dueAt,
              try await decides(for: trip.string("traveller")),
              let space = try await spaceOf(traveller: trip.string("traveller")) else { return }
        try await raise(try await tripAlert(trip, kind: "trip-off-route", suffix: "offroute-\(Instant.millis(since))",
                                  at: try await alertDue(since.addingTimeInterval(delay)),
                                  space: space, repeats: true, title: "\(trip.string("traveller")) is off their route",
                                  body: "Outside the planned route since \(Instant.spoken(since)).",
                                  message: NotificationMessage("notify.alert.trip-off-route", ["name": .text(trip.string("traveller")), "at": .instant(since)])))
    }

    /// An alert about `trip`, with its last positions (the newest fix, then the positions recorded
    /// once a minute, newest first, five in all) and battery.
    private func tripAlert(_ trip: Row, kind: String, suffix: String, at: Date, space: String, repeats: Bool, title: String, body: String,
                           message: NotificationMessage) async throws -> Alert {
        let id = trip.string("id")
        var positions: [JSONValue] = trip["last_lat"].isNull ? [] : [[
            "lat": trip["last_lat"].jsonValue, "lon": trip["last_lon"].jsonValue, "accuracy": trip["last_accuracy"].jsonValue,
            "at": trip["last_fix_at"].jsonValue, "battery": trip["last_battery"].jsonValue]]
        for row in try await rows("""
            SELECT lat, lon, accuracy, created_at, battery FROM trip_activities WHERE trip_id = ? AND type = 'POSITION' AND created_at < ?
            ORDER BY created_at DESC LIMIT 4
            """, [.text(id), trip["last_fix_at"]]) {
            positions.append(["lat": row["lat"].jsonValue, "lon": row["lon"].jsonValue, "accuracy": row["accuracy"].jsonValue,
                              "at": row["created_at"].jsonValue, "battery": row["battery"].jsonValue])
        }
        let last = JSONValue.array(positions)
        return Alert(id: "trip-\(id)-\(suffix)", kind: kind, subjectID: id, traveller: trip.string("traveller"), space: space, dueAt: at,
                     reason: kind, title: title, body: body,
                     payload: ["trip": .string(id), "kind": .string(kind), "traveller": trip["traveller"].jsonValue, "lastPositions": last,
                               "battery": trip["last_battery"].jsonValue, "destination": trip["destination_name"].jsonValue,
                               "expectedArrivalAt": trip["expected_arrival_at"].jsonValue],
                     repeats: repeats, message: message)
    }
}
