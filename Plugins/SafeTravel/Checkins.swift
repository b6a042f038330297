import Foundation
import TesseraSDK

/// Check-ins (F5, §3.3): one-time and periodic (from, to, every 5–60 minutes), confirmed by the
/// target with their position; the requester and the watchers are told. Beyond the thesis: a
/// slot not confirmed within `missTimeout` (one-time) or min(period, `missTimeout`) (periodic)
/// is MISSED and escalates to the guardians; a periodic request can be cancelled.
///
///     request: ACTIVE → COMPLETED (its last slot created) | CANCELLED (checkin-cancel)
///     slot:    PENDING → CONFIRMED | MISSED → CONFIRMED_LATE | CANCELLED
///
/// A request lives in the target's travel space, so the target's devices and the requester's see
/// it. Slot ids are `<request>:<n>`, so every host that holds the request creates the same slots.
/// The target may be oneself: a traveller's own "are you OK?" every 15 minutes, which the
/// guardians hear about if it goes unanswered (the interviewee's "just tapping every 10–30
/// minutes", L295).
extension Travel {
    static let slotTimer = "checkin-slot", missTimer = "checkin-miss"

    struct CheckinRequestInput: Decodable, Sendable {
        var target: String
        var startsAt: String?
        var endsAt: String?
        var periodMinutes: Int?
    }

    func requestCheckin(_ input: CheckinRequestInput, periodic: Bool) async throws -> JSONValue {
        let me = try await me()
        guard let space = try await spaceOf(traveller: input.target) else {
            throw PluginError.refused(.notAContact, "\(input.target) is not someone you guard (nor you)")
        }
        let at = now
        var values: [String: SQLValue] = ["requester": .text(me.username), "target": .text(input.target), "state": "ACTIVE", "created_at": SQLValue(at)]
        if periodic {
            guard let period = input.periodMinutes, config.periodOptions.contains(period) else {
                throw PluginError.invalid("the period is one of \(config.periodOptions.map(String.init).joined(separator: ", ")) minutes", field: "$.periodMinutes")
            }
            guard let startsText = input.startsAt, let starts = Instant.date(startsText) else { throw PluginError.invalid("not an ISO 8601 date-time", field: "$.startsAt") }
            if let endsText = input.endsAt, let ends = Instant.date(endsText), ends <= starts {
                throw PluginError.invalid("the end \(endsText) is not after the start \(startsText)", field: "$.endsAt")
            }
            let ends = try futureInstant(input.endsAt ?? "", field: "$.endsAt", after: max(starts, at))
            guard starts >= at.addingTimeInterval(-60) else { throw PluginError.invalid("the start \(startsText) is in the past", field: "$.startsAt", .etaInPast) }
            values["type"] = "PERIODIC"; values["starts_at"] = SQLValue(starts); values["ends_at"] = SQLValue(ends)
            values["period_minutes"] = .integer(Int64(period))
        } else {
            values["type"] = "ONE_TIME"; values["starts_at"] = SQLValue(at); values["ends_at"] = SQLValue(at)
        }
        let id = newID()
        try await storage.write { [values] batch in
            batch.inSpace(space)
            batch.put("checkin_requests", id: id, values)
        }
        if periodic {
            try await armCheckins(id)
        } else {
            // A one-time request is sent at once, not on the next scheduler pass (§4.9: that wait alone
            // would use up N4's budget).
            try await slotDue(TimerFiring(key: "\(Self.slotTimer):\(id)", name: Self.slotTimer, dueAt: at, firedAt: at,
                                          payload: ["request": .string(id), "slot": 0]))
        }
        return try await checkinRequest(id)
    }

    /// The instant of slot `n`.
    private func slotAt(_ request: Row, _ n: Int) -> Date? {
        guard let starts = request.date("starts_at") else { return nil }
        return starts.addingTimeInterval(TimeInterval(n) * TimeInterval(request["period_minutes"].integer ?? 0) * 60)
    }

    private func lastSlot(_ request: Row) -> Int {
        guard request.string("type") == "PERIODIC", let starts = request.date("starts_at"), let ends = request.date("ends_at"),
              let period = request["period_minutes"].integer, period > 0 else { return 0 }
        return Int((ends.timeIntervalSince(starts) / TimeInterval(period * 60)).rounded(.down))  // endsAt is inclusive
    }

