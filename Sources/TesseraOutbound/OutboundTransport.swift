import Foundation
import TesseraOnDemand
import TesseraSDK

/// The host's one outbound HTTP session, shared by every plugin's ``OutboundHTTPClient``.
///
/// Foundation's `URLSession` (libcurl underneath on Linux) is part of the toolchain, so the runtime
/// core needs no HTTP library of its own; it lives in the library loaded on first use
/// (``OnDemandFoundation``), whose `outbound` session keeps no cookies, no cache and no
/// credentials, and never follows a server's redirect.
public final class OutboundTransport: Sendable {
    /// The deployment's redirects.
    public let redirects: OutboundRedirects
    /// Responses larger than this are refused.
    public let maxResponseBytes: Int

    /// A transport with the deployment's redirects and response limit.
    public init(redirects: OutboundRedirects = .none, maxResponseBytes: Int = 16 * 1_048_576) {
        self.redirects = redirects
        self.maxResponseBytes = maxResponseBytes
    }

    /// Sends `request` to `url` (its URL after redirects) and reads the whole response.
    func send(_ request: OutboundRequest, to url: URL) async throws -> OutboundResponse {
        let exchange = HTTPExchange(request.method, url, headers: request.headers.map { (name: $0.key, value: $0.value) },
                                    body: request.body, timeout: Self.seconds(request.timeout), session: .outbound)
        let response: HTTPExchange.Response
        do {
            response = try await exchange.send()
        } catch {
            throw PluginError(.unavailable, "\(request) failed: \(Self.reason(error, timeout: request.timeout))")
        }
        guard response.body.count <= maxResponseBytes else {
            throw PluginError(.unavailable, "\(request) answered \(response.body.count) bytes; at most \(maxResponseBytes) are accepted")
        }
        return OutboundResponse(status: response.status, headers: response.headers, body: response.body)
    }

    /// Why a request failed, in words, without its URL (which may hold a token).
    static func reason(_ error: any Error, timeout: Duration) -> String {
        guard let error = error as? URLError else { return "the request could not be sent" }
        switch error.code {
        case .timedOut: return "no answer within \(seconds(timeout)) s"
        case .cannotConnectToHost: return "the connection was refused"
        case .cannotFindHost, .dnsLookupFailed: return "the host name could not be resolved"
        case .notConnectedToInternet, .networkConnectionLost: return "the network is not reachable"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
            return "the TLS connection failed (certificate or handshake)"
        case .cancelled: return "the request was cancelled"
        default: return "network error \(error.code.rawValue)"
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        duration.timeInterval
    }
}
