import Foundation
import TesseraSDK

/// Every threshold of the module (specs/safe-travel.md §7.7), read from the deployment's config.
/// Each has the spec's proposed default; docs/safetravel.md lists them all.
struct TravelConfig: Sendable {
    // SOS (§3.2): the thesis's 3 s hold, 5 s positions and 10 s PIN window; the rest is ours.
    var holdThreshold: TimeInterval = 3
    var positionInterval: TimeInterval = 5
    var pinWindow: TimeInterval = 10
    var serverGrace: TimeInterval = 5
    var holdSilence: TimeInterval = 15
    // Check-ins (§3.3).
    var periodOptions: [Int] = [5, 10, 15, 30, 60]
    var missTimeout: TimeInterval = 600
    // Trips (§3.4 and beyond the thesis).
    var silenceTimeout: TimeInterval = 300
    var overdueGrace: TimeInterval = 600
    var arrivalRadius: Double = 100
    var arrivalMaxAccuracy: Double = 50
    var corridorHalfWidth: Double = 150
    var offRouteDwell: TimeInterval = 60
    var offRouteResponse: TimeInterval = 120
    var batteryLow: Int = 15
    var maxAccuracyForDecisions: Double = 100
    /// How far ahead of the host's clock a reported fix may be (clock skew of a phone).
    var futureMargin: TimeInterval = 60
    // The escalation ladder: after the guardians' first alert, repeat until acknowledged.
    var repeatEvery: TimeInterval = 300
    var maxRepeats: Int = 3
    // The PIN (F4): PBKDF2-HMAC-SHA256 iterations, attempts before a lockout, and its length.
    var pinIterations: Int = 210_000
    var pinAttempts: Int = 5
    var pinLockout: TimeInterval = 60
    /// UC3/UC4's precondition: at least one accepted guardian before a trip or an SOS.
    var requireGuardians: Bool = true
    /// On a traveller's device: the hub name of the always-on watcher to invite into the travel space.
    var watcher: String?
    /// On the watcher host itself: its own hub name; it then joins every space it is invited to.
    var watcherName: String?
    /// How often the watcher looks for new invitations.
    var watchEvery: TimeInterval = 30
    // Who decides (Authority.swift): the watcher decides a trip's or check-in's deadline this long
    // after it, so that what the traveller did before it has reached it through the hub; a watched
    // traveller's device decides itself only this much later still, if the watcher has not.
    var syncGrace: TimeInterval = 30
    var fallbackDelay: TimeInterval = 120
    /// How often a person's device asks the hub for guardian requests and acceptances to tell.
    var pairingEvery: TimeInterval = 120
    // The guardians' live view (LiveLinks.swift): a link works until the trip's end plus the
    // grace (time to look after an alert that came just before the end), and never longer than
    // the cap from when it was minted (a trip left running does not leave a link open for ever).
    var liveLinkGrace: TimeInterval = 3_600
    var liveLinkMaxAge: TimeInterval = 86_400
    // Retention (Retention.swift): a finished trip or SOS without an alert is deleted after
    // `retentionDays`, one with an alert after `alertRetentionDays`; the purge runs every
    // `purgeEvery` and deletes at most `purgeBatch` rows a write.
    var retentionDays: Int = 30
    var alertRetentionDays: Int = 365
    var purgeEvery: TimeInterval = 3_600
    var purgeBatch: Int = 500
    // Places (Places.swift): arrival is inside the radius, departure beyond the radius plus the
    // hysteresis (GPS jitter at the edge does not flap); fixes less accurate than
    // `placeMaxAccuracy` decide nothing.
    var placeHysteresis: Double = 50
    var placeMaxAccuracy: Double = 100
    var maxPlaces: Int = 50

    init(_ json: JSONValue) {
        func seconds(_ key: String, _ value: inout TimeInterval) {
            if let text = json[key]?.stringValue, let parsed = TravelConfig.duration(text) { value = parsed }
        }
        func number(_ key: String, _ value: inout Double) { if let v = json[key]?.doubleValue { value = v } }
        func integer(_ key: String, _ value: inout Int) { if let v = json[key]?.integerValue { value = Int(v) } }
        seconds("holdThreshold", &holdThreshold)
        seconds("positionInterval", &positionInterval)
        seconds("pinWindow", &pinWindow)
        seconds("serverGrace", &serverGrace)
        seconds("holdSilence", &holdSilence)
        seconds("missTimeout", &missTimeout)
        seconds("silenceTimeout", &silenceTimeout)
        seconds("overdueGrace", &overdueGrace)
        seconds("offRouteDwell", &offRouteDwell)
        seconds("offRouteResponse", &offRouteResponse)
        seconds("futureMargin", &futureMargin)
        seconds("repeatEvery", &repeatEvery)
        seconds("pinLockout", &pinLockout)
        number("arrivalRadius", &arrivalRadius)
        number("arrivalMaxAccuracy", &arrivalMaxAccuracy)
        number("corridorHalfWidth", &corridorHalfWidth)
        number("maxAccuracyForDecisions", &maxAccuracyForDecisions)
        integer("batteryLow", &batteryLow)
        integer("maxRepeats", &maxRepeats)
        integer("pinIterations", &pinIterations)
        integer("pinAttempts", &pinAttempts)
        if let options = json["periodOptions"]?.arrayValue?.compactMap({ $0.integerValue.map(Int.init) }), !options.isEmpty {
            periodOptions = options
        }
        if let v = json["requireGuardians"]?.boolValue { requireGuardians = v }
        watcher = json["watcher"]?.stringValue
        watcherName = json["watcherName"]?.stringValue
        seconds("watchEvery", &watchEvery)
        seconds("syncGrace", &syncGrace)
        seconds("fallbackDelay", &fallbackDelay)
        seconds("pairingEvery", &pairingEvery)
        seconds("liveLinkGrace", &liveLinkGrace)
        seconds("liveLinkMaxAge", &liveLinkMaxAge)
        integer("retentionDays", &retentionDays)
        integer("alertRetentionDays", &alertRetentionDays)
        seconds("purgeEvery", &purgeEvery)
        integer("purgeBatch", &purgeBatch)
        number("placeHysteresis", &placeHysteresis)
        number("placeMaxAccuracy", &placeMaxAccuracy)
        integer("maxPlaces", &maxPlaces)
    }

    /// The SOS deadline after a release: the PIN window plus the server's grace (§7.7: release + 15 s).
    var sosDeadline: TimeInterval { pinWindow + serverGrace }

    /// `30s`, `10m`, `1h30m`: the host's duration form (docs/clock.md).
    static func duration(_ text: String) -> TimeInterval? {
        var total: TimeInterval = 0
        var digits = ""
        for character in text {
            if character.isNumber { digits.append(character); continue }
            guard let value = Double(digits) else { return nil }
            switch character {
            case "w": total += value * 604_800
            case "d": total += value * 86_400
            case "h": total += value * 3_600
            case "m": total += value * 60
            case "s": total += value
            default: return nil
            }
            digits = ""
        }
        return digits.isEmpty && !text.isEmpty ? total : nil
    }
}
