import Foundation
import TesseraSDK

/// Data retention and deletion (specs/safe-travel.md §3.9, §7.11): where a traveller has been is
/// kept only as long as it helps. A finished trip, or a finished SOS, with no alert is deleted
/// `retentionDays` (30) after it ended — the trip, its plan, activities (positions, messages,
/// photos), live links; the SOS and its positions; a check-in request with its slots and answers
/// (which carry the position they were confirmed at). One that raised an alert (a missed slot) is kept
/// `alertRetentionDays` (365) instead, with its alerts and acknowledgements: an emergency may need
/// looking back at, and the traveller can still delete it at once (`trip-delete`, `sos-delete`).
///
/// Only the traveller's own device deletes: the rows are deleted through the record API in the
/// travel space, so the deletions sync (tombstones) to the hub and drop the guardians' and the
/// watcher's copies at their next round; a photo is unlinked here and freed by each host's files
/// collector (and the hub's) once no record names it. Guardians' and the watcher's roles cannot
/// write the traveller's tables, so their hosts never purge: their copies follow the traveller's.
extension Travel {
    static let purgeTimer = "retention-purge"

    /// Arms the purge at start unless it is armed already (a restart does not push it back).
    func startPurging() async throws {
        let pending = try await clock.pendingTimers()
        guard !pending.contains(where: { $0.key == Self.purgeTimer }) else { return }
        try await clock.schedule(TimerRequest(key: Self.purgeTimer, name: Self.purgeTimer, fireAt: now.addingTimeInterval(config.purgeEvery)))
    }

    /// Every `purgeEvery` on the host's clock: deletes what is past its retention, then re-arms.
    func purgeDue(_ firing: TimerFiring) async throws {
        let next = max(firing.dueAt.addingTimeInterval(config.purgeEvery), now.addingTimeInterval(1))
        try await clock.schedule(TimerRequest(key: Self.purgeTimer, name: Self.purgeTimer, fireAt: next))
        let removed = try await purgeExpired()
        if removed > 0 { log.info("retention: \(removed) records past their retention deleted") }
    }

    /// Deletes this traveller's finished trips and SOS past their retention; the number of rows deleted.
    @discardableResult
    func purgeExpired() async throws -> Int {
        guard let me = try await meIfSetUp(), !me.space.isEmpty, config.watcherName == nil else { return 0 }
        let plain = now.addingTimeInterval(-Double(config.retentionDays) * 86_400)
        let alerted = now.addingTimeInterval(-Double(config.alertRetentionDays) * 86_400)
        var removed = 0
        let trips = try await rows("SELECT id, ended_at FROM trips WHERE traveller = ? AND state = 'ENDED' AND ended_at < ? ORDER BY ended_at",
                                   [.text(me.username), SQLValue(plain)])
        for trip in trips {
            let id = trip.string("id")
            let cutoff = try await tripHadAlert(id) ? alerted : plain
            if let ended = trip.date("ended_at"), ended < cutoff { removed += try await deleteTrip(id, space: me.space) }
        }
        for sos in try await rows("SELECT * FROM sos WHERE traveller = ? AND state IN ('SAFE', 'ALERTED')", [.text(me.username)]) {
            let id = sos.string("id")
            let cutoff = try await sosHadAlert(sos) ? alerted : plain
            if Self.sosFinishedAt(sos) < cutoff { removed += try await deleteSOS(id, space: me.space) }
        }
        for request in try await rows("SELECT * FROM checkin_requests WHERE target = ?", [.text(me.username)]) {
            let id = request.string("id")
            let slots = try await rows("SELECT id, state FROM checkins WHERE request_id = ?", [.text(id)])
            let cutoff = slots.contains { $0.string("state") == "MISSED" } ? alerted : plain
            if let finished = request.date("cancelled_at") ?? request.date("ends_at"), finished < cutoff {
                removed += try await deleteCheckins(id, slots: slots.map { $0.string("id") }, space: me.space)
            }
        }
        return removed
    }

