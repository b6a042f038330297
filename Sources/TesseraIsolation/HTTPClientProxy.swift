import Foundation
import TesseraSDK

/// The HTTP client in the process tier: each request is sent by the host's client, with the
/// grant's host list, rate limit and audit checked there (the child has no network at all).
/// `grantedHosts` is synchronous in the SDK, so the host sends it with `start`.
struct HTTPClientProxy: PluginHTTPClient {
    let peer: PeerConnection
    let grantedHosts: [String]

    func send(_ request: OutboundRequest) async throws -> OutboundResponse {
        try OutboundResponse(wire: try await peer.call(CapabilityMethod.httpSend, request.wire))
    }
}
