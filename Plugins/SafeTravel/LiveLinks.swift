import Foundation
import TesseraSDK

/// The guardians' read-only live view of a trip (issue 21): an unguessable, expiring link.
///
/// A link is a row of `live_links` in the traveller's space: a token of 192 bits from the system's
/// random source, the trip it shows, and when it stops working — `liveLinkMaxAge` (24 h) after it
/// was minted, and `liveLinkGrace` (1 h) after the trip ends, whichever comes first — or at once
/// when the traveller revokes it. One is minted when a trip starts, another on demand
/// (`live-link`). The token itself syncs, not only a hash: the guardians' hosts and the watcher
/// raise alerts when the phone is dead, and each alert must carry the link (docs/safetravel.md,
/// "The live view" weighs this against the hub's operator).
///
/// The page (`ui/live.html#<token>`) reads `live-view` through the edge's capability-link route
/// (`GET /v1/links/<plugin>/live-view/<token>`, docs/http.md), with no bearer token: the link is the
/// credential. An unknown, expired or revoked token gets the same `not_found`, so the answer tells
/// nothing about which tokens exist or existed.
extension Travel {
    /// Where the module's page is served on every host that runs it (the manifest's `ui`).
    static let liveViewPage = "/ui/cz.tessera.safetravel/live.html"

    struct LiveLink: Sendable {
        var token: String
        /// The trip the link shows; empty for the link of an SOS pressed outside a trip.
        var tripID: String
        var expiresAt: Date
        /// The SOS the link shows when there is no trip (``mintSOSLink(sos:at:)``); empty otherwise.
        var sosID: String = ""

        /// The page with the token in the fragment: a browser never sends the fragment to the
        /// server, so the token stays out of access logs and `Referer` headers.
        var path: String { "\(Travel.liveViewPage)#\(token)" }
        var json: JSONValue {
            var members: [String: JSONValue] = ["path": .string(path), "token": .string(token), "expiresAt": .string(Instant.text(expiresAt))]
            if sosID.isEmpty { members["tripId"] = .string(tripID) } else { members["sosId"] = .string(sosID) }
            return .object(members)
        }
    }

