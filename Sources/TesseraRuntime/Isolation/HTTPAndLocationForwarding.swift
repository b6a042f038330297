import Foundation
import TesseraIsolation
@_spi(TesseraHost) import TesseraSDK

/// The host's side of the child's HTTP requests and location-feed reads: the child has no network
/// (docs/isolation.md, the sandbox), so the host's client sends each request with the grant's host
/// list, rate limit and audit, exactly as for a plugin in the host's process.
extension ProcessPlugin {
    func answerHTTPAndLocation(_ method: String, _ params: JSONValue, on context: PluginContext) async throws -> JSONValue? {
        switch method {
        case CapabilityMethod.httpSend:
            return try await context.capability(.http).send(try OutboundRequest(wire: params)).wire
        case CapabilityMethod.locationLatest:
            return try await context.capability(.location).latestFix(deviceID: params.stringValue ?? "")?.wire ?? .null
        default:
            return nil
        }
    }
}
