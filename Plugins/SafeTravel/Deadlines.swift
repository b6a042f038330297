import Foundation
import TesseraSDK

/// Re-arming every deadline from the records: at start (an unfinished trip or SOS after a
/// restart), and after a sync round brought records from another host. The same code runs on
/// the traveller's device and on a watching host, so both hold the same timers and decide the
/// same way from the same records (docs/safetravel.md, "Deadlines on the hub").
extension Travel {
    func rearmAll() async throws {
        for sos in try await rows("SELECT id FROM sos WHERE state IN ('HOLDING', 'RELEASED')") { try await armSOS(sos.string("id")) }
        for trip in try await rows("SELECT id FROM trips WHERE state = 'ACTIVE'") { try await armTrip(trip.string("id")) }
        for request in try await rows("SELECT id FROM checkin_requests") { try await armCheckins(request.string("id")) }
    }

    /// Records changed by another host: re-arm what they touch; the rows that ended (a SAFE SOS,
    /// an ended trip, a cancelled request) cancel their timers the same way.
    func remoteChanged(_ changes: RemoteChanges) async throws {
        for row in changes.rows {
            switch row.table {
            case "sos": try await armSOS(row.id)
            case "trips": try await armTrip(row.id)
            case "checkin_requests": try await armCheckins(row.id)
            case "checkins", "checkin_answers":
                if let slot = try await self.row("SELECT request_id FROM checkins WHERE id = ?", [.text(row.id)]) {
                    try await armCheckins(slot.string("request_id"))
                }
            case "alerts": try await alertArrived(row.id)
            case "alert_acks":
                if let ack = try await self.row("SELECT alert_id FROM alert_acks WHERE id = ?", [.text(row.id)]) {
                    try await clock.cancelTimer(key: "\(Self.repeatTimer):\(ack.string("alert_id"))")
                }
            default: break
            }
        }
        if !changes.droppedSpaces.isEmpty { try await rearmAll() }
    }
}
