import Foundation
import TesseraSDK

/// The SOS button (F6, specs/safe-travel.md §3.2, §7.8):
///
///     IDLE → ARMING (touch-down) → HOLDING (held 3 s) → RELEASED (touch-up) → SAFE (PIN in time)
///     ARMING → IDLE (touch-up before 3 s: no record)
///     HOLDING → ALERTED(DEVICE_SILENT) (no fix nor report for 15 s: the phone died while held)
///     RELEASED → ALERTED(PIN_TIMEOUT) (no PIN by release + 10 s window + 5 s grace)
///     HOLDING | RELEASED → ALERTED(USER_IMMEDIATE) (alert-now)
///     ALERTED → ALERTED with reported_safe_at (the PIN after the alert)
extension Travel {
    static let holdTimer = "sos-hold", sampleTimer = "sos-sample", silenceTimer = "sos-silence", deadlineTimer = "sos-deadline"

    func touchDown() async throws -> JSONValue {
        let me = try await me()
        try await requireGuardian()
        let arming = try await row("SELECT id FROM sos_arming"), open = try await openSOS(of: me.username)
        if arming != nil || open != nil {
            throw PluginError.refused(.invalidState, "an SOS is already in progress")
        }
        let id = newID(), at = now
        try await storage.write { $0.put("sos_arming", id: id, ["touch_down_at": SQLValue(at)]) }
        try await clock.schedule(TimerRequest(key: Self.holdTimer, name: Self.holdTimer, fireAt: at.addingTimeInterval(config.holdThreshold),
                                              payload: ["sos": .string(id)]))
        return ["state": "ARMING", "sosId": .string(id), "holdUntil": .string(Instant.text(at.addingTimeInterval(config.holdThreshold)))]
    }

    func touchUp() async throws -> JSONValue {
        let me = try await me()
        if let arming = try await row("SELECT id FROM sos_arming") {
            try await storage.write { $0.delete("sos_arming", id: arming.string("id")) }
            try await clock.cancelTimer(key: Self.holdTimer)
            return ["state": "IDLE", "aborted": true]
        }
        guard let sos = try await openSOS(of: me.username), sos.string("state") == "HOLDING" else {
            throw PluginError.refused(.invalidState, "the SOS button is not held")
        }
        let id = sos.string("id"), at = now, deadline = at.addingTimeInterval(config.sosDeadline)
        try await storage.write { batch in
            batch.inSpace(me.space)
            batch.patch("sos", id: id, ["state": "RELEASED", "released_at": SQLValue(at), "deadline_at": SQLValue(deadline)])
        }
        try await clock.cancelTimer(key: "\(Self.sampleTimer):\(id)")
        try await armSOS(id)
        await notifyTraveller(key: "sos-pin-\(id)", title: "Enter your PIN", body: "Your guardians will be alerted at \(Instant.spoken(deadline)) unless you enter your PIN.",
                              message: NotificationMessage("notify.sosPin", ["at": .instant(deadline)]), priority: .timeSensitive,
                              payload: ["sos": .string(id)], at: at.addingTimeInterval(config.pinWindow))
        return ["state": "RELEASED", "sosId": .string(id), "pinWindowEndsAt": .string(Instant.text(at.addingTimeInterval(config.pinWindow))),
                "deadlineAt": .string(Instant.text(deadline))]
    }

