import Foundation
import TesseraSDK

/// Alerts to guardians and the escalation ladder (specs/safe-travel.md §7.9).
///
/// An alert is a row with a deterministic id (`sos-<id>`, `trip-<id>-overdue-<eta ms>`, …) written
/// in the traveller's space, and a notification to the space's other members with the key
/// `alert-<id>` due at the deadline itself. The traveller's device and a watching host that
/// decide the same alert from the same records write the same row and schedule the same
/// notification occurrence, which the hub files once (its relay key is plugin, key, due instant
/// and recipient). Repeats follow every `repeatEvery`, at most `maxRepeats`, until someone
/// acknowledges.
extension Travel {
    struct Alert: Sendable {
        var id: String
        var kind: String
        var subjectID: String
        var traveller: String
        var space: String
        var dueAt: Date
        var reason: String
        var title: String
        var body: String
        var payload: JSONValue
        var repeats: Bool
        /// The title and body as the page's catalogue says them (`notify.alert.<kind>`), for each
        /// reader's own language and time zone.
        var message: NotificationMessage

        /// Someone may need help now (critical), except a low battery, which asks for attention soon.
        var priority: NotificationPriority { kind == "trip-battery" ? .timeSensitive : .critical }
    }

    static let repeatTimer = "alert-repeat"

    /// Raises `alert` once: nothing happens if its row exists. `also` adds the subject's own state
    /// change to the same write (the traveller's device only: a watcher writes only the alert).
    @discardableResult
    func raise(_ alert: Alert, also: (inout WriteBatch) -> Void = { _ in }) async throws -> Bool {
        if try await alertExists(alert.id) {
            // Decided already (here, or by a watching host): only this device's own state follows.
            var batch = WriteBatch()
            batch.inSpace(alert.space)
            also(&batch)
            if !batch.changes.isEmpty { try await storage.write(batch) }
            return false
        }
        try await storage.write { batch in
            batch.inSpace(alert.space)
            batch.put("alerts", id: alert.id, ["kind": .text(alert.kind), "subject_id": .text(alert.subjectID),
                                               "traveller": .text(alert.traveller), "due_at": SQLValue(alert.dueAt),
                                               "reason": .text(alert.reason), "summary": .text(alert.body),
                                               "repeats": alert.repeats ? 1 : 0])
            also(&batch)
        }
        log.info("alert \(alert.kind) \(alert.id) due \(Instant.text(alert.dueAt))")
        let link = try await linkForAlert(traveller: alert.traveller, kind: alert.kind, subjectID: alert.subjectID)
        let (body, payload) = Self.adding(link, body: alert.body, payload: alert.payload)
        await notifySpace(key: "alert-\(alert.id)", space: alert.space, title: alert.title, body: body,
                          message: alert.message, priority: alert.priority, payload: payload, at: alert.dueAt)
        if alert.repeats, config.maxRepeats > 0 {
            try await clock.schedule(TimerRequest(key: "\(Self.repeatTimer):\(alert.id)", name: Self.repeatTimer,
                                                  fireAt: alert.dueAt.addingTimeInterval(config.repeatEvery),
                                                  payload: ["alert": .string(alert.id), "n": 1]))
        }
        return true
    }

    /// The ladder's next rung: the same alert again, unless someone acknowledged it.
    func repeatAlert(_ firing: TimerFiring) async throws {
        guard let id = firing.payload["alert"]?.stringValue, let n = firing.payload["n"]?.integerValue,
              let alert = try await row("SELECT * FROM alerts WHERE id = ?", [.text(id)]) else { return }
        if try await isAcknowledged(id) { return }
        if try await answeredAt(alert) != nil { return }
        guard let space = try await spaceOf(traveller: alert.string("traveller")) else { return }
        let link = try await linkForAlert(traveller: alert.string("traveller"), kind: alert.string("kind"), subjectID: alert.string("subject_id"))
        let (body, payload) = Self.adding(link, body: alert.string("summary") + " (repeat \(n) of \(config.maxRepeats))",
                                          payload: ["alert": .string(id), "kind": .string(alert.string("kind")), "repeat": .integer(n)])
        let kind = alert.string("kind")
        await notifySpace(key: "alert-\(id)-r\(n)", space: space, title: "Still no answer: \(alert.string("traveller"))", body: body,
                          message: NotificationMessage("notify.repeat.\(kind)", ["name": .text(alert.string("traveller")),
                                                                                 "n": .number(Double(n)), "max": .number(Double(config.maxRepeats))]),
                          priority: kind == "trip-battery" ? .timeSensitive : .critical, payload: payload, at: firing.dueAt)
        if n < Int64(config.maxRepeats) {
            try await clock.schedule(TimerRequest(key: firing.key, name: Self.repeatTimer,
                                                  fireAt: firing.dueAt.addingTimeInterval(config.repeatEvery),
                                                  payload: ["alert": .string(id), "n": .integer(n + 1)]))
        }
    }

