import Foundation
import TesseraSDK

/// The location feed in the process tier: the latest fix of a device, answered by the host's feed.
struct LocationFeedProxy: PluginLocationFeed {
    let peer: PeerConnection

    func latestFix(deviceID: String) async -> LocationFix? {
        guard let answer = try? await peer.call(CapabilityMethod.locationLatest, .string(deviceID)), answer != .null else { return nil }
        return try? LocationFix(wire: answer)
    }
}
