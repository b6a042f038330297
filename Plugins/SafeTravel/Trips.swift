import Foundation
import TesseraSDK

/// Trips (F7, §3.4): a destination (history, favourites), an expected arrival, a plan of quick
/// actions, messages and photos stamped with position and battery, the SOS at hand, recovery
/// after a restart (the active trip is a record; its deadlines are re-armed at start), and the end
/// with the PIN. The monitors (arrival, deviation, silence, battery) are in TripMonitors.swift.
///
///     ACTIVE → ENDED (trip-end with the PIN)
///     flags on ACTIVE: arrived_at, eta_passed_at, off_route_since, acknowledged_at; alerts as rows
extension Travel {
    struct Destination: Decodable, Sendable { var id: String?; var name: String?; var lat: Double?; var lon: Double? }
    struct Point: Decodable, Sendable { var lat: Double; var lon: Double }

    struct TripInput: Decodable, Sendable {
        var destination: Destination?
        var expectedArrivalAt: String?
        var plan: [String]?
        var route: [Point]?
    }

    func startTrip(_ input: TripInput) async throws -> JSONValue {
        let me = try await me()
        try await requireGuardian()
        if try await activeTrip(of: me.username) != nil { throw PluginError.refused(.tripAlreadyActive, "a trip is already active: end it first") }
        let at = now
        let eta = try input.expectedArrivalAt.map { try futureInstant($0, field: "$.expectedArrivalAt", after: at) }
        let destination = try await resolveDestination(input.destination, traveller: me.username, at: at)
        if let route = input.route {
            for (i, point) in route.enumerated() { try checkPoint(point.lat, point.lon, field: "$.route[\(i)]") }
        }
        let routeText = input.route.map { route in JSONValue.array(route.map { [.number($0.lat), .number($0.lon)] }).serialized() } ?? ""
        let id = newID()
        let link = mintLink(trip: id, at: at)
        try await storage.write { batch in
            batch.inSpace(me.space)
            Self.put(link, traveller: me.username, at: at, into: &batch)
            if let destination, destination.createdAt != nil {
                // One from the history: only its last use changes (a favourite set on another
                // device meanwhile stays).
                batch.patch("destinations", id: destination.id, ["last_used_at": SQLValue(at)])
            } else if let destination {
                batch.put("destinations", id: destination.id, ["traveller": .text(me.username), "name": .text(destination.name),
                                                                "lat": .real(destination.lat), "lon": .real(destination.lon),
                                                                "is_favourite": .integer(destination.favourite ? 1 : 0),
                                                                "last_used_at": SQLValue(at), "created_at": .text(Instant.text(at))])
            }
            batch.put("trips", id: id, ["traveller": .text(me.username), "state": "ACTIVE", "destination_id": .text(destination?.id ?? ""),
                                        "destination_name": .text(destination?.name ?? ""), "dest_lat": SQLValue(destination?.lat),
                                        "dest_lon": SQLValue(destination?.lon), "expected_arrival_at": eta.map(SQLValue.init) ?? "",
                                        "started_at": SQLValue(at), "route": .text(routeText), "last_seen_at": SQLValue(at)])
            for (i, action) in (input.plan ?? []).enumerated() {
                batch.put("trip_plan", id: "\(id):\(i)", ["trip_id": .text(id), "position": .integer(Int64(i)), "action": .text(action)])
            }
            batch.put("trip_activities", id: newID(), ["trip_id": .text(id), "type": "SYSTEM", "created_at": SQLValue(at), "message": "started"])
        }
        try await armTrip(id)
        let towards = destination.map { " to \($0.name)" } ?? ""
        let (body, payload) = Self.adding(link, body: eta.map { "Expected at \(Instant.text($0))." } ?? "No arrival time given.",
                                          payload: ["trip": .string(id), "traveller": .string(me.username)])
        var values: [String: NotificationValue] = ["name": .text(me.username)]
        if let destination { values["place"] = .text(destination.name) }
        if let eta { values["eta"] = .instant(eta) }
        let started = "notify.tripStarted" + (destination == nil ? "" : "To") + (eta == nil ? "" : "WithEta")
        await notifyGuardians(key: "trip-started-\(id)", space: me.space, title: "\(me.username) set off\(towards)",
                              body: body, message: NotificationMessage(started, values), payload: payload, at: at)
        return try await tripStatus(TripQuery(tripId: id))
    }

