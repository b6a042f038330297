import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TesseraSDK

/// The host's one outbound HTTP session, shared by every plugin's ``OutboundHTTPClient``.
///
/// Foundation's `URLSession` (libcurl underneath on Linux) is part of the toolchain, so the runtime
/// core needs no HTTP library of its own. The session keeps no cookies, no cache and no
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

    /// One session for the process, made on first use and never invalidated: it holds no state
    /// (no cookies, cache or credentials), so a session per host — made with every host, even one
    /// whose plugins never send a request, and invalidated with it — was work for nothing. (A full
    /// test run once died of a segfault while every test host made and dropped its own; the cause
    /// was not pinned down.)
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.urlCredentialStorage = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration, delegate: RefuseRedirects(), delegateQueue: nil)
    }()

    /// Sends `request` to `url` (its URL after redirects) and reads the whole response.
    func send(_ request: OutboundRequest, to url: URL) async throws -> OutboundResponse {
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if !request.body.isEmpty { urlRequest.httpBody = Data(request.body) }
        urlRequest.timeoutInterval = Self.seconds(request.timeout)
        let data: Data, response: URLResponse
        do {
            (data, response) = try await Self.session.data(for: urlRequest)
        } catch {
            throw PluginError(.unavailable, "\(request) failed: \(Self.reason(error, timeout: request.timeout))")
        }
        guard let http = response as? HTTPURLResponse else {
            throw PluginError(.unavailable, "\(request) got an answer that is not HTTP")
        }
        guard data.count <= maxResponseBytes else {
            throw PluginError(.unavailable, "\(request) answered \(data.count) bytes; at most \(maxResponseBytes) are accepted")
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return OutboundResponse(status: http.statusCode, headers: headers, body: [UInt8](data))
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

/// Answers every server redirect with "don't follow": the caller gets the 3xx response itself.
final class RefuseRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
