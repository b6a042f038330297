import Foundation
import TesseraSDK

/// Turns gpsd's JSON reports into fixes.
///
/// Only `TPV` (time-position-velocity) reports with `mode` 2 (2D fix) or 3 (3D fix) become fixes;
/// every other class (`VERSION`, `DEVICES`, `WATCH`, `SKY`, …) and TPVs without a fix are ignored.
///
/// Field mapping (gpsd_json(5)): `lat`, `lon`; `time` (RFC 3339, required: a fix without a time
/// cannot be ordered); `speed` (m/s); `track` (degrees true) as course; accuracy from `eph`, else
/// the larger of `epx` and `epy` (95 % confidence, metres); the `device` path as the device id.
/// Altitude, only with a 3D fix: `altMSL` first, then `alt` (older gpsd, also above mean sea level),
/// then `altHAE` (above the ellipsoid, which differs from sea level by the geoid, up to ~100 m) —
/// because ``LocationFix/altitude`` is above sea level.
public enum GpsdReport {
    /// What one line of gpsd output was.
    public enum Outcome: Sendable, Hashable {
        /// A usable fix.
        case fix(LocationFix)
        /// Not a fix, and why (`"class SKY"`, `"TPV mode 1 (no fix)"`, `"not JSON: …"`).
        case ignored(String)
    }

    /// Decodes one line; `fallbackDeviceID` names the device when the report does not.
    public static func decode(line: some Collection<UInt8>, fallbackDeviceID: String) -> Outcome {
        let json: JSONValue
        do { json = try JSONValue(parsing: line) } catch { return .ignored("not JSON: \(error)") }
        guard let kind = json["class"]?.stringValue else { return .ignored("no class") }
        guard kind == "TPV" else { return .ignored("class \(kind)") }
        let mode = json["mode"]?.integerValue ?? 0
        guard mode >= 2 else { return .ignored("TPV mode \(mode) (no fix)") }
        guard let lat = json["lat"]?.doubleValue, let lon = json["lon"]?.doubleValue else { return .ignored("TPV without lat/lon") }
        guard let time = json["time"]?.stringValue.flatMap(ISO8601Timestamp.parse) else { return .ignored("TPV without a readable time") }
        return .fix(LocationFix(
            latitude: lat, longitude: lon, accuracy: accuracy(json),
            altitude: mode >= 3 ? (json["altMSL"] ?? json["alt"] ?? json["altHAE"])?.doubleValue : nil,
            speed: json["speed"]?.doubleValue, course: json["track"]?.doubleValue,
            timestamp: time, deviceID: json["device"]?.stringValue ?? fallbackDeviceID))
    }

    /// `eph`, else the larger of `epx`/`epy` (or whichever is present).
    private static func accuracy(_ json: JSONValue) -> Double? {
        if let eph = json["eph"]?.doubleValue { return eph }
        let parts = [json["epx"]?.doubleValue, json["epy"]?.doubleValue].compactMap { $0 }
        return parts.max()
    }
}
