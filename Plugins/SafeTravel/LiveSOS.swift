import Foundation
import TesseraSDK

/// The live view of an SOS pressed outside a trip (issue 21): the alert carries a link, as a trip's
/// alerts do, and the link shows the SOS's own positions (`sos_positions`, one every 5 s while the
/// button is held). The link is minted by the traveller's device in the same write that creates the
/// SOS (``holdReached(_:)``), so every host that later raises the alert — the phone, a guardian's
/// host, the watcher — holds it by sync and adds it to the alert. It stops working `liveLinkGrace`
/// after the traveller is safe (the PIN in time, or reported safe after the alert), and never later
/// than `liveLinkMaxAge` after it was minted.
extension Travel {
    /// What the page shows of one SOS: its state, when it was pressed and released, its positions,
    /// the newest one with its battery, its alert — no ids, no token.
    func sosView(_ sosID: String, token: String, expires: Date, at: Date) async throws -> JSONValue {
        guard let sos = try await row("SELECT * FROM sos WHERE id = ?", [.text(sosID)]) else { throw Self.noLiveView }
        let positions = try await rows("""
            SELECT lat, lon, accuracy, battery, fix_at, recorded_at FROM sos_positions
            WHERE sos_id = ? AND lat IS NOT NULL AND lon IS NOT NULL ORDER BY recorded_at, id
            """, [.text(sosID)])
        let alerted = try await row("SELECT id FROM alerts WHERE id = ?", [.text("sos-\(sosID)")]) != nil
        var last: JSONValue = .null
        if let newest = positions.last {
            last = ["lat": newest["lat"].jsonValue, "lon": newest["lon"].jsonValue, "accuracy": newest["accuracy"].jsonValue,
                    "at": newest["fix_at"].jsonValue, "battery": newest["battery"].jsonValue]
        }
        func optional(_ column: String) -> JSONValue { sos.string(column).isEmpty ? .null : .string(sos.string(column)) }
        let alerts: [JSONValue] = try await rows("""
            SELECT a.kind, a.due_at, (SELECT COUNT(*) FROM alert_acks k WHERE k.alert_id = a.id) AS acks
            FROM alerts a WHERE a.subject_id = ? ORDER BY a.due_at, a.id
            """, [.text(sosID)]).map { ["kind": $0["kind"].jsonValue, "dueAt": $0["due_at"].jsonValue, "acknowledged": .bool(($0["acks"].integer ?? 0) > 0)] }
        return ["kind": "sos", "traveller": .string(sos.string("traveller")),
                "state": .string(alerted && sos.string("state") != "SAFE" ? "ALERTED" : sos.string("state")),
                "pressedAt": optional("pressed_at"), "releasedAt": optional("released_at"), "reportedSafeAt": optional("reported_safe_at"),
                "track": .array(Self.withoutRepeats(positions).map { ["lat": $0["lat"].jsonValue, "lon": $0["lon"].jsonValue, "at": $0["recorded_at"].jsonValue] }),
                "last": last, "battery": last["battery"] ?? .null, "alerts": .array(alerts), "route": [], "photos": [], "destination": .null,
                "linkExpiresAt": .string(Instant.text(expires)), "now": .string(Instant.text(at))]
    }
}
