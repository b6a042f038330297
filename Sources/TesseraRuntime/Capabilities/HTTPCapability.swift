import TesseraIsolation
import TesseraManifest
import TesseraOutbound
import TesseraSDK

/// `http`: outbound requests, only to the hosts the grant lists.
struct HTTPClientProvider: CapabilityProvider {
    let name = "http"
    let version = SemanticVersion(1, 0, 0)
    let transport: OutboundTransport
    let log: HostLog

    func prepare(_ request: CapabilityRequest) throws -> any CapabilityBinding {
        let hosts = request.grant["hosts"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let id = request.manifest.id, log = self.log
        let client = OutboundHTTPClient(pluginID: id, allowed: HostAllowList(hosts), transport: transport) { log(.debug, id, "http: \($0)") }
        return ObjectBinding(granted: GrantedCapability(.http, client as any PluginHTTPClient))
    }
}

extension HTTPClientProvider {
    /// The process tier's HTTP calls (``HTTPMethods``): the child has no network (docs/isolation.md,
    /// the sandbox), so the host's client sends each request with the grant's host list, rate
    /// limit and audit.
    var childCalls: [ChildCallHandler] {
        [ChildCallHandler(HTTPMethods.send) { call in
            try await call.context.capability(.http).send(try OutboundRequest(wire: call.params)).wire
         }]
    }
}