    /// When the traveller answered what `alert` is about, if she has, as this host's records say:
    /// an SOS reported safe, a trip ended, an overdue answered (arrived, or acknowledged after the
    /// ETA), a detour acknowledged or left, a silent phone heard from again, a check-in confirmed.
    func answeredAt(_ alert: Row) async throws -> Date? {
        let subject = alert.string("subject_id")
        switch alert.string("kind") {
        case "sos":
            guard let sos = try await row("SELECT * FROM sos WHERE id = ?", [.text(subject)]) else { return nil }
            return sos.date("reported_safe_at") ?? (sos.string("state") == "SAFE" ? sos.date("pin_entered_at") : nil)
        case "checkin-missed":
            return try await row("SELECT confirmed_at FROM checkin_answers WHERE id = ?", [.text(subject)])?.date("confirmed_at")
        case "trip-overdue", "trip-off-route", "trip-silent":
            guard let trip = try await row("SELECT * FROM trips WHERE id = ?", [.text(subject)]) else { return nil }
            if trip.string("state") != "ACTIVE" { return trip.date("ended_at") ?? now }
            // The instant the alert's deadline counts from is the last part of its id (ms).
            let base = alert.string("id").split(separator: "-").last.flatMap { Double($0) }.map { Date(timeIntervalSince1970: $0 / 1000) }
            switch alert.string("kind") {
            case "trip-overdue":
                if let arrived = trip.date("arrived_at") { return arrived }
                guard let eta = base, let answered = trip.date("acknowledged_at"), answered >= eta else { return nil }
                return answered
            case "trip-off-route":
                // Back on the route (or off it again since: a later detour), or this detour acknowledged.
                guard let since = base else { return nil }
                if trip.date("off_route_since").map({ Instant.millis($0) != Instant.millis(since) }) ?? true { return trip.date("last_fix_at") ?? now }
                guard let answered = trip.date("acknowledged_at"), answered >= since else { return nil }
                return answered
            default:
                guard let seen = base, let heard = trip.date("last_seen_at"), heard > seen else { return nil }
                return heard
            }
        default:
            return nil
        }
    }

    func alertExists(_ alertID: String) async throws -> Bool {
        try await row("SELECT id FROM alerts WHERE id = ?", [.text(alertID)]) != nil
    }

    /// A prompt to the traveller that has gone out (this device's own record; prompts are not shared).
    func markHandled(_ key: String) async throws {
        let at = now
        try await storage.write { $0.put("handled", id: key, ["at": SQLValue(at)]) }
    }

    func wasHandled(_ key: String) async throws -> Bool {
        try await row("SELECT id FROM handled WHERE id = ?", [.text(key)]) != nil
    }

    func isAcknowledged(_ alertID: String) async throws -> Bool {
        try await row("SELECT id FROM alert_acks WHERE alert_id = ?", [.text(alertID)]) != nil
    }

    struct AckInput: Decodable, Sendable { var alertId: String; var pin: String? }

    /// A guardian (or the traveller, with the PIN) acknowledges an alert: its repeats stop.
    func acknowledge(_ input: AckInput) async throws -> JSONValue {
        let me = try await me()
        guard let alert = try await row("SELECT * FROM alerts WHERE id = ?", [.text(input.alertId)]) else {
            throw PluginError.missing("no alert \(input.alertId)", field: "$.alertId")
        }
        let traveller = alert.string("traveller")
        if traveller == me.username {
            guard let pin = input.pin else { throw PluginError.invalid("your own alert needs your PIN", field: "$.pin") }
            try await verifyPIN(pin, field: "$.pin")
        }
        guard let space = try await spaceOf(traveller: traveller) else { throw PluginError.missing("no space for \(traveller)", field: "$.alertId") }
        try await writeAck(alertID: input.alertId, by: me.username, space: space)
        return ["acknowledged": .string(input.alertId)]
    }

