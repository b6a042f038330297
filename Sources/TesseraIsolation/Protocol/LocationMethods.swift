import Foundation
import TesseraSDK

/// `location`: the host's location feed.
public enum LocationMethods {
    public static let latest = CapabilityMethodSpec(
        "location.latest", capability: "location", "The latest fix of a device, or null.",
        parameters: WireSchema.string,
        result: WireSchema.nullable(WireSchema.value("LocationFix", required: ["latitude", "longitude", "timestamp", "deviceID"])))

    public static let all = [latest]
}

/// The location feed in the process tier: the latest fix of a device, answered by the host's feed.
struct LocationFeedProxy: PluginLocationFeed {
    let peer: PeerConnection

    func latestFix(deviceID: String) async -> LocationFix? {
        guard let answer = try? await peer.call(LocationMethods.latest, .string(deviceID)), answer != .null else { return nil }
        return try? LocationFix(wire: answer)
    }
}
