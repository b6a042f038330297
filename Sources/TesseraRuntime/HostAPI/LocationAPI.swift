import TesseraLocation
import TesseraSDK

/// The location feed as the edges see it.
extension PluginHost {
    /// The newest accepted fix of a device.
    public func latestFix(deviceID: String) async -> LocationFix? {
        await location.latestFix(deviceID: deviceID)
    }

    /// Fixes accepted and refused, by reason.
    public var locationCounters: [String: Int] { location.counters }
}
