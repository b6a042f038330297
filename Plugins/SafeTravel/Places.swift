import Foundation
import TesseraSDK

/// Places (geofences; specs/safe-travel.md §3.9, "Arrive/leave place alerts"): the traveller names
/// places — home, school, work — and their guardians are told, at normal priority (a notification,
/// never an alert with a ladder), when the traveller arrives at one or leaves it.
///
/// - **Who defines them.** The traveller, on their own device: a place tells where someone spends
///   their days, so it is theirs to choose. A place is a row of the travel space (guardians see the
///   list by sync) that guardians and the watcher may not write (`places: none` in both roles).
/// - **Crossings** are decided on the traveller's device from its location fixes, against a band:
///   inside is within `radius`, outside is beyond `radius + placeHysteresis` (50 m); a fix in
///   between keeps the state it had, so GPS jitter at the edge never flaps. A fix less accurate than
///   `placeMaxAccuracy` (100 m) decides nothing. The first decisive fix after a place is added sets
///   its state silently (adding the place you stand in is no arrival).
/// - **Once per crossing**: the state is a row of this device (`place_presence`) changed in the
///   same write that records the crossing, and the notification's key names the crossing's instant.
extension Travel {
    struct PlaceInput: Decodable, Sendable {
        var name: String
        var lat: Double
        var lon: Double
        var radius: Double?
        var notifyOn: [String]?
    }

    struct PlaceIDInput: Decodable, Sendable { var placeId: String }

    static let defaultPlaceRadius: Double = 150

    /// `place-add`: a new place of the traveller's own.
    func addPlace(_ input: PlaceInput) async throws -> JSONValue {
        let me = try await me()
        try checkPoint(input.lat, input.lon, field: "$")
        try Self.checkName(input.name, field: "$.name")
        let radius = input.radius ?? Self.defaultPlaceRadius
        guard radius.isFinite, (25...5000).contains(radius) else {
            throw PluginError.invalid("a place's radius is 25 to 5000 metres", field: "$.radius")
        }
        let notifyOn = input.notifyOn ?? ["arrive", "leave"]
        guard !notifyOn.isEmpty, notifyOn.allSatisfy({ $0 == "arrive" || $0 == "leave" }), Set(notifyOn).count == notifyOn.count else {
            throw PluginError.invalid("notifyOn lists \"arrive\", \"leave\" or both, once each", field: "$.notifyOn")
        }
        let count = Int(try await row("SELECT COUNT(*) AS n FROM places WHERE traveller = ?", [.text(me.username)])?["n"].integer ?? 0)
        guard count < config.maxPlaces else {
            throw PluginError.refused(.validation, "you have \(count) places, the most this host keeps (maxPlaces): remove one first")
        }
        let id = newID(), at = now
        try await storage.write { batch in
            batch.inSpace(me.space)
            batch.put("places", id: id, ["traveller": .text(me.username), "name": .text(input.name), "lat": .real(input.lat), "lon": .real(input.lon),
                                         "radius": .real(radius), "notify_arrive": .integer(notifyOn.contains("arrive") ? 1 : 0),
                                         "notify_leave": .integer(notifyOn.contains("leave") ? 1 : 0), "created_at": SQLValue(at)])
        }
        return try await placeJSON(id) ?? .null
    }

    /// `places`: mine first, then those of the people I guard, each with my presence where it is mine.
    func places() async throws -> JSONValue {
        let me = try await me()
        let rows = try await rows("SELECT * FROM places ORDER BY traveller != ?, traveller, name, id", [.text(me.username)])
        var list: [JSONValue] = []
        for place in rows { if let json = try await placeJSON(place.string("id")) { list.append(json) } }
        return ["places": .array(list)]
    }

    /// `place-remove`: one of my places, with its state here.
    func removePlace(_ input: PlaceIDInput) async throws -> JSONValue {
        let me = try await me()
        guard let place = try await row("SELECT traveller FROM places WHERE id = ?", [.text(input.placeId)]) else {
            throw PluginError.missing("no place \(input.placeId)", field: "$.placeId")
        }
        guard place.string("traveller") == me.username else {
            throw PluginError.forbidden(.notTripOwner, "place \(input.placeId) is \(place.string("traveller"))'s: only they can remove it")
        }
        try await storage.write { batch in
            batch.inSpace(me.space)
            batch.delete("places", id: input.placeId)
            batch.delete("place_presence", id: input.placeId)
        }
        return ["removed": .string(input.placeId)]
    }