    /// The hold reached 3 s: the SOS exists from now on, with its first position.
    func holdReached(_ firing: TimerFiring) async throws {
        guard let id = firing.payload["sos"]?.stringValue, try await row("SELECT id FROM sos_arming WHERE id = ?", [.text(id)]) != nil,
              let me = try await meIfSetUp() else { return }
        let at = firing.dueAt
        let trip = try await activeTrip(of: me.username)?.string("id") ?? ""
        // Outside a trip the SOS gets a live-view link of its own (LiveSOS.swift), in the same write.
        let link = trip.isEmpty ? mintSOSLink(sos: id, at: at) : nil
        try await storage.write { batch in
            batch.delete("sos_arming", id: id)
            batch.inSpace(me.space)
            if let link { Self.put(link, traveller: me.username, at: at, into: &batch) }
            batch.put("sos", id: id, ["traveller": .text(me.username), "trip_id": .text(trip), "state": "HOLDING",
                                      "pressed_at": SQLValue(at), "last_seen_at": SQLValue(at)])
        }
        try await samplePosition(id, at: at, space: me.space)
        try await clock.schedule(TimerRequest(key: "\(Self.sampleTimer):\(id)", name: Self.sampleTimer,
                                              fireAt: at.addingTimeInterval(config.positionInterval), payload: ["sos": .string(id)]))
        try await armSOS(id)
    }

    /// Every 5 s while held: the newest fix, even if unchanged (its own time says how old it is).
    func sampleDue(_ firing: TimerFiring) async throws {
        guard let id = firing.payload["sos"]?.stringValue, let me = try await meIfSetUp(),
              let sos = try await row("SELECT state FROM sos WHERE id = ?", [.text(id)]), sos.string("state") == "HOLDING" else { return }
        try await samplePosition(id, at: firing.dueAt, space: me.space)
        try await clock.schedule(TimerRequest(key: firing.key, name: Self.sampleTimer,
                                              fireAt: firing.dueAt.addingTimeInterval(config.positionInterval), payload: firing.payload))
    }

    private func samplePosition(_ sos: String, at: Date, space: String) async throws {
        guard let fix = try await lastFix() else { return }
        try await storage.write { batch in
            batch.inSpace(space)
            batch.put("sos_positions", id: "\(sos):\(Instant.millis(at))", [
                "sos_id": .text(sos), "recorded_at": SQLValue(at), "lat": .real(fix.lat), "lon": .real(fix.lon),
                "accuracy": SQLValue(fix.accuracy), "fix_at": SQLValue(fix.at), "battery": SQLValue(fix.battery)])
        }
    }

    /// A fix or a client report while the button is held: the device is alive; the silence
    /// deadline moves to this fix + `holdSilence`.
    func sosHeard(_ fix: Fix) async throws {
        guard let me = try await meIfSetUp(), let sos = try await openSOS(of: me.username), sos.string("state") == "HOLDING",
              fix.at > (sos.date("last_seen_at") ?? .distantPast) else { return }
        let id = sos.string("id")
        try await storage.write { batch in
            batch.inSpace(me.space)
            batch.patch("sos", id: id, ["last_seen_at": SQLValue(fix.at)])
        }
        try await armSOS(id)
    }

    /// Arms the deadlines the record implies; the same on the traveller's device and on a watcher.
    func armSOS(_ id: String) async throws {
        guard let sos = try await row("SELECT * FROM sos WHERE id = ?", [.text(id)]) else { return }
        let alerted = try await row("SELECT id FROM alerts WHERE id = ?", [.text("sos-\(id)")]) != nil
        switch (sos.string("state"), alerted) {
        // At the moment this host decides (Authority.swift: the SOS deadlines carry their own grace).
        case ("HOLDING", false):
            if let seen = sos.date("last_seen_at"),
               let at = try await decisionTime(seen.addingTimeInterval(config.holdSilence), traveller: sos.string("traveller"), synced: false) {
                try await clock.schedule(TimerRequest(key: "\(Self.silenceTimer):\(id)", name: Self.silenceTimer,
                                                      fireAt: at, payload: ["sos": .string(id)]))
            }
        case ("RELEASED", false):
            try await clock.cancelTimer(key: "\(Self.silenceTimer):\(id)")
            if let deadline = sos.date("deadline_at"), let at = try await decisionTime(deadline, traveller: sos.string("traveller"), synced: false) {
                try await clock.schedule(TimerRequest(key: "\(Self.deadlineTimer):\(id)", name: Self.deadlineTimer,
                                                      fireAt: at, payload: ["sos": .string(id)]))
            }
        default:
            for timer in [Self.silenceTimer, Self.deadlineTimer, Self.sampleTimer] { try await clock.cancelTimer(key: "\(timer):\(id)") }
        }
    }