    func writeAck(alertID: String, by person: String, space: String) async throws {
        let at = now
        try await storage.write { batch in
            batch.inSpace(space)
            batch.put("alert_acks", id: "\(alertID):\(person)", ["alert_id": .text(alertID), "by": .text(person), "acknowledged_at": SQLValue(at)])
        }
        try await clock.cancelTimer(key: "\(Self.repeatTimer):\(alertID)")
    }

    func alerts() async throws -> JSONValue {
        let list = try await rows("""
            SELECT a.*, (SELECT COUNT(*) FROM alert_acks k WHERE k.alert_id = a.id) AS acks FROM alerts a ORDER BY due_at, id
            """)
        // Each with the page of its live view when a link still works (the guardians' console opens it).
        var alerts: [JSONValue] = []
        for row in list {
            guard case .object(var members) = row.jsonObject else { continue }
            let link = try await linkForAlert(traveller: row.string("traveller"), kind: row.string("kind"), subjectID: row.string("subject_id"))
            members["livePath"] = link.map { JSONValue.string($0.path) } ?? JSONValue.null
            alerts.append(.object(members))
        }
        return ["alerts": .array(alerts)]
    }

    /// The space a traveller's records live in: this device's own, or one it guards.
    func spaceOf(traveller: String) async throws -> String? {
        if let me = try await meIfSetUp(), me.username == traveller { return me.space }
        return try await row("SELECT their_space FROM guardians WHERE username = ? AND direction = 'incoming' AND their_space != ''",
                             [.text(traveller)])?.string("their_space")
    }

    // MARK: Notifications

    /// An alert, to every member of the traveller's space (the guardians, and the traveller's own
    /// devices, which show that it went out): the same recipient, hence the same relay key, from
    /// whichever host raises it. `.spaceOthers` would leave out a watching guardian's own person.
    func notifySpace(key: String, space: String, title: String, body: String, message: NotificationMessage, priority: NotificationPriority,
                     payload: JSONValue, at: Date) async {
        await notify(NotificationRequest(key: key, title: title, body: body, message: message, priority: priority, payload: payload,
                                         recipient: .space(space), schedule: .at(at)))
    }

    /// Information from the traveller's device to every other member of their space: their guardians.
    func notifyGuardians(key: String, space: String, title: String, body: String, message: NotificationMessage,
                         priority: NotificationPriority = .normal, payload: JSONValue, at: Date) async {
        await notify(NotificationRequest(key: key, title: title, body: body, message: message, priority: priority, payload: payload,
                                         recipient: .spaceOthers(space), schedule: .at(at)))
    }

    /// To this device's own person: a reminder or a prompt.
    func notifyTraveller(key: String, title: String, body: String, message: NotificationMessage, priority: NotificationPriority = .normal,
                         payload: JSONValue, at: Date) async {
        await notify(NotificationRequest(key: key, title: title, body: body, message: message, priority: priority, payload: payload,
                                         recipient: .user, schedule: .at(at)))
    }

    /// Notifications are best effort beside the record: the alert row is the decision, and a
    /// missing grant is logged rather than undoing it.
    private func notify(_ request: NotificationRequest) async {
        guard let notifications else { log.warning("notifications are not granted: \(request.key) not sent"); return }
        do { try await notifications.schedule(request) } catch {
            log.error("notification \(request.key) could not be scheduled: \(error)")
        }
    }

    /// The alert's payload: the traveller's last positions (newest first) and battery.
    func positionsPayload(_ positions: [Row], extra: [String: JSONValue]) -> JSONValue {
        var payload = extra
        payload["lastPositions"] = .array(positions.map { position in
            ["lat": position["lat"].jsonValue, "lon": position["lon"].jsonValue, "accuracy": position["accuracy"].jsonValue,
             "at": position["fix_at"].jsonValue, "battery": position["battery"].jsonValue]
        })
        payload["battery"] = positions.first?["battery"].jsonValue ?? .null
        return .object(payload)
    }
}
