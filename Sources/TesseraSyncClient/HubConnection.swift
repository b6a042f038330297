import Foundation
import TesseraOnDemand
import TesseraSDK
import TesseraSync

/// A device's connection to its hub: the routes of docs/hub.md, over HTTP, with the device's token.
///
/// Foundation's `URLSession` is part of the toolchain, so the device side of sync needs no HTTP
/// library. Errors are ``SyncClientError``s carrying the hub's error code; the token never appears
/// in one.
public struct HubConnection: Sendable {
    /// The hub's address, e.g. `http://127.0.0.1:8430`.
    public let baseURL: String
    let token: String
    /// Seconds one request waits for an answer before it fails (`unavailable`).
    public let timeout: TimeInterval

    /// How long a request waits for an answer unless told otherwise (a deployment's
    /// `providers.sync.timeout` says otherwise).
    public static let defaultTimeout: TimeInterval = 30

    /// A connection with a device token from ``login(baseURL:name:password:device:)``.
    public init(baseURL: String, token: String, timeout: TimeInterval = HubConnection.defaultTimeout) {
        self.baseURL = Self.normalized(baseURL)
        self.token = token
        self.timeout = timeout
    }

    /// The hub's address as connections keep it (and as a device's sync state is keyed): without a
    /// trailing slash.
    public static func normalized(_ baseURL: String) -> String {
        baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
    }

    /// Logs a new device in; returns its token (shown once by the hub: keep it as a secret).
    /// `timeout`: how long to wait for the hub's answer, in seconds.
    public static func login(baseURL: String, name: String, password: String, device: String,
                             timeout: TimeInterval = HubConnection.defaultTimeout) async throws -> String {
        let body = JSONValue.object(["name": .string(name), "password": .string(password), "device": .string(device)])
        let anonymous = HubConnection(baseURL: baseURL, token: "", timeout: timeout)
        let answer = try await anonymous.send("POST", "/v1/hub/login", body: Array(body.serialized().utf8),
                                              contentType: "application/json", authorized: false)
        guard answer.status == 201, let token = try? JSONValue(parsing: answer.body)["token"]?.stringValue else {
            throw SyncClientError(answer)
        }
        return token
    }

    /// Pushes `changes` of `plugin` (any spaces); the hub's verdict.
    public func push(plugin: String, changes: [SyncChange]) async throws -> PushAnswer {
        let answer = try await send("POST", "/v1/hub/sync/\(plugin)/push", body: SyncWire.encode(changes),
                                    contentType: "application/x-tessera-sync")
        guard answer.status == 200, let json = try? JSONValue(parsing: answer.body) else { throw SyncClientError(answer) }
        return PushAnswer(json)
    }

    /// One page of `plugin`'s changes that arrived after `cursor` (only `space`'s, if given).
    public func pull(plugin: String, after cursor: Int64, space: String? = nil, limit: Int = 1000) async throws -> PullPage {
        var path = "/v1/hub/sync/\(plugin)/pull?after=\(cursor)&limit=\(limit)"
        if let space { path += "&space=\(space)" }
        let answer = try await send("GET", path)
        guard answer.status == 200 else { throw SyncClientError(answer) }
        let changes: [SyncChange]
        do { changes = try SyncWire.decode(answer.body) } catch {
            throw SyncClientError(status: 200, code: "malformed_batch", message: "the hub sent a batch that does not decode: \(error)")
        }
        guard let next = answer.headers["tessera-sync-cursor"].flatMap({ Int64($0) }) else {
            throw SyncClientError(status: 200, code: "malformed_answer", message: "the hub's pull answer has no Tessera-Sync-Cursor")
        }
        return PullPage(changes: changes, cursor: next, more: answer.headers["tessera-sync-more"] == "true")
    }

    /// Waits (a long poll of up to `seconds`) until the hub holds a change of `plugin` after
    /// `cursor` in my spaces; whether one came.
    public func waitForChanges(plugin: String, after cursor: Int64, seconds: Int) async throws -> Bool {
        let answer = try await send("GET", "/v1/hub/sync/\(plugin)/wait?after=\(cursor)&seconds=\(seconds)",
                                    timeout: Double(seconds) + timeout)
        guard answer.status == 200, let json = try? JSONValue(parsing: answer.body) else { throw SyncClientError(answer) }
        return json["changes"]?.boolValue ?? false
    }

    /// Compares each space's merkle root with the hub's, in one round trip.
    public func check(plugin: String, roots: [String: UInt32]) async throws -> [String: SpaceStatus] {
        let spaces = JSONValue.object(roots.mapValues { .object(["root": .integer(Int64($0))]) })
        let answer = try await send("POST", "/v1/hub/sync/\(plugin)/check",
                                    body: Array(JSONValue.object(["spaces": spaces]).serialized().utf8), contentType: "application/json")
        guard answer.status == 200, let json = try? JSONValue(parsing: answer.body), let members = json["spaces"]?.objectValue else {
            throw SyncClientError(answer)
        }
        return members.mapValues(SpaceStatus.init)
    }

    /// The spaces the person belongs to, and those they left or lost.
    public func spaces() async throws -> (spaces: [String], departures: [String]) {
        let answer = try await send("GET", "/v1/hub/spaces")
        guard answer.status == 200, let json = try? JSONValue(parsing: answer.body) else { throw SyncClientError(answer) }
        return (json["spaces"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [],
                json["departures"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [])
    }

    /// What an HTTP exchange returned.
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
    }

    func send(_ method: String, _ path: String, body: [UInt8]? = nil, contentType: String? = nil,
              authorized: Bool = true, timeout: Double? = nil, headers: [String: String] = [:]) async throws -> Answer {
        guard let url = URL(string: baseURL + path) else {
            throw SyncClientError(status: 0, code: "invalid_hub", message: "'\(baseURL)' is not a hub address")
        }
        var fields: [(name: String, value: String)] = []
        if authorized { fields.append((name: "Authorization", value: "Bearer \(token)")) }
        if let contentType { fields.append((name: "Content-Type", value: contentType)) }
        for (name, value) in headers { fields.append((name: name, value: value)) }
        let exchange = HTTPExchange(method, url, headers: fields, body: body ?? [], timeout: timeout ?? self.timeout)
        let response: HTTPExchange.Response
        do {
            response = try await exchange.send()
        } catch {
            throw SyncClientError(status: 0, code: "unavailable", message: "the hub at \(baseURL) cannot be reached (\(Self.reason(error)))")
        }
        return Answer(status: response.status, headers: response.headers, body: response.body)
    }

    /// Why a request got no answer, in words: URLSession's codes (-1004…) mean nothing to a person.
    static func reason(_ error: any Error) -> String {
        guard let error = error as? URLError else { return "\(type(of: error))" }
        switch error.code {
        case .cannotConnectToHost: return "nothing accepts connections at that address"
        case .timedOut: return "it did not answer in time"
        case .cannotFindHost, .dnsLookupFailed: return "its host name does not resolve"
        case .networkConnectionLost: return "the connection dropped"
        case .notConnectedToInternet: return "this machine has no network"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot: return "its TLS certificate or connection is not accepted"
        default: return "network error \(error.code.rawValue)"
        }
    }
}