    /// The phone went silent while the button was held (F8): alert at the last sign of life + 15 s.
    func silenceDue(_ firing: TimerFiring) async throws {
        guard let id = firing.payload["sos"]?.stringValue, let sos = try await row("SELECT * FROM sos WHERE id = ?", [.text(id)]),
              sos.string("state") == "HOLDING", let seen = sos.date("last_seen_at"),
              seen.addingTimeInterval(config.holdSilence) <= firing.dueAt,
              try await decides(for: sos.string("traveller")) else { return }
        try await alertSOS(sos, reason: "DEVICE_SILENT", at: seen.addingTimeInterval(config.holdSilence))
    }

    /// No PIN by the deadline: alert.
    func deadlineDue(_ firing: TimerFiring) async throws {
        guard let id = firing.payload["sos"]?.stringValue, let sos = try await row("SELECT * FROM sos WHERE id = ?", [.text(id)]),
              sos.string("state") == "RELEASED", let deadline = sos.date("deadline_at"), deadline <= firing.dueAt,
              try await decides(for: sos.string("traveller")) else { return }
        try await alertSOS(sos, reason: "PIN_TIMEOUT", at: deadline)
    }

    struct PINInput: Decodable, Sendable { var pin: String }

    func enterSOSPIN(_ input: PINInput) async throws -> JSONValue {
        let me = try await me()
        guard let sos = try await row("""
            SELECT * FROM sos WHERE traveller = ? AND (state IN ('RELEASED', 'HOLDING') OR (state = 'ALERTED' AND reported_safe_at = ''))
            ORDER BY pressed_at DESC LIMIT 1
            """, [.text(me.username)]) else {
            throw PluginError.refused(.invalidState, "no SOS waits for a PIN")
        }
        guard sos.string("state") != "HOLDING" else { throw PluginError.refused(.invalidState, "release the button first") }
        try await verifyPIN(input.pin, field: "$.pin")
        let id = sos.string("id"), at = now
        try await notifications?.cancel(key: "sos-pin-\(id)")
        if sos.string("state") == "RELEASED", let deadline = sos.date("deadline_at") {
            if at <= deadline, try await row("SELECT id FROM alerts WHERE id = ?", [.text("sos-\(id)")]) == nil {
                let links = try await sosLinksToShorten(sos: id, at: at)
                try await storage.write { batch in
                    batch.inSpace(me.space)
                    batch.patch("sos", id: id, ["state": "SAFE", "pin_entered_at": SQLValue(at)])
                    Self.shorten(links, into: &batch)
                }
                try await armSOS(id)
                return ["state": "SAFE", "sosId": .string(id)]
            }
            // Past the deadline with the timer not yet run (the host was busy or down): the alert
            // goes out first, at its deadline, so that no alert is lost; then the report of safety.
            try await alertSOS(sos, reason: "PIN_TIMEOUT", at: deadline)
        }
        let links = try await sosLinksToShorten(sos: id, at: at)
        try await storage.write { batch in
            batch.inSpace(me.space)
            batch.patch("sos", id: id, ["state": "ALERTED", "reported_safe_at": SQLValue(at), "pin_entered_at": SQLValue(at)])
            Self.shorten(links, into: &batch)
        }
        try await writeAck(alertID: "sos-\(id)", by: me.username, space: me.space)
        await notifyGuardians(key: "sos-safe-\(id)", space: me.space, title: "\(me.username) reports being safe",
                              body: "\(me.username) entered their PIN after the SOS alert, at \(Instant.spoken(at)).",
                              message: NotificationMessage("notify.safeAfterSOS", ["name": .text(me.username), "at": .instant(at)]),
                              priority: .timeSensitive,
                              payload: ["sos": .string(id), "reportedSafeAt": .string(Instant.text(at))], at: at)
        return ["state": "ALERTED", "sosId": .string(id), "reportedSafeAt": .string(Instant.text(at))]
    }

