import Foundation
import TesseraSDK

/// Why a call to IS/STAG did not give usable data.
enum STAGFailure: Error {
    /// 401: the ticket expired or was revoked.
    case ticketExpired
    /// No answer, or an answer other than 200.
    case unavailable(String)
    /// A 200 whose body is not the JSON expected.
    case malformed
    /// Not logged in: no ticket or no university.
    case notLoggedIn
    /// The deployment does not let the module reach this university's host (its `http` grant):
    /// the operator's refusal, not the university's silence.
    case notGranted(String)

    /// The reason code callers see (in `reason` of a stale read, or as the error's `reason`).
    var code: String {
        switch self {
        case .ticketExpired: "ticket_expired"
        case .unavailable: "unavailable"
        case .malformed: "malformed_response"
        case .notLoggedIn: "not_logged_in"
        case .notGranted: "not_granted"
        }
    }

    var message: String {
        switch self {
        case .ticketExpired: "the IS/STAG ticket expired; log in again (login-url, then complete-login)"
        case .unavailable(let why): "IS/STAG could not be reached (\(why))"
        case .malformed: "IS/STAG answered with something that is not the expected JSON"
        case .notLoggedIn: "log in first (login-url, then complete-login)"
        case .notGranted(let why): "\(why)"
        }
    }

    /// The error a caller gets when there is no cache to fall back on.
    var pluginError: PluginError {
        switch self {
        case .ticketExpired, .notLoggedIn: PluginError(.conflict, message, reason: PluginError.Code(rawValue: code))
        case .unavailable, .malformed: PluginError(.unavailable, message, reason: PluginError.Code(rawValue: code))
        case .notGranted: PluginError(.notGranted, message, reason: PluginError.Code(rawValue: code))
        }
    }
}

/// Calls the IS/STAG REST services (`{base}/services/rest2/{service}/{method}`) with the ticket as
/// HTTP Basic username and an empty password. Every call is a GET, writes included, as in STAG.
struct STAGClient: Sendable {
    let http: any PluginHTTPClient
    let base: String
    let ticket: Secret
    var timeout: Duration = .seconds(20)
    /// IS/STAG's language for names and texts, `cs` or `en` (the person's, `language-set`).
    var language = "cs"
    /// Called when IS/STAG answers 401 (the ticket expired), before the call fails with ``STAGFailure/ticketExpired``.
    var onUnauthorized: (@Sendable () async -> Void)?

    /// A JSON service's answer.
    func json(_ path: String, _ query: [(String, String)]) async throws(STAGFailure) -> JSONValue {
        let response = try await get(path, query + [("outputFormat", "JSON")])
        do { return try JSONValue(parsing: response.body) } catch { throw .malformed }
    }

    /// A plain-text service's answer (register and unregister answer "OK" or a reason in words).
    func text(_ path: String, _ query: [(String, String)]) async throws(STAGFailure) -> String {
        try await get(path, query).text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func get(_ path: String, _ query: [(String, String)]) async throws(STAGFailure) -> OutboundResponse {
        // The person's language unless the call asks for its own (Catalogue's reads).
        let lang = query.contains { $0.0 == "lang" } ? [] : [("lang", language)]
        let url = "\(base)/services/rest2/\(path)?" + (query + lang).map { "\($0)=\(Self.encode($1))" }.joined(separator: "&")
        let basic = Data("\(ticket.revealed):".utf8).base64EncodedString()
        let response: OutboundResponse
        do {
            response = try await http.send(OutboundRequest(url: url, headers: ["Authorization": "Basic \(basic)", "Accept": "application/json"],
                                                           timeout: timeout))
        } catch let error as PluginError {
            if error.code == .notGranted { throw .notGranted(error.message) }
            throw .unavailable(error.message)
        } catch {
            throw .unavailable("\(error)")
        }
        switch response.status {
        case 200: return response
        case 401:
            await onUnauthorized?()
            throw .ticketExpired
        default: throw .unavailable("IS/STAG answered \(response.status)")
        }
    }

    static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? value
    }
}
