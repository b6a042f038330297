import Foundation
import TesseraSDK

/// `http`: requests sent by the host's client, with the grant's host list, rate limit and audit
/// (the plugin's process has no network). The host list itself comes with `start`.
public enum HTTPMethods {
    public static let send = CapabilityMethodSpec(
        "http.send", capability: "http", "Sends a request to a granted host and answers the response.",
        parameters: WireSchema.value("OutboundRequest", required: ["method", "url"]),
        result: WireSchema.object(["status": WireSchema.integer, "headers": ["type": "object"], "body": WireSchema.bytes],
                                  required: ["status", "headers", "body"], of: "OutboundResponse"))

    public static let all = [send]
}

/// The HTTP client in the process tier: each request is sent by the host's client, with the
/// grant's host list, rate limit and audit checked there (the child has no network at all).
/// `grantedHosts` is synchronous in the SDK, so the host sends it with `start`.
struct HTTPClientProxy: PluginHTTPClient {
    let peer: PeerConnection
    let grantedHosts: [String]

    func send(_ request: OutboundRequest) async throws -> OutboundResponse {
        try OutboundResponse(wire: try await peer.call(HTTPMethods.send, request.wire))
    }
}