    /// "Alert now" (the testers' request, L2202): from HOLDING or RELEASED, without waiting.
    func alertNow() async throws -> JSONValue {
        let me = try await me()
        if let arming = try await row("SELECT id FROM sos_arming") {
            // Pressed for less than the hold: the explicit request is the intent; the SOS starts now.
            try await clock.cancelTimer(key: Self.holdTimer)
            try await holdReached(TimerFiring(key: Self.holdTimer, name: Self.holdTimer, dueAt: now, firedAt: now,
                                              payload: ["sos": .string(arming.string("id"))]))
        }
        guard let sos = try await openSOS(of: me.username) else { throw PluginError.refused(.invalidState, "no SOS is in progress") }
        try await alertSOS(sos, reason: "USER_IMMEDIATE", at: now)
        return ["state": "ALERTED", "sosId": .string(sos.string("id")), "reason": "USER_IMMEDIATE"]
    }

    private func alertSOS(_ sos: Row, reason: String, at: Date) async throws {
        let id = sos.string("id"), traveller = sos.string("traveller")
        guard let space = try await spaceOf(traveller: traveller) else { return }
        let positions = try await rows("SELECT * FROM sos_positions WHERE sos_id = ? ORDER BY recorded_at DESC LIMIT 5", [.text(id)])
        let last = positions.first.map { " Last position \($0["lat"].real ?? 0), \($0["lon"].real ?? 0) at \($0.string("fix_at"))." } ?? " No position recorded."
        let mine = try await meIfSetUp()?.username == traveller
        try await raise(Alert(
            id: "sos-\(id)", kind: "sos", subjectID: id, traveller: traveller, space: space, dueAt: at, reason: reason,
            title: "SOS from \(traveller)", body: "\(traveller) pressed SOS (\(reason)).\(last)",
            payload: positionsPayload(positions, extra: ["sos": .string(id), "reason": .string(reason), "traveller": .string(traveller),
                                                         "pressedAt": sos["pressed_at"].jsonValue, "releasedAt": sos["released_at"].jsonValue,
                                                         "trip": sos["trip_id"].jsonValue]),
            repeats: true,
            message: NotificationMessage("notify.alert.sos", ["name": .text(traveller)])
        )) { batch in
            guard mine else { return }
            batch.patch("sos", id: id, ["state": "ALERTED", "alerted_at": SQLValue(at), "alert_reason": .text(reason)])
        }
        for timer in [Self.silenceTimer, Self.deadlineTimer, Self.sampleTimer] { try await clock.cancelTimer(key: "\(timer):\(id)") }
    }