    private func missTimeout(_ request: Row) -> TimeInterval {
        guard request.string("type") == "PERIODIC", let period = request["period_minutes"].integer else { return config.missTimeout }
        return min(TimeInterval(period * 60), config.missTimeout)
    }

    /// Arms the next slot and the miss deadline of every unanswered slot, from the records.
    func armCheckins(_ requestID: String) async throws {
        guard let request = try await row("SELECT * FROM checkin_requests WHERE id = ?", [.text(requestID)]) else { return }
        let slots = try await rows("SELECT c.*, a.id AS answered FROM checkins c LEFT JOIN checkin_answers a ON a.id = c.id WHERE request_id = ? ORDER BY slot",
                                   [.text(requestID)])
        let active = request.string("state") == "ACTIVE"
        let next = (slots.last.map { Int($0["slot"].integer ?? 0) + 1 }) ?? 0
        if active, next <= lastSlot(request), let at = slotAt(request, next) {
            try await clock.schedule(TimerRequest(key: "\(Self.slotTimer):\(requestID)", name: Self.slotTimer, fireAt: at,
                                                  payload: ["request": .string(requestID), "slot": .integer(Int64(next))]))
        } else {
            try await clock.cancelTimer(key: "\(Self.slotTimer):\(requestID)")
        }
        try await promptTarget(request, slots: slots)
        for slot in slots {
            let key = "\(Self.missTimer):\(slot.string("id"))"
            // At the moment this host decides (Authority.swift): never on a guardian's device.
            if slot.string("state") == "PENDING", slot["answered"].isNull, let at = slot.date("slot_at"),
               let decided = try await decisionTime(at.addingTimeInterval(missTimeout(request)), traveller: request.string("target")) {
                try await clock.schedule(TimerRequest(key: key, name: Self.missTimer, fireAt: decided, payload: ["checkin": slot["id"].jsonValue]))
            } else {
                try await clock.cancelTimer(key: key)
            }
        }
    }

    /// On the target's device: "Are you OK?" for each open slot, once, whichever host made the
    /// slot (a guardian's one-time request makes it at once, on the guardian's device; it reaches
    /// hers by sync, and that is when she is asked).
    private func promptTarget(_ request: Row, slots: [Row]) async throws {
        guard try await meIfSetUp()?.username == request.string("target") else { return }
        for slot in slots where slot.string("state") == "PENDING" && slot["answered"].isNull {
            let id = slot.string("id"), key = "checkin-\(id)"
            guard try await !wasHandled(key), let at = slot.date("slot_at") else { continue }
            try await markHandled(key)
            await notifyTraveller(key: key, title: "Are you OK?", body: "\(request.string("requester")) asks you to check in.",
                                  message: NotificationMessage("notify.checkinAsked", ["requester": .text(request.string("requester"))]),
                                  priority: .timeSensitive, payload: ["checkin": .string(id), "action": "checkin-confirm"], at: at)
        }
    }

    /// A slot is due: the check-in exists, and the target is asked. After downtime only the
    /// latest missed slot is created (§7.7 `checkin.catchUp`).
    func slotDue(_ firing: TimerFiring) async throws {
        guard let requestID = firing.payload["request"]?.stringValue, let first = firing.payload["slot"]?.integerValue,
              let request = try await row("SELECT * FROM checkin_requests WHERE id = ?", [.text(requestID)]), request.string("state") == "ACTIVE",
              let space = try await spaceOf(traveller: request.string("target")) else { return }
        var n = Int(first)
        while n < lastSlot(request), let next = slotAt(request, n + 1), next <= firing.firedAt { n += 1 }
        guard let at = slotAt(request, n) else { return }
        let id = "\(requestID):\(n)"
        try await storage.write { batch in
            batch.inSpace(space)
            batch.put("checkins", id: id, ["request_id": .text(requestID), "slot": .integer(Int64(n)), "slot_at": SQLValue(at), "state": "PENDING"])
            if n >= lastSlot(request) { batch.patch("checkin_requests", id: requestID, ["state": "COMPLETED"]) }
        }
        try await armCheckins(requestID)
    }

