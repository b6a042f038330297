import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
@testable import TesseraHTTP
import TesseraTestFixtures

/// How a test's requests reach an ``HTTPServer``: straight to its router and middlewares, in the
/// test's process (Hummingbird's `.router` test mode: no socket, no port), or over HTTP/1.1 on a
/// loopback socket for what needs a connection — streams, keep-alive, framing on the wire, a
/// client that sends its own bytes, the client's address, a browser.
struct EdgeClient: Sendable {
    enum Transport: Sendable {
        /// To the router, without a socket.
        case router
        /// Over a loopback socket (``port``).
        case socket
    }

    /// The loopback port, for ``Transport/socket``; 0 for ``Transport/router``, where nothing listens.
    let port: Int
    private let router: (any TestClientProtocol)?

    /// Makes `server` reachable: for a socket, starts it listening.
    static func connect(to server: HTTPServer, by transport: Transport) async throws -> EdgeClient {
        switch transport {
        case .socket:
            return EdgeClient(port: try await server.start(), router: nil)
        case .router:
            // The router mode runs no services, so its client stays usable after `test` returns.
            let client = try await Application(responder: server.responder()).test(.router) { $0 }
            return EdgeClient(port: 0, router: client)
        }
    }

    /// Sends a request (Content-Length added when there is a body) and reads its response.
    func request(_ method: String, _ path: String, headers: [(String, String)], body: [UInt8]?) async throws -> RawResponse {
        guard let router else { return try await RawHTTPClient.request(port: port, method, path, headers: headers, body: body) }
        var fields = HTTPFields()
        for (name, value) in headers {
            guard let field = HTTPField.Name(name) else { throw RawHTTPClient.Failure(description: "not a header name: \(name)") }
            fields.append(HTTPField(name: field, value: value))
        }
        guard let verb = HTTPRequest.Method(method) else { throw RawHTTPClient.Failure(description: "not a method: \(method)") }
        let response = try await router.executeRequest(uri: path, method: verb, headers: fields, body: body.map { ByteBuffer(bytes: $0) })
        // Read as ``RawHTTPClient`` reads a response off the wire: names in lowercase, a repeated
        // field's values joined by commas.
        var read: [String: String] = [:]
        for field in response.headers {
            let name = field.name.canonicalName
            read[name] = read[name].map { "\($0), \(field.value)" } ?? field.value
        }
        return RawResponse(status: Int(response.status.code), headers: read, body: Array(response.body.readableBytesView))
    }
}