    /// 24 bytes (192 bits) from the system's generator (`getrandom` on Linux), as base64url
    /// without padding: 32 characters of `[A-Za-z0-9_-]` (never 64 hex digits, which sync would
    /// take for a file's address).
    static func newLinkToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<24).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }

    /// A new link of `tripID`, minted at `at`; ``put(_:traveller:at:into:)`` writes it.
    func mintLink(trip tripID: String, at: Date) -> LiveLink {
        LiveLink(token: Self.newLinkToken(), tripID: tripID, expiresAt: at.addingTimeInterval(config.liveLinkMaxAge))
    }

    /// A new link of the SOS `sosID`, pressed outside a trip: minted by the traveller's device when
    /// the SOS comes to exist, so that whichever host later raises its alert (the phone, a
    /// guardian's host, the watcher — none of which may write `live_links` but the traveller's)
    /// finds the same link in the records.
    func mintSOSLink(sos sosID: String, at: Date) -> LiveLink {
        LiveLink(token: Self.newLinkToken(), tripID: "", expiresAt: at.addingTimeInterval(config.liveLinkMaxAge), sosID: sosID)
    }

    /// Adds `link` to `batch` (the caller's write, in the traveller's space).
    static func put(_ link: LiveLink, traveller: String, at: Date, into batch: inout WriteBatch) {
        batch.put("live_links", id: RecordID.timeOrdered(at: at), ["trip_id": .text(link.tripID), "sos_id": .text(link.sosID), "traveller": .text(traveller),
                                              "token": .text(link.token), "created_at": SQLValue(at), "expires_at": SQLValue(link.expiresAt),
                                              "revoked_at": ""])
    }

    /// The SOS's newest link that still works now.
    func currentLink(sos sosID: String) async throws -> LiveLink? {
        guard let row = try await row("""
            SELECT token, expires_at FROM live_links WHERE sos_id = ? AND revoked_at = '' AND expires_at > ?
            ORDER BY created_at DESC, id DESC LIMIT 1
            """, [.text(sosID), SQLValue(now)]), let expires = row.date("expires_at") else { return nil }
        return LiveLink(token: row.string("token"), tripID: "", expiresAt: expires, sosID: sosID)
    }

    /// The SOS ended well at `at` (the PIN in time, or reported safe after the alert): its links
    /// stop `liveLinkGrace` later, as a trip's do at its end — the links to patch, and until when
    /// (read before the write; ``shorten(_:into:)`` adds the patches to it).
    func sosLinksToShorten(sos sosID: String, at: Date) async throws -> [(id: String, expiresAt: Date)] {
        let end = at.addingTimeInterval(config.liveLinkGrace)
        return try await rows("SELECT id, expires_at FROM live_links WHERE sos_id = ?", [.text(sosID)])
            .filter { ($0.date("expires_at") ?? end) > end }.map { ($0.string("id"), end) }
    }

    static func shorten(_ links: [(id: String, expiresAt: Date)], into batch: inout WriteBatch) {
        for link in links { batch.patch("live_links", id: link.id, ["expires_at": SQLValue(link.expiresAt)]) }
    }

    /// The trip's newest link that still works now.
    func currentLink(trip tripID: String) async throws -> LiveLink? {
        guard let row = try await row("""
            SELECT token, expires_at FROM live_links WHERE trip_id = ? AND revoked_at = '' AND expires_at > ?
            ORDER BY created_at DESC, id DESC LIMIT 1
            """, [.text(tripID), SQLValue(now)]), let expires = row.date("expires_at") else { return nil }
        return LiveLink(token: row.string("token"), tripID: tripID, expiresAt: expires)
    }

    /// At the trip's end every link of it stops `liveLinkGrace` later (sooner if it would anyway):
    /// the links to patch, and when each then expires.
    func linksToShorten(trip tripID: String, endedAt: Date) async throws -> [(id: String, expiresAt: Date)] {
        let end = endedAt.addingTimeInterval(config.liveLinkGrace)
        return try await rows("SELECT id, expires_at FROM live_links WHERE trip_id = ?", [.text(tripID)])
            .filter { ($0.date("expires_at") ?? end) > end }.map { ($0.string("id"), end) }
    }

    /// The link an alert about `traveller` carries: that of the trip it is about, or else of the
    /// traveller's active trip (an SOS on the way), or else that of the SOS itself (pressed outside
    /// a trip). `nil` with no working link.
    func linkForAlert(traveller: String, kind: String, subjectID: String) async throws -> LiveLink? {
        if kind.hasPrefix("trip"), let link = try await currentLink(trip: subjectID) { return link }
        if let trip = try await activeTrip(of: traveller), let link = try await currentLink(trip: trip.string("id")) { return link }
        guard kind == "sos" else { return nil }
        return try await currentLink(sos: subjectID)
    }

    /// `body` and `payload` with the link added (`liveView` in the payload, the page in the body).
    static func adding(_ link: LiveLink?, body: String, payload: JSONValue) -> (String, JSONValue) {
        guard let link, case .object(var members) = payload else { return (body, payload) }
        members["liveView"] = link.json
        return ("\(body) Live view: \(link.path) (until \(Instant.spoken(link.expiresAt))).", .object(members))
    }

    // MARK: Operations

    /// `live-link`: a new link of the traveller's own active trip (the old ones keep working until
    /// they expire or are revoked).
    func newLiveLink(_ input: TripQuery) async throws -> JSONValue {
        let (me, trip) = try await ownActiveTrip(input.tripId)
        let at = now
        let link = mintLink(trip: trip.string("id"), at: at)
        try await storage.write { batch in
            batch.inSpace(me.space)
            Self.put(link, traveller: me.username, at: at, into: &batch)
        }
        return link.json
    }

    /// `live-link-revoke`: every link of the traveller's trip (the active one, or `tripId`, ended or
    /// not) stops working at once, here and on every host that syncs the space.
    func revokeLiveLinks(_ input: TripQuery) async throws -> JSONValue {
        let (me, trip) = try await ownTrip(input.tripId)
        let at = now
        let links = try await rows("SELECT id FROM live_links WHERE trip_id = ? AND trip_id != '' AND revoked_at = ''", [.text(trip.string("id"))])
        try await storage.write { batch in
            batch.inSpace(me.space)
            for link in links { batch.patch("live_links", id: link.string("id"), ["revoked_at": SQLValue(at)]) }
        }
        return ["tripId": .string(trip.string("id")), "revoked": .integer(Int64(links.count))]
    }

    /// The traveller's own trip by id, ended or not; without an id, the active one.
    private func ownTrip(_ tripID: String?) async throws -> (Me, Row) {
        guard let tripID else { return try await ownActiveTrip(nil) }
        let me = try await me()
        guard let trip = try await row("SELECT * FROM trips WHERE id = ?", [.text(tripID)]) else {
            throw PluginError.missing("no trip \(tripID)", field: "$.tripId")
        }
        guard trip.string("traveller") == me.username else {
            throw PluginError.forbidden(.notTripOwner, "trip \(tripID) is \(trip.string("traveller"))'s: only the traveller revokes its links")
        }
        return (me, trip)
    }

    struct TokenInput: Decodable, Sendable { var token: String }

    /// The same answer for a token never minted, expired or revoked.
    static let noLiveView = PluginError(.notFound, "no live view at this link: it may have expired or been revoked")

    /// `live-view` (open to the `link` role only): what the page shows of the one trip the token
    /// names — and nothing else of the space.
    func liveView(_ input: TokenInput) async throws -> JSONValue {
        let at = now
        guard let link = try await row("SELECT trip_id, sos_id, expires_at, revoked_at FROM live_links WHERE token = ?", [.text(input.token)]),
              link.string("revoked_at").isEmpty, let expires = link.date("expires_at"), expires > at else {
            throw Self.noLiveView
        }
        if !link.string("sos_id").isEmpty {
            return try await sosView(link.string("sos_id"), token: input.token, expires: expires, at: at)
        }
        guard !link.string("trip_id").isEmpty, let trip = try await row("SELECT * FROM trips WHERE id = ?", [.text(link.string("trip_id"))]) else {
            throw Self.noLiveView
        }
        let id = trip.string("id")
        var view = try await tripSummary(trip)
        view["kind"] = "trip"
        view["track"] = .array(Self.withoutRepeats(try await rows("""
            SELECT lat, lon, created_at FROM trip_activities WHERE trip_id = ? AND lat IS NOT NULL AND lon IS NOT NULL ORDER BY created_at, id
            """, [.text(id)])).map { ["lat": $0["lat"].jsonValue, "lon": $0["lon"].jsonValue, "at": $0["created_at"].jsonValue] })
        view["photos"] = .array(try await photoRows(trip: id).map {
            ["lat": $0["lat"].jsonValue, "lon": $0["lon"].jsonValue, "at": $0["created_at"].jsonValue,
             "photo": .string(Self.photoToken(link: input.token, address: $0.string("file_ref")))]
        })
        view["alerts"] = .array(try await rows("""
            SELECT a.kind, a.due_at, (SELECT COUNT(*) FROM alert_acks k WHERE k.alert_id = a.id) AS acks
            FROM alerts a WHERE a.subject_id = ? ORDER BY a.due_at, a.id
            """, [.text(id)]).map { ["kind": $0["kind"].jsonValue, "dueAt": $0["due_at"].jsonValue, "acknowledged": .bool(($0["acks"].integer ?? 0) > 0)] })
        view["linkExpiresAt"] = .string(Instant.text(expires))
        view["now"] = .string(Instant.text(at))
        return .object(view)
    }

    /// The positions of a trip's activities, each kept once while the traveller stays put (a
    /// photo and a message at one fix are one point of the track).
    static func withoutRepeats(_ positions: [Row]) -> [Row] {
        var kept: [Row] = []
        for position in positions where kept.last.map({ $0["lat"] != position["lat"] || $0["lon"] != position["lon"] }) ?? true {
            kept.append(position)
        }
        return kept
    }

    /// The trip's own fields the live view shows, by name (never the whole row).
    private func tripSummary(_ trip: Row) async throws -> [String: JSONValue] {
        var destination: JSONValue = .null
        if let lat = trip["dest_lat"].real, let lon = trip["dest_lon"].real {
            destination = ["name": .string(trip.string("destination_name")), "lat": .number(lat), "lon": .number(lon),
                           "radius": .number(config.arrivalRadius)]
        }
        var last: JSONValue = .null
        if let lat = trip["last_lat"].real, let lon = trip["last_lon"].real {
            last = ["lat": .number(lat), "lon": .number(lon), "accuracy": trip["last_accuracy"].jsonValue,
                    "at": trip["last_fix_at"].jsonValue, "battery": trip["last_battery"].jsonValue]
        }
        let route = (try? JSONValue(parsing: trip.string("route"))) ?? []
        func optional(_ column: String) -> JSONValue { trip.string(column).isEmpty ? .null : .string(trip.string(column)) }
        return ["traveller": .string(trip.string("traveller")), "state": .string(trip.string("state")),
                "startedAt": optional("started_at"), "endedAt": optional("ended_at"), "arrivedAt": optional("arrived_at"),
                "expectedArrivalAt": optional("expected_arrival_at"), "destination": destination, "route": route,
                "last": last, "battery": trip["last_battery"].jsonValue]
    }
}