    /// No answer in time: MISSED, and the guardians (the space's other members) are told.
    func missDue(_ firing: TimerFiring) async throws {
        guard let id = firing.payload["checkin"]?.stringValue,
              let slot = try await row("SELECT * FROM checkins WHERE id = ?", [.text(id)]), slot.string("state") == "PENDING",
              try await row("SELECT id FROM checkin_answers WHERE id = ?", [.text(id)]) == nil,
              let request = try await row("SELECT * FROM checkin_requests WHERE id = ?", [.text(slot.string("request_id"))]),
              let space = try await spaceOf(traveller: request.string("target")), let slotAt = slot.date("slot_at"),
              try await decides(for: request.string("target")) else { return }
        let at = try await alertDue(slotAt.addingTimeInterval(missTimeout(request)))
        try await raise(Alert(id: "checkin-\(id)-missed", kind: "checkin-missed", subjectID: id, traveller: request.string("target"), space: space,
                              dueAt: at, reason: "CHECKIN_MISSED", title: "\(request.string("target")) did not check in",
                              body: "The check-in due at \(Instant.spoken(slotAt)) (asked by \(request.string("requester"))) was not confirmed.",
                              payload: ["checkin": .string(id), "request": .string(request.string("id")), "target": .string(request.string("target")),
                                        "slotAt": .string(Instant.text(slotAt))],
                              repeats: false,
                              message: NotificationMessage("notify.alert.checkin-missed", ["name": .text(request.string("target")),
                                                                                          "requester": .text(request.string("requester")),
                                                                                          "at": .instant(slotAt)]))) { batch in
            batch.patch("checkins", id: id, ["state": "MISSED", "missed_at": SQLValue(at)])
        }
    }

    struct ConfirmInput: Decodable, Sendable { var checkinId: String; var lat: Double?; var lon: Double?; var accuracy: Double? }

    func confirmCheckin(_ input: ConfirmInput) async throws -> JSONValue {
        let me = try await me()
        guard let slot = try await row("SELECT * FROM checkins WHERE id = ?", [.text(input.checkinId)]),
              let request = try await row("SELECT * FROM checkin_requests WHERE id = ?", [.text(slot.string("request_id"))]) else {
            throw PluginError.missing("no check-in \(input.checkinId)", field: "$.checkinId")
        }
        guard request.string("target") == me.username else {
            throw PluginError.forbidden(.notTarget, "only \(request.string("target")) can confirm this check-in")
        }
        guard ["PENDING", "MISSED"].contains(slot.string("state")) else {
            throw PluginError.refused(.invalidState, "this check-in is \(slot.string("state"))")
        }
        var position: (lat: Double, lon: Double, accuracy: Double?)?
        if let lat = input.lat, let lon = input.lon {
            try checkPoint(lat, lon, field: "$")
            position = (lat, lon, input.accuracy)
        } else if input.lat != nil || input.lon != nil {
            throw PluginError.invalid("give both lat and lon, or neither", field: input.lat == nil ? "$.lat" : "$.lon")
        } else if let fix = try await lastFix() {
            position = (fix.lat, fix.lon, fix.accuracy)
        }
        let at = now, state = slot.string("state") == "MISSED" ? "CONFIRMED_LATE" : "CONFIRMED"
        try await storage.write { batch in
            batch.inSpace(me.space)
            batch.put("checkin_answers", id: input.checkinId, ["confirmed_at": SQLValue(at), "by": .text(me.username),
                                                               "lat": SQLValue(position?.lat), "lon": SQLValue(position?.lon), "accuracy": SQLValue(position?.accuracy)])
            batch.patch("checkins", id: input.checkinId, ["state": .text(state)])
        }
        try await armCheckins(request.string("id"))
        await notifyGuardians(key: "checkin-confirmed-\(input.checkinId)", space: me.space, title: "\(me.username) is OK",
                              body: "Checked in at \(Instant.spoken(at))\(position.map { " at \($0.lat), \($0.lon)" } ?? "").",
                              message: NotificationMessage("notify.checkinConfirmed", ["name": .text(me.username), "at": .instant(at)]),
                              priority: .timeSensitive,
                              payload: ["checkin": .string(input.checkinId), "confirmedAt": .string(Instant.text(at)),
                                        "lat": SQLValue(position?.lat).jsonValue, "lon": SQLValue(position?.lon).jsonValue], at: at)
        return ["checkinId": .string(input.checkinId), "state": .string(state), "confirmedAt": .string(Instant.text(at))]
    }