    struct ResolvedDestination { var id: String; var name: String; var lat: Double; var lon: Double; var favourite: Bool; var createdAt: String? }

    /// An existing destination by id (the history), or a new one by name and coordinates.
    private func resolveDestination(_ input: Destination?, traveller: String, at: Date) async throws -> ResolvedDestination? {
        guard let input else { return nil }
        if let id = input.id {
            guard let row = try await row("SELECT * FROM destinations WHERE id = ? AND traveller = ?", [.text(id), .text(traveller)]) else {
                throw PluginError.missing("no destination \(id) in your history", field: "$.destination.id")
            }
            return ResolvedDestination(id: id, name: row.string("name"), lat: row["lat"].real ?? 0, lon: row["lon"].real ?? 0,
                                       favourite: row["is_favourite"].integer == 1, createdAt: row.string("created_at"))
        }
        guard let name = input.name?.trimmingCharacters(in: .whitespaces), !name.isEmpty, let lat = input.lat, let lon = input.lon else {
            throw PluginError.invalid("a destination is {id} from the history or {name, lat, lon}", field: "$.destination")
        }
        try Self.checkName(name, field: "$.destination.name")
        try checkPoint(lat, lon, field: "$.destination")
        // The same place typed again (its name, within the arrival radius) is the history's entry,
        // not a new one: the history lists each place once.
        if let known = try await sameDestination(name: name, lat: lat, lon: lon, traveller: traveller) { return known }
        return ResolvedDestination(id: newID(), name: name, lat: lat, lon: lon, favourite: false, createdAt: nil)
    }

    /// How near two positions of one name must be to be the same destination: the arrival radius.
    static let sameDestinationMetres = 100.0

    private func sameDestination(name: String, lat: Double, lon: Double, traveller: String) async throws -> ResolvedDestination? {
        let candidates = try await rows("SELECT * FROM destinations WHERE traveller = ? AND lower(name) = lower(?) ORDER BY last_used_at DESC",
                                        [.text(traveller), .text(name)])
        guard let row = candidates.first(where: { Self.metres(lat, lon, $0["lat"].real ?? 0, $0["lon"].real ?? 0) <= Self.sameDestinationMetres }) else {
            return nil
        }
        return ResolvedDestination(id: row.string("id"), name: row.string("name"), lat: row["lat"].real ?? 0, lon: row["lon"].real ?? 0,
                                   favourite: row["is_favourite"].integer == 1, createdAt: row.string("created_at"))
    }

    func checkPoint(_ lat: Double, _ lon: Double, field: String) throws {
        guard lat.isFinite, (-90...90).contains(lat) else { throw PluginError.invalid("latitude \(lat) is outside -90…90", field: "\(field).lat", .impossibleCoordinates) }
        guard lon.isFinite, (-180...180).contains(lon) else { throw PluginError.invalid("longitude \(lon) is outside -180…180", field: "\(field).lon", .impossibleCoordinates) }
    }

    func futureInstant(_ text: String, field: String, after at: Date) throws -> Date {
        guard let date = Instant.date(text) else { throw PluginError.invalid("not an ISO 8601 date-time", field: field) }
        guard date > at else { throw PluginError.invalid("\(text) is not after now (\(Instant.text(at)))", field: field, .etaInPast) }
        return date
    }

    func activeTrip(of traveller: String) async throws -> Row? {
        try await row("SELECT * FROM trips WHERE traveller = ? AND state = 'ACTIVE' ORDER BY started_at DESC LIMIT 1", [.text(traveller)])
    }

    /// The traveller's own active trip, for a change; a trip id of someone else's trip (a guardian
    /// sees it by sync) is refused, naming the rule.
    func ownActiveTrip(_ tripID: String?) async throws -> (Me, Row) {
        let me = try await me()
        if let tripID {
            guard let trip = try await row("SELECT * FROM trips WHERE id = ?", [.text(tripID)]) else {
                throw PluginError.missing("no trip \(tripID)", field: "$.tripId")
            }
            guard trip.string("traveller") == me.username else {
                throw PluginError.forbidden(.notTripOwner, "trip \(tripID) is \(trip.string("traveller"))'s: a guardian can read it, never change it")
            }
            guard trip.string("state") == "ACTIVE" else { throw PluginError.refused(.invalidState, "trip \(tripID) has ended") }
            return (me, trip)
        }
        guard let trip = try await activeTrip(of: me.username) else { throw PluginError.refused(.noActiveTrip, "no trip is active") }
        return (me, trip)
    }