    /// A check-in request of mine (in my space, whoever asked), its slots, the answers (with the
    /// positions they were confirmed at) and the alerts of missed slots.
    private func deleteCheckins(_ id: String, slots: [String], space: String) async throws -> Int {
        var deletions: [(table: String, id: String)] = []
        for slot in slots {
            deletions.append(("checkin_answers", slot))  // an answer's id is its slot's
            deletions += try await alertDeletions(subject: slot)
            deletions.append(("checkins", slot))
        }
        deletions.append(("checkin_requests", id))
        try await delete(deletions, space: space)
        return deletions.count
    }

    /// A trip "had an alert" when an alert row names it, or an SOS pressed during it alerted.
    func tripHadAlert(_ id: String) async throws -> Bool {
        if try await row("SELECT id FROM alerts WHERE subject_id = ? LIMIT 1", [.text(id)]) != nil { return true }
        return try await row("SELECT id FROM sos WHERE trip_id = ? AND alerted_at != '' LIMIT 1", [.text(id)]) != nil
    }

    private func sosHadAlert(_ sos: Row) async throws -> Bool {
        if !sos.string("alerted_at").isEmpty || sos.string("state") == "ALERTED" { return true }
        return try await row("SELECT id FROM alerts WHERE subject_id = ? LIMIT 1", [.text(sos.string("id"))]) != nil
    }

    /// The last thing that happened to an SOS: from then its retention counts.
    static func sosFinishedAt(_ sos: Row) -> Date {
        ["pressed_at", "released_at", "pin_entered_at", "alerted_at", "reported_safe_at"].compactMap { sos.date($0) }.max() ?? .distantPast
    }

    // MARK: Deleting

    /// The trip with everything that hangs off it. Batches of at most `purgeBatch` deletions, the
    /// trip's own row in the last one: a crash midway leaves the trip to be found next time.
    func deleteTrip(_ id: String, space: String) async throws -> Int {
        var deletions: [(table: String, id: String)] = []
        var photos: [(address: String, activity: String)] = []
        for activity in try await rows("SELECT id, type, file_ref FROM trip_activities WHERE trip_id = ?", [.text(id)]) {
            deletions.append(("trip_activities", activity.string("id")))
            if activity.string("type") == "PHOTO", !activity.string("file_ref").isEmpty {
                photos.append((activity.string("file_ref"), activity.string("id")))
            }
        }
        for plan in try await rows("SELECT id FROM trip_plan WHERE trip_id = ?", [.text(id)]) { deletions.append(("trip_plan", plan.string("id"))) }
        for link in try await rows("SELECT id FROM live_links WHERE trip_id = ?", [.text(id)]) { deletions.append(("live_links", link.string("id"))) }
        deletions += try await alertDeletions(subject: id)
        for sos in try await rows("SELECT id FROM sos WHERE trip_id = ?", [.text(id)]) { deletions += try await sosDeletions(sos.string("id")) }
        deletions.append(("trips", id))
        try await delete(deletions, space: space)
        for alert in try await rows("SELECT id FROM alerts WHERE subject_id = ?", [.text(id)]) {
            try await clock.cancelTimer(key: "\(Self.repeatTimer):\(alert.string("id"))")
        }
        if let files {
            for photo in photos {
                // The rows are gone; a photo left linked is only kept until the files' sweep.
                do { try await files.unlink(photo.address, table: "trip_activities", id: photo.activity) } catch {
                    log.warning("retention: photo \(photo.address) of a deleted trip was not unlinked: \(error)")
                }
            }
        }
        return deletions.count
    }

    func deleteSOS(_ id: String, space: String) async throws -> Int {
        let deletions = try await sosDeletions(id)
        try await delete(deletions, space: space)
        return deletions.count
    }