    /// A watching host alerted while this device had the PIN already (entered in a tunnel, synced
    /// too late): the guardians are told at once that the traveller reported safe, and when.
    /// A watching host's alert for an SOS still open here (the phone was cut off and came back):
    /// this device's record follows it to ALERTED and its timers stop.
    /// Any other alert the watcher raised about her that this device had answered already (a
    /// check-in, an acknowledgement or the trip's end that reached the hub too late): the
    /// guardians are told she is safe, and the alert is acknowledged so that its repeats stop.
    func alertArrived(_ alertID: String) async throws {
        guard let alert = try await row("SELECT * FROM alerts WHERE id = ?", [.text(alertID)]),
              let me = try await meIfSetUp(), alert.string("traveller") == me.username else { return }
        guard alert.string("kind") == "sos" else {
            guard try await !isAcknowledged(alertID), let answered = try await answeredAt(alert) else { return }
            try await writeAck(alertID: alertID, by: me.username, space: me.space)
            await notifyGuardians(key: "safe-\(alertID)", space: me.space, title: "\(me.username) is safe",
                                  body: "\(me.username) answered at \(Instant.spoken(answered)); it reached the hub after the alert went out.",
                                  message: NotificationMessage("notify.safeLate", ["name": .text(me.username), "at": .instant(answered)]),
                                  priority: .timeSensitive,
                                  payload: ["alert": .string(alertID), "answeredAt": .string(Instant.text(answered))], at: now)
            return
        }
        guard let sos = try await row("SELECT * FROM sos WHERE id = ?", [.text(alert.string("subject_id"))]) else { return }
        let id = sos.string("id")
        if ["HOLDING", "RELEASED"].contains(sos.string("state")) {
            try await storage.write { batch in
                batch.inSpace(me.space)
                batch.patch("sos", id: id, ["state": "ALERTED", "alerted_at": alert["due_at"], "alert_reason": alert["reason"]])
            }
            try await armSOS(id)
            return
        }
        guard sos.string("state") == "SAFE", sos.string("reported_safe_at").isEmpty, let entered = sos.date("pin_entered_at") else { return }
        try await storage.write { batch in
            batch.inSpace(me.space)
            batch.patch("sos", id: id, ["reported_safe_at": SQLValue(entered)])
        }
        try await writeAck(alertID: alertID, by: me.username, space: me.space)
        await notifyGuardians(key: "sos-safe-\(id)", space: me.space, title: "\(me.username) reports being safe",
                              body: "\(me.username) entered their PIN at \(Instant.spoken(entered)), offline; it reached the hub after the deadline.",
                              message: NotificationMessage("notify.safeOffline", ["name": .text(me.username), "at": .instant(entered)]),
                              priority: .timeSensitive,
                              payload: ["sos": .string(id), "reportedSafeAt": .string(Instant.text(entered))], at: now)
    }

    func openSOS(of traveller: String) async throws -> Row? {
        try await row("SELECT * FROM sos WHERE traveller = ? AND state IN ('HOLDING', 'RELEASED') ORDER BY pressed_at DESC LIMIT 1", [.text(traveller)])
    }

    struct SOSQuery: Decodable, Sendable { var sosId: String? }

    func sosDetail(_ input: SOSQuery) async throws -> JSONValue {
        let me = try await me()
        let sos: Row?
        if let id = input.sosId { sos = try await row("SELECT * FROM sos WHERE id = ?", [.text(id)]) } else {
            sos = try await row("SELECT * FROM sos WHERE traveller = ? ORDER BY pressed_at DESC LIMIT 1", [.text(me.username)])
        }
        if let arming = try await row("SELECT * FROM sos_arming"), input.sosId == nil {
            return ["state": "ARMING", "sosId": arming["id"].jsonValue]
        }
        guard let sos else {
            if input.sosId != nil { throw PluginError.missing("no SOS \(input.sosId ?? "")", field: "$.sosId") }
            return ["state": "IDLE"]
        }
        let id = sos.string("id")
        let positions = try await rows("SELECT recorded_at, lat, lon, accuracy, fix_at, battery FROM sos_positions WHERE sos_id = ? ORDER BY recorded_at", [.text(id)])
        let alerted = try await row("SELECT * FROM alerts WHERE id = ?", [.text("sos-\(id)")])
        var out = sos.jsonObject.objectValue ?? [:]
        // A watching host's alert is a row of its own: the SOS reads as ALERTED whatever this copy says.
        if alerted != nil { out["state"] = "ALERTED" }
        out["alert"] = alerted?.jsonObject ?? .null
        out["positions"] = .array(positions.map(\.jsonObject))
        return .object(out)
    }

    func sosHistory() async throws -> JSONValue {
        ["sos": .array(try await rows("SELECT * FROM sos ORDER BY pressed_at DESC").map(\.jsonObject))]
    }
}