    struct ActivityInput: Decodable, Sendable {
        var tripId: String?
        var text: String?
        var fileRef: String?
        var action: String?
    }

    func addMessage(_ input: ActivityInput) async throws -> JSONValue {
        guard let text = input.text, !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw PluginError.invalid("a message needs text (a photo may go without: trip-photo)", field: "$.text")
        }
        return try await addActivity(input.tripId, type: "MESSAGE", values: ["message": .text(text), "file_ref": .text(input.fileRef ?? "")])
    }

    func addQuickAction(_ input: ActivityInput) async throws -> JSONValue {
        guard let action = input.action else { throw PluginError.invalid("which quick action", field: "$.action") }
        return try await addActivity(input.tripId, type: "QUICK_ACTION", values: ["quick_action": .text(action)])
    }

    /// The double tap (L1961): the next planned action.
    func takeNextPlanned(_ input: ActivityInput) async throws -> JSONValue {
        let (_, trip) = try await ownActiveTrip(input.tripId)
        guard let next = try await row("SELECT action FROM trip_plan WHERE trip_id = ? AND position = ?",
                                       [.text(trip.string("id")), trip["next_plan_index"]]) else {
            throw PluginError.refused(.invalidState, "the plan has no next action")
        }
        return try await addActivity(trip.string("id"), type: "QUICK_ACTION", values: ["quick_action": .text(next.string("action"))])
    }

    /// An activity stamped with the newest fix and battery; it is also a sign of life. A quick
    /// action that is the next planned one moves the plan on.
    func addActivity(_ tripID: String?, type: String, values: [String: SQLValue]) async throws -> JSONValue {
        let (me, trip) = try await ownActiveTrip(tripID)
        let id = newID(), at = now, tripID = trip.string("id")
        let fix = try await lastFix()
        var planIndex = trip["next_plan_index"].integer ?? 0
        if let action = values["quick_action"]?.text,
           try await row("SELECT action FROM trip_plan WHERE trip_id = ? AND position = ?", [.text(tripID), .integer(planIndex)])?.string("action") == action {
            planIndex += 1
        }
        var row = values
        row["trip_id"] = .text(tripID); row["type"] = .text(type); row["created_at"] = SQLValue(at)
        row["lat"] = SQLValue(fix?.lat); row["lon"] = SQLValue(fix?.lon); row["accuracy"] = SQLValue(fix?.accuracy); row["battery"] = SQLValue(fix?.battery)
        try await storage.write { [row] batch in
            batch.inSpace(me.space)
            batch.put("trip_activities", id: id, row)
            batch.patch("trips", id: tripID, ["next_plan_index": .integer(planIndex), "last_seen_at": SQLValue(at)])
        }
        try await armTrip(tripID)
        let what = values["quick_action"]?.text ?? values["message"]?.text ?? type
        await notifyGuardians(key: "trip-activity-\(id)", space: me.space, title: "\(me.username): \(type == "PHOTO" ? "photo" : what)",
                              body: fix.map { "At \($0.lat), \($0.lon)\($0.battery.map { ", battery \($0) %" } ?? "")." } ?? "No position yet.",
                              message: NotificationMessage(type == "PHOTO" ? "notify.activityPhoto" : "notify.activity",
                                                           ["name": .text(me.username), "what": .text(what), "at": .instant(at)]),
                              payload: ["trip": .string(tripID), "activity": .string(id), "type": .string(type)], at: at)
        return ["activityId": .string(id), "type": .string(type), "nextPlanIndex": .integer(planIndex),
                "lat": SQLValue(fix?.lat).jsonValue, "lon": SQLValue(fix?.lon).jsonValue, "battery": SQLValue(fix?.battery).jsonValue]
    }

    struct ETAInput: Decodable, Sendable { var tripId: String?; var expectedArrivalAt: String }

    /// A new arrival time (the testers' wish, L2266): the ETA deadlines move with it.
    func updateETA(_ input: ETAInput) async throws -> JSONValue {
        let (me, trip) = try await ownActiveTrip(input.tripId)
        let eta = try futureInstant(input.expectedArrivalAt, field: "$.expectedArrivalAt", after: now)
        try await storage.write { batch in
            batch.inSpace(me.space)
            batch.patch("trips", id: trip.string("id"), ["expected_arrival_at": SQLValue(eta), "eta_passed_at": ""])
        }
        try await armTrip(trip.string("id"))
        return try await tripStatus(TripQuery(tripId: trip.string("id")))
    }

    struct PINTripInput: Decodable, Sendable { var tripId: String?; var pin: String }

    /// Answers an "ETA passed" or "off route" prompt with the PIN: the overdue deadline of this ETA
    /// and the current detour are answered (no alert, no new prompt for them: the detour's is
    /// watched again once she is back on the route), and open alerts of the trip are acknowledged,
    /// so their repeats stop everywhere.
    func acknowledgeTrip(_ input: PINTripInput) async throws -> JSONValue {
        let (me, trip) = try await ownActiveTrip(input.tripId)
        try await verifyPIN(input.pin, field: "$.pin")
        let id = trip.string("id"), at = now
        try await storage.write { batch in
            batch.inSpace(me.space)
            batch.patch("trips", id: id, ["acknowledged_at": SQLValue(at)])
        }
        try await acknowledgeOpenAlerts(of: id, by: me)
        try await armTrip(id)
        return try await tripStatus(TripQuery(tripId: id))
    }

    /// Acknowledges every alert about `subject` that nobody has: their repeats stop on every host,
    /// and the guardians, who were alerted, are told she is safe.
    func acknowledgeOpenAlerts(of subject: String, by me: Me) async throws {
        let at = now
        for alert in try await rows("SELECT id FROM alerts WHERE subject_id = ?", [.text(subject)]) {
            let id = alert.string("id")
            guard try await !isAcknowledged(id) else { continue }
            try await writeAck(alertID: id, by: me.username, space: me.space)
            await notifyGuardians(key: "safe-\(id)", space: me.space, title: "\(me.username) is safe",
                                  body: "\(me.username) answered with their PIN at \(Instant.spoken(at)).",
                                  message: NotificationMessage("notify.safe", ["name": .text(me.username), "at": .instant(at)]),
                                  priority: .timeSensitive,
                                  payload: ["alert": .string(id), "answeredAt": .string(Instant.text(at))], at: at)
        }
    }

    func endTrip(_ input: PINTripInput) async throws -> JSONValue {
        let (me, trip) = try await ownActiveTrip(input.tripId)
        try await verifyPIN(input.pin, field: "$.pin")
        let id = trip.string("id"), at = now
        let shortened = try await linksToShorten(trip: id, endedAt: at)
        try await storage.write { batch in
            batch.inSpace(me.space)
            batch.patch("trips", id: id, ["state": "ENDED", "ended_at": SQLValue(at)])
            for link in shortened { batch.patch("live_links", id: link.id, ["expires_at": SQLValue(link.expiresAt)]) }
            batch.put("trip_activities", id: newID(), ["trip_id": .text(id), "type": "SYSTEM", "created_at": SQLValue(at), "message": "ended"])
        }
        try await armTrip(id)
        // Ended with her PIN: she is safe. The alerts' repeats stop on every host (the watcher's too).
        try await acknowledgeOpenAlerts(of: id, by: me)
        await notifyGuardians(key: "trip-ended-\(id)", space: me.space, title: "\(me.username) ended the trip", body: "Ended at \(Instant.spoken(at)).",
                              message: NotificationMessage("notify.tripEnded", ["name": .text(me.username), "at": .instant(at)]),
                              payload: ["trip": .string(id)], at: at)
        return try await tripStatus(TripQuery(tripId: id))
    }

    struct TripQuery: Decodable, Sendable { var tripId: String? }

    /// The trip, its plan and flags, distance to the destination, last fix and alerts (§7.5).
    func tripStatus(_ input: TripQuery) async throws -> JSONValue {
        let me = try await me()
        let trip: Row?
        if let id = input.tripId { trip = try await row("SELECT * FROM trips WHERE id = ?", [.text(id)]) } else { trip = try await activeTrip(of: me.username) }
        guard let trip else {
            if input.tripId != nil { throw PluginError.missing("no trip \(input.tripId ?? "")", field: "$.tripId") }
            return ["active": false]
        }
        let id = trip.string("id")
        var out = trip.jsonObject.objectValue ?? [:]
        out["active"] = .bool(trip.string("state") == "ACTIVE")
        out["plan"] = .array(try await rows("SELECT position, action FROM trip_plan WHERE trip_id = ? ORDER BY position", [.text(id)]).map { $0["action"].jsonValue })
        out["alerts"] = .array(try await rows("SELECT id, kind, due_at, reason FROM alerts WHERE subject_id = ? ORDER BY due_at", [.text(id)]).map(\.jsonObject))
        if let lat = trip["last_lat"].real, let lon = trip["last_lon"].real, let dlat = trip["dest_lat"].real, let dlon = trip["dest_lon"].real {
            out["distanceToDestination"] = .number((Geodesy.distance(from: GeoPoint(latitude: lat, longitude: lon), to: GeoPoint(latitude: dlat, longitude: dlon)) * 10).rounded() / 10)
        }
        out["liveLink"] = try await currentLink(trip: id)?.json ?? .null
        return .object(out)
    }

    func trips() async throws -> JSONValue {
        // The id breaks a tie of start times, so a person's two devices list the same trips in the
        // same order (the month soak found two trips started in one second listed either way).
        ["trips": .array(try await rows("SELECT * FROM trips ORDER BY started_at DESC, id DESC").map(\.jsonObject))]
    }

    struct TripIDInput: Decodable, Sendable { var tripId: String }

    func activities(_ input: TripIDInput) async throws -> JSONValue {
        guard try await row("SELECT id FROM trips WHERE id = ?", [.text(input.tripId)]) != nil else {
            throw PluginError.missing("no trip \(input.tripId)", field: "$.tripId")
        }
        return ["activities": .array(try await rows("SELECT * FROM trip_activities WHERE trip_id = ? ORDER BY created_at, id", [.text(input.tripId)]).map(\.jsonObject))]
    }

    /// The destination history, favourites first, then the most recently used.
    /// The history, each place once: entries of one name within the arrival radius (typed again
    /// before this rule, or on two devices at once) show as their most recently used one, a
    /// favourite if any of them is.
    func destinations() async throws -> JSONValue {
        let me = try await me()
        let all = try await rows("SELECT id, name, lat, lon, is_favourite, last_used_at FROM destinations WHERE traveller = ? ORDER BY last_used_at DESC",
                                 [.text(me.username)])
        var kept: [(row: Row, favourite: Bool)] = []
        for row in all where !kept.contains(where: { Self.isSamePlace($0.row, row) }) {
            kept.append((row, all.contains { Self.isSamePlace($0, row) && $0["is_favourite"].integer == 1 }))
        }
        // Favourites first, then the most recently used (the order `all` came in; sorting is stable).
        let ordered = kept.filter(\.favourite) + kept.filter { !$0.favourite }
        return ["destinations": .array(ordered.map { entry in
            guard case .object(var members) = entry.row.jsonObject else { return entry.row.jsonObject }
            members["is_favourite"] = .integer(entry.favourite ? 1 : 0)
            return .object(members)
        })]
    }

    static func metres(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        Geodesy.distance(from: GeoPoint(latitude: lat1, longitude: lon1), to: GeoPoint(latitude: lat2, longitude: lon2))
    }

    private static func isSamePlace(_ a: Row, _ b: Row) -> Bool {
        a.string("name").lowercased() == b.string("name").lowercased()
            && metres(a["lat"].real ?? 0, a["lon"].real ?? 0, b["lat"].real ?? 0, b["lon"].real ?? 0) <= sameDestinationMetres
    }

    struct DestinationIDInput: Decodable, Sendable { var destinationId: String }

    func toggleFavourite(_ input: DestinationIDInput) async throws -> JSONValue {
        let me = try await me()
        guard let row = try await row("SELECT is_favourite FROM destinations WHERE id = ? AND traveller = ?", [.text(input.destinationId), .text(me.username)]) else {
            throw PluginError.missing("no destination \(input.destinationId) in your history", field: "$.destinationId")
        }
        let favourite = row["is_favourite"].integer != 1
        try await storage.write { batch in
            batch.inSpace(me.space)
            batch.patch("destinations", id: input.destinationId, ["is_favourite": .integer(favourite ? 1 : 0)])
        }
        return ["destinationId": .string(input.destinationId), "favourite": .bool(favourite)]
    }
}