    struct CancelInput: Decodable, Sendable { var requestId: String }

    func cancelCheckins(_ input: CancelInput) async throws -> JSONValue {
        let me = try await me()
        guard let request = try await row("SELECT * FROM checkin_requests WHERE id = ?", [.text(input.requestId)]) else {
            throw PluginError.missing("no check-in request \(input.requestId)", field: "$.requestId")
        }
        guard request.string("requester") == me.username else {
            throw PluginError.forbidden(.notRequester, "only \(request.string("requester")), who asked, can cancel it")
        }
        guard request.string("type") == "PERIODIC", request.string("state") == "ACTIVE" else {
            throw PluginError.refused(.invalidState, "only an active periodic request can be cancelled (this one is \(request.string("type")), \(request.string("state")))")
        }
        guard let space = try await spaceOf(traveller: request.string("target")) else { return [:] }
        let pending = try await rows("SELECT c.id FROM checkins c LEFT JOIN checkin_answers a ON a.id = c.id WHERE c.request_id = ? AND c.state = 'PENDING' AND a.id IS NULL",
                                     [.text(input.requestId)])
        let at = now
        try await storage.write { batch in
            batch.inSpace(space)
            batch.patch("checkin_requests", id: input.requestId, ["state": "CANCELLED", "cancelled_at": SQLValue(at)])
            for slot in pending { batch.patch("checkins", id: slot.string("id"), ["state": "CANCELLED"]) }
        }
        for slot in pending { try await notifications?.cancel(key: "checkin-\(slot.string("id"))") }
        try await armCheckins(input.requestId)
        return try await checkinRequest(input.requestId)
    }

    func checkinRequest(_ id: String) async throws -> JSONValue {
        guard let request = try await row("SELECT * FROM checkin_requests WHERE id = ?", [.text(id)]) else {
            throw PluginError.missing("no check-in request \(id)", field: "$.requestId")
        }
        var out = request.jsonObject.objectValue ?? [:]
        out["checkins"] = .array(try await rows("""
            SELECT c.id, c.slot, c.slot_at, c.state, c.missed_at, a.confirmed_at, a.lat, a.lon FROM checkins c
            LEFT JOIN checkin_answers a ON a.id = c.id WHERE c.request_id = ? ORDER BY c.slot
            """, [.text(id)]).map(\.jsonObject))
        return .object(out)
    }

    /// How long a missed check-in stays in the badge: a day, while an answer still tells the
    /// requester something ("she is safe"); older misses are history, not something to do.
    static let missedStaysInBadge: TimeInterval = 86400

    /// Requests for me, requests I follow, and the badge: my unanswered check-ins (the pending
    /// ones, and those missed in the last day).
    func checkins() async throws -> JSONValue {
        let me = try await me()
        let forMe = try await rows("SELECT id FROM checkin_requests WHERE target = ? ORDER BY created_at DESC", [.text(me.username)])
        let iFollow = try await rows("SELECT id FROM checkin_requests WHERE requester = ? AND target != ? ORDER BY created_at DESC",
                                     [.text(me.username), .text(me.username)])
        let pending = try await rows("""
            SELECT c.id, c.slot_at, r.requester FROM checkins c JOIN checkin_requests r ON r.id = c.request_id
            LEFT JOIN checkin_answers a ON a.id = c.id
            WHERE r.target = ? AND a.id IS NULL AND (c.state = 'PENDING' OR (c.state = 'MISSED' AND c.slot_at >= ?)) ORDER BY c.slot_at
            """, [.text(me.username), SQLValue(now.addingTimeInterval(-Self.missedStaysInBadge))])
        var mine: [JSONValue] = [], followed: [JSONValue] = []
        for request in forMe { mine.append(try await checkinRequest(request.string("id"))) }
        for request in iFollow { followed.append(try await checkinRequest(request.string("id"))) }
        return ["badge": .integer(Int64(pending.count)), "unanswered": .array(pending.map(\.jsonObject)),
                "requestsForMe": .array(mine), "requestsIFollow": .array(followed)]
    }
}
