import Foundation
import TesseraSDK

/// Positions: from the location feed (OwnTracks, GPX replay, gpsd) and from the client's own
/// reports (the thesis's `sosPositionUpdate` and the trip's heartbeat). Every fix is checked here
/// before anything is written.
extension Travel {
    struct Fix: Sendable {
        var lat: Double
        var lon: Double
        var accuracy: Double?
        var battery: Int?
        var at: Date
        var device: String
    }

    struct PositionInput: Decodable, Sendable {
        var lat: Double
        var lon: Double
        var accuracy: Double?
        var battery: Int?
        var at: String?
    }

    /// A position reported by the traveller's client: checked, then handled as a feed fix is.
    func report(_ input: PositionInput) async throws -> JSONValue {
        _ = try await me()
        let at = try input.at.map { text -> Date in
            guard let date = Instant.date(text) else { throw PluginError.invalid("not an ISO 8601 date-time", field: "$.at") }
            return date
        } ?? now
        let fix = Fix(lat: input.lat, lon: input.lon, accuracy: input.accuracy, battery: input.battery, at: at, device: "client")
        try check(fix, field: "$")
        try await take(fix)
        return ["accepted": true, "at": .string(Instant.text(at))]
    }

    /// A fix from the host's location feed (already checked by the feed; checked again here).
    func feed(_ fix: LocationFix) async throws {
        guard try await meIfSetUp() != nil else { return }
        let taken = Fix(lat: fix.latitude, lon: fix.longitude, accuracy: fix.accuracy, battery: fix.battery, at: fix.timestamp, device: fix.deviceID)
        do { try check(taken, field: "$") } catch {
            log.warning("a fix from \(fix.deviceID) was ignored: \(error)")
            return
        }
        try await take(taken)
    }

    /// A name a person gave (a destination, a place): no control characters (a NUL, a line break),
    /// which would show as nothing, or break a notification's line, on the guardians' screens.
    static func checkName(_ name: String, field: String) throws {
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw PluginError.invalid("a name has no control characters (such as NUL or a line break)", field: field)
        }
    }

    /// The oldest fix taken: a day.
    static let maxFixAge: TimeInterval = 86_400

    /// Impossible coordinates, a negative accuracy, a battery outside 0–100, a time in the
    /// future (beyond `futureMargin` of clock skew) or more than a day back are refused, naming the field.
    func check(_ fix: Fix, field: String) throws {
        guard fix.lat.isFinite, (-90...90).contains(fix.lat) else {
            throw PluginError.invalid("latitude \(fix.lat) is outside -90…90", field: "\(field).lat", .impossibleCoordinates)
        }
        guard fix.lon.isFinite, (-180...180).contains(fix.lon) else {
            throw PluginError.invalid("longitude \(fix.lon) is outside -180…180", field: "\(field).lon", .impossibleCoordinates)
        }
        if let accuracy = fix.accuracy, !(accuracy.isFinite && accuracy >= 0) {
            throw PluginError.invalid("accuracy must be 0 or more metres", field: "\(field).accuracy")
        }
        if let battery = fix.battery, !(0...100).contains(battery) {
            throw PluginError.invalid("battery is a percentage, 0 to 100", field: "\(field).battery")
        }
        // A fix from more than a day ago decides nothing now (a phone with a wrong date, a replayed
        // file): refused rather than taken as her position.
        guard fix.at >= now.addingTimeInterval(-Self.maxFixAge) else {
            throw PluginError.invalid("the fix is from \(Instant.text(fix.at)), more than a day before the host's clock (\(Instant.text(now)))",
                                      field: "\(field).at", .fixTooOld)
        }
        let limit = now.addingTimeInterval(config.futureMargin)
        guard fix.at <= limit else {
            throw PluginError.invalid("the fix is from \(Instant.text(fix.at)), after the host's clock (\(Instant.text(now))) by more than \(Int(config.futureMargin)) s",
                                      field: "\(field).at", .fixFromFuture)
        }
    }

    /// Keeps the newest fix and hands it to the SOS in progress and the active trip.
    private func take(_ fix: Fix) async throws {
        if let previous = try await lastFix(), fix.at < previous.at { return }  // older than what we hold: history only
        try await storage.write { batch in
            batch.put("last_fix", id: "last", ["lat": .real(fix.lat), "lon": .real(fix.lon), "accuracy": SQLValue(fix.accuracy),
                                               "battery": SQLValue(fix.battery), "fix_at": SQLValue(fix.at), "device": .text(fix.device)])
        }
        try await sosHeard(fix)
        try await tripHeard(fix)
        try await placesHeard(fix)
    }

    func lastFix() async throws -> Fix? {
        guard let row = try await row("SELECT * FROM last_fix WHERE id = 'last'"), let at = row.date("fix_at") else { return nil }
        return Fix(lat: row["lat"].real ?? 0, lon: row["lon"].real ?? 0, accuracy: row["accuracy"].real,
                   battery: row["battery"].integer.map(Int.init), at: at, device: row.string("device"))
    }

    /// Good enough to decide arrival or deviation with (`maxAccuracyForDecisions`); an unknown
    /// accuracy counts as good, as a GPX replay carries none.
    func decides(_ fix: Fix, within limit: Double? = nil) -> Bool {
        guard let accuracy = fix.accuracy else { return true }
        return accuracy <= (limit ?? config.maxAccuracyForDecisions)
    }
}