    /// The SOS's positions, links, alerts and acknowledgements, then the SOS itself.
    private func sosDeletions(_ id: String) async throws -> [(table: String, id: String)] {
        var deletions: [(table: String, id: String)] = []
        for position in try await rows("SELECT id FROM sos_positions WHERE sos_id = ?", [.text(id)]) { deletions.append(("sos_positions", position.string("id"))) }
        for link in try await rows("SELECT id FROM live_links WHERE sos_id = ?", [.text(id)]) { deletions.append(("live_links", link.string("id"))) }
        deletions += try await alertDeletions(subject: id)
        deletions.append(("sos", id))
        return deletions
    }

    private func alertDeletions(subject: String) async throws -> [(table: String, id: String)] {
        var deletions: [(table: String, id: String)] = []
        for alert in try await rows("SELECT id FROM alerts WHERE subject_id = ?", [.text(subject)]) {
            for ack in try await rows("SELECT id FROM alert_acks WHERE alert_id = ?", [.text(alert.string("id"))]) { deletions.append(("alert_acks", ack.string("id"))) }
            deletions.append(("alerts", alert.string("id")))
        }
        return deletions
    }

    private func delete(_ deletions: [(table: String, id: String)], space: String) async throws {
        let size = max(1, config.purgeBatch)
        for start in stride(from: 0, to: deletions.count, by: size) {
            let chunk = deletions[start..<min(start + size, deletions.count)]
            try await storage.write { batch in
                batch.inSpace(space)
                for deletion in chunk { batch.delete(deletion.table, id: deletion.id) }
            }
        }
    }

    // MARK: Deleting now, by the traveller

    struct DeleteTripInput: Decodable, Sendable { var tripId: String; var pin: String }
    struct DeleteSOSInput: Decodable, Sendable { var sosId: String; var pin: String }

    /// `trip-delete`: a finished trip of the traveller's own, with its positions, activities,
    /// photos, links and alerts, now — on every device after its next round. The PIN guards it
    /// (a phone taken from the traveller must not erase where they went).
    func deleteTripNow(_ input: DeleteTripInput) async throws -> JSONValue {
        let me = try await me()
        guard let trip = try await row("SELECT traveller, state FROM trips WHERE id = ?", [.text(input.tripId)]) else {
            throw PluginError.missing("no trip \(input.tripId)", field: "$.tripId")
        }
        guard trip.string("traveller") == me.username else {
            throw PluginError.forbidden(.notTripOwner, "trip \(input.tripId) is \(trip.string("traveller"))'s: only they can delete it")
        }
        guard trip.string("state") == "ENDED" else {
            throw PluginError.refused(.invalidState, "trip \(input.tripId) is still active: end it first (trip-end)")
        }
        try await verifyPIN(input.pin, field: "$.pin")
        let removed = try await deleteTrip(input.tripId, space: me.space)
        return ["deleted": .string(input.tripId), "records": .integer(Int64(removed))]
    }

    /// `sos-delete`: a finished SOS (safe, or alerted and reported safe) of the traveller's own, now.
    func deleteSOSNow(_ input: DeleteSOSInput) async throws -> JSONValue {
        let me = try await me()
        guard let sos = try await row("SELECT * FROM sos WHERE id = ?", [.text(input.sosId)]) else {
            throw PluginError.missing("no SOS \(input.sosId)", field: "$.sosId")
        }
        guard sos.string("traveller") == me.username else {
            throw PluginError.forbidden(.notTripOwner, "SOS \(input.sosId) is \(sos.string("traveller"))'s: only they can delete it")
        }
        let finished = sos.string("state") == "SAFE" || (sos.string("state") == "ALERTED" && !sos.string("reported_safe_at").isEmpty)
        guard finished else {
            throw PluginError.refused(.invalidState, "SOS \(input.sosId) is not over: enter your PIN first (sos-enter-pin)")
        }
        try await verifyPIN(input.pin, field: "$.pin")
        let removed = try await deleteSOS(input.sosId, space: me.space)
        return ["deleted": .string(input.sosId), "records": .integer(Int64(removed))]
    }
}
