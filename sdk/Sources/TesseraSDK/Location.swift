import Foundation

/// One position report from a device: where, how precisely, how fast, and when.
///
/// The host's sources (OwnTracks JSON, GPX replay, gpsd) turn what they receive into fixes, drop
/// bad ones with a reason, and hand the rest to subscribers in timestamp order per device.
public struct LocationFix: Sendable, Hashable, Codable {
    /// Latitude in degrees, WGS 84, −90…90.
    public var latitude: Double
    /// Longitude in degrees, WGS 84, −180…180.
    public var longitude: Double
    /// Horizontal accuracy in metres (radius), if known.
    public var accuracy: Double?
    /// Altitude above sea level in metres, if known.
    public var altitude: Double?
    /// Speed over ground in metres per second, if known.
    public var speed: Double?
    /// Course over ground in degrees from true north, 0…360, if known.
    public var course: Double?
    /// The device's battery level in percent, 0…100, if known.
    public var battery: Int?
    /// When the device took the fix.
    public var timestamp: Date
    /// Which device reported it.
    public var deviceID: String

    /// Creates a fix.
    public init(latitude: Double, longitude: Double, accuracy: Double? = nil, altitude: Double? = nil,
                speed: Double? = nil, course: Double? = nil, battery: Int? = nil,
                timestamp: Date, deviceID: String) {
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
        self.altitude = altitude
        self.speed = speed
        self.course = course
        self.battery = battery
        self.timestamp = timestamp
        self.deviceID = deviceID
    }
}

/// The host's feed of location fixes, granted as the `location` capability. Subscribe with
/// ``PluginContext/onLocationFix(_:)``; this object answers questions about the recent past.
public protocol PluginLocationFeed: Sendable {
    /// The newest fix the feed accepted from `deviceID`, if any.
    func latestFix(deviceID: String) async -> LocationFix?
}

extension CapabilityKey where Value == any PluginLocationFeed {
    /// The location feed.
    public static var location: CapabilityKey<any PluginLocationFeed> { .init("location") }
}

/// Handles one location fix.
public typealias LocationHandler = @Sendable (LocationFix) async throws -> Void
