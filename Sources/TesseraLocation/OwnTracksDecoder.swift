import Foundation
import TesseraSDK

/// What one OwnTracks request body held: the location fixes, the messages of other types that
/// were set aside, and the items that could not be read.
public struct OwnTracksBatch: Sendable, Hashable {
    /// One message that did not become a fix, and why.
    public struct Item: Sendable, Hashable {
        /// Its position in the body (0 for a body that is one object).
        public var index: Int
        /// Why, in plain words: `"_type transition is not a location"`, `"lat: missing"`.
        public var reason: String

        /// Creates an item.
        public init(index: Int, reason: String) {
            self.index = index
            self.reason = reason
        }
    }

    /// The `_type: "location"` messages, in body order.
    public var fixes: [LocationFix] = []
    /// Messages of other types (transition, waypoint, lwt, card, …): not errors, just not fixes.
    public var skipped: [Item] = []
    /// Items that are not usable OwnTracks messages (and the whole body when it is not JSON).
    public var malformed: [Item] = []

    /// Creates an empty batch.
    public init() {}
}

/// Reads the JSON that OwnTracks apps send in HTTP mode (and publish over MQTT): one message
/// object, or an array of them (the app batches messages it could not send earlier).
///
/// Fields of a `location` message (OwnTracks booklet, "JSON"): `lat`, `lon` (degrees) and `tst`
/// (epoch seconds) are required; `acc` (m), `alt` (m), `vel` (km/h, converted to m/s), `cog`
/// (degrees) and `batt` (%) are optional. Numbers written as strings (`"lat": "49.2"`) are
/// accepted, as some clients send them; a required field that is missing or not a number makes
/// the message malformed, while an unusable optional field is left out of the fix.
///
/// The device id is taken, in order, from `topic` (`owntracks/jane/phone` → `jane/phone`: the
/// first level is the app's configurable prefix and is dropped), from `defaultDeviceID` (the HTTP
/// endpoint passes `user/device` from the `X-Limit-U`/`X-Limit-D` headers), or from `tid`.
public struct OwnTracksDecoder: Sendable {
    /// Creates a decoder.
    public init() {}

    /// Decodes a request body. Never throws: everything ends up in one of the batch's lists.
    public func decode(_ body: some Collection<UInt8>, defaultDeviceID: String? = nil) -> OwnTracksBatch {
        var batch = OwnTracksBatch()
        let json: JSONValue
        do {
            json = try JSONValue(parsing: body)
        } catch {
            batch.malformed.append(.init(index: 0, reason: error.description))
            return batch
        }
        let messages: [JSONValue]
        switch json {
        case .array(let items): messages = items
        case .object: messages = [json]
        default:
            batch.malformed.append(.init(index: 0, reason: "expected an object or an array, got \(json.typeName)"))
            return batch
        }
        for (index, message) in messages.enumerated() {
            decode(message, index: index, defaultDeviceID: defaultDeviceID, into: &batch)
        }
        return batch
    }

    /// Sorts one message into the batch.
    private func decode(_ message: JSONValue, index: Int, defaultDeviceID: String?, into batch: inout OwnTracksBatch) {
        guard case .object(let fields) = message else {
            batch.malformed.append(.init(index: index, reason: "expected an object, got \(message.typeName)"))
            return
        }
        guard let type = fields["_type"]?.stringValue else {
            batch.malformed.append(.init(index: index, reason: "_type: missing or not a string"))
            return
        }
        guard type == "location" else {
            batch.skipped.append(.init(index: index, reason: "_type \(type) is not a location"))
            return
        }
        switch fix(from: fields, defaultDeviceID: defaultDeviceID) {
        case .success(let fix): batch.fixes.append(fix)
        case .failure(let problem): batch.malformed.append(.init(index: index, reason: problem.reason))
        }
    }

    /// A fix from the fields of a location message.
    private func fix(from f: [String: JSONValue], defaultDeviceID: String?) -> Result<LocationFix, Problem> {
        guard let latitude = number(f["lat"]) else { return .failure(Problem(field: "lat", value: f["lat"])) }
        guard let longitude = number(f["lon"]) else { return .failure(Problem(field: "lon", value: f["lon"])) }
        guard let tst = number(f["tst"]) else { return .failure(Problem(field: "tst", value: f["tst"])) }
        guard let device = deviceID(topic: f["topic"]?.stringValue, defaultDeviceID: defaultDeviceID,
                                    tid: f["tid"]?.stringValue)
        else { return .failure(Problem(reason: "no device: no topic, no default device, no tid")) }
        let battery = number(f["batt"]).flatMap { $0.isFinite && abs($0) < 1e9 ? Int($0.rounded()) : nil }
        return .success(LocationFix(
            latitude: latitude, longitude: longitude, accuracy: number(f["acc"]), altitude: number(f["alt"]),
            speed: number(f["vel"]).map { $0 / 3.6 }, course: number(f["cog"]), battery: battery,
            timestamp: Date(timeIntervalSince1970: tst), deviceID: device))
    }

    /// A JSON number, or a string holding one; nil otherwise.
    private func number(_ value: JSONValue?) -> Double? {
        switch value {
        case .integer(let i)?: return Double(i)
        case .number(let d)?: return d
        case .string(let s)?: return Double(s.trimmingCharacters(in: .whitespaces))
        default: return nil
        }
    }

    /// `user/device` from a topic, else the default, else the tracker id.
    func deviceID(topic: String?, defaultDeviceID: String?, tid: String?) -> String? {
        if let topic {
            let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
            if levels.count >= 3, !levels[1].isEmpty, !levels[2].isEmpty { return "\(levels[1])/\(levels[2])" }
        }
        if let defaultDeviceID, !defaultDeviceID.isEmpty { return defaultDeviceID }
        if let tid, !tid.isEmpty { return tid }
        return nil
    }
}

/// Why a location message could not become a fix.
private struct Problem: Error {
    let reason: String

    init(reason: String) { self.reason = reason }

    init(field: String, value: JSONValue?) {
        switch value {
        case nil: reason = "\(field): missing"
        case .string(let s)?: reason = "\(field): expected a number, got the string \"\(s.prefix(40))\""
        case let v?: reason = "\(field): expected a number, got \(v.typeName)"
        }
    }
}
