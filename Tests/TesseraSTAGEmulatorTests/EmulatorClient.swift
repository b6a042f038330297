import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A minimal HTTP client for the emulator tests (no redirects followed, so the SSO 302 is visible).
final class EmulatorClient: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    let base: String
    lazy var session: URLSession = {
        // No cookie jar: each request carries exactly the credentials the test gives it.
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieStorage = nil
        return URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }()

    init(port: Int) { base = "http://127.0.0.1:\(port)" }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest) async -> URLRequest? { nil }

    func get(_ path: String, ticket: String? = nil, basic: String? = nil, method: String = "GET") async throws -> (Int, String, HTTPURLResponse) {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        if let ticket { request.setValue("WSCOOKIE=\(ticket)", forHTTPHeaderField: "Cookie") }
        if let basic { request.setValue("Basic " + Data(basic.utf8).base64EncodedString(), forHTTPHeaderField: "Authorization") }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        return (http.statusCode, String(decoding: data, as: UTF8.self), http)
    }

    /// The SSO login URL whose originalURL is a (404) page of the emulator itself: URLSession on Linux
    /// follows the redirect, so the ticket is read from the final URL.
    var loginPath: String {
        "/ws/login?originalURL=" + (base + "/cb").addingPercentEncoding(withAllowedCharacters: .alphanumerics)! + "&longTicket=true"
    }

    /// Logs in through the SSO redirect and returns the ticket from the URL it redirected to.
    func ssoTicket() async throws -> String {
        let (_, _, response) = try await get(loginPath)
        return response.url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false) }?
            .queryItems?.first { $0.name == "stagUserTicket" }?.value ?? ""
    }
}
