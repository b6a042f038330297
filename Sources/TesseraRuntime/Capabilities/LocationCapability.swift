import TesseraIsolation
import TesseraLocation
import TesseraManifest
@_spi(TesseraHost) import TesseraSDK
import TesseraSystem

/// `location`: the feed of accepted fixes. A generation that registered a handler is subscribed
/// once it serves; each fix goes through the slot's admission, so a plugin stopping or being
/// swapped out is not called.
struct LocationProvider: CapabilityProvider {
    let name = "location"
    let version = SemanticVersion(1, 0, 0)
    let feed: LocationFeed

    func prepare(_ request: CapabilityRequest) throws -> any CapabilityBinding {
        LocationBinding(feed: feed, pluginID: request.manifest.id)
    }
}

struct LocationBinding: CapabilityBinding {
    let feed: LocationFeed
    let pluginID: String

    var granted: GrantedCapability? { GrantedCapability(.location, feed as any PluginLocationFeed) }

    func activate(_ activation: Activation) async {
        feed.unsubscribe(pluginID)
        guard activation.context.hostHandlers.location != nil else { return }
        let slot = activation.slot
        feed.subscribe(pluginID) { fix in
            guard let (_, context) = await slot.admit() else { return }
            defer { slot.endCall() }
            try await onSharedPool { try await context.hostHandlers.location?(fix) }
        }
    }

    func release() { feed.unsubscribe(pluginID) }
}

extension LocationProvider {
    /// The process tier's location calls (``LocationMethods``).
    var childCalls: [ChildCallHandler] {
        [ChildCallHandler(LocationMethods.latest) { call in
            try await call.context.capability(.location).latestFix(deviceID: call.params.stringValue ?? "")?.wire ?? .null
         }]
    }
}
