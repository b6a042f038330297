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