    private func placeJSON(_ id: String) async throws -> JSONValue? {
        guard let place = try await row("SELECT * FROM places WHERE id = ?", [.text(id)]) else { return nil }
        let presence = try await row("SELECT state, since FROM place_presence WHERE id = ?", [.text(id)])
        var notifyOn: [JSONValue] = []
        if place["notify_arrive"].integer == 1 { notifyOn.append("arrive") }
        if place["notify_leave"].integer == 1 { notifyOn.append("leave") }
        return ["id": .string(id), "traveller": .string(place.string("traveller")), "name": .string(place.string("name")),
                "lat": place["lat"].jsonValue, "lon": place["lon"].jsonValue, "radius": place["radius"].jsonValue,
                "notifyOn": .array(notifyOn), "createdAt": .string(place.string("created_at")),
                "presence": .string(presence?.string("state") ?? "unknown"), "since": presence.map { JSONValue.string($0.string("since")) } ?? .null]
    }

    // MARK: Crossings

    /// A fix reached this device (Fixes.swift): each of my places may change state.
    func placesHeard(_ fix: Fix) async throws {
        guard let me = try await meIfSetUp(), !me.space.isEmpty, decides(fix, within: config.placeMaxAccuracy) else { return }
        let here = GeoPoint(latitude: fix.lat, longitude: fix.lon)
        for place in try await rows("SELECT * FROM places WHERE traveller = ?", [.text(me.username)]) {
            let id = place.string("id"), radius = place["radius"].real ?? Self.defaultPlaceRadius
            let distance = Geodesy.distance(from: here, to: GeoPoint(latitude: place["lat"].real ?? 0, longitude: place["lon"].real ?? 0))
            let previous = try await row("SELECT state, since FROM place_presence WHERE id = ?", [.text(id)])
            guard let state = Self.placeState(distance: distance, radius: radius, hysteresis: config.placeHysteresis,
                                              previous: previous?.string("state")),
                  state != previous?.string("state") else { continue }
            if let previous, let since = previous.date("since"), fix.at < since { continue }  // an older fix decides nothing
            try await storage.write { batch in
                batch.put("place_presence", id: id, ["state": .text(state), "since": SQLValue(fix.at)])
            }
            guard previous != nil else { continue }  // the first decisive fix only sets the state
            let arrived = state == "inside"
            guard place[arrived ? "notify_arrive" : "notify_leave"].integer == 1 else { continue }
            let name = place.string("name")
            await notifyGuardians(key: "place-\(id)-\(arrived ? "arrive" : "leave")-\(Instant.millis(fix.at))", space: me.space,
                                  title: arrived ? "\(me.username) arrived at \(name)" : "\(me.username) left \(name)",
                                  body: "At \(Instant.spoken(fix.at)), \(Int(distance.rounded())) m from its centre\(fix.battery.map { ", battery \($0) %" } ?? "").",
                                  message: NotificationMessage(arrived ? "notify.placeArrived" : "notify.placeLeft",
                                                               ["name": .text(me.username), "place": .text(name), "at": .instant(fix.at),
                                                                "distance": .meters(distance.rounded())]),
                                  payload: ["place": .string(id), "name": .string(name), "event": .string(arrived ? "arrive" : "leave"),
                                            "traveller": .string(me.username), "at": .string(Instant.text(fix.at)),
                                            "lat": .number(fix.lat), "lon": .number(fix.lon)],
                                  at: now)
        }
    }

    /// The band rule: inside within the radius, outside beyond it plus the hysteresis, and in
    /// between the previous state (none yet: nothing decided).
    static func placeState(distance: Double, radius: Double, hysteresis: Double, previous: String?) -> String? {
        if distance <= radius { return "inside" }
        if distance > radius + hysteresis { return "outside" }
        return previous
    }
}
