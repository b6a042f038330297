import Hummingbird
import NIOCore
import TesseraHTTP
import TesseraSchema
@_spi(TesseraHost) import TesseraSDK

/// A route on the plain Hummingbird server that does, for the example plugin's `echo`, the work
/// the edge must do for any call, with Tessera's own pieces and nothing of its runtime: the bearer
/// token's SHA-256 compared in constant time with the stored digest (``TokenSecret``, as the edge
/// does), the body read and parsed, the input validated against the operation's compiled schema,
/// decoded into the plugin's input type, the answer encoded and written as JSON. No token file, principal, grant or plugin state, no
/// middleware, no call into a plugin.
///
/// Its throughput ÷ the plain route's is what an edge that kept this work and cost nothing else
/// would read: the ceiling of the edge's ratio (issue 25's target is ≥ 0.85).
enum KeptWorkRoute {
    /// The path it answers.
    static let path = "/kept"

    /// The example plugin's `echo` input, as the plugin declares it.
    private struct Echo: Decodable {
        let id: String
        let title: String
        let amount: Int
        let date: String
        let tags: [String]
        let note: String?
    }

    private struct Reply: Encodable {
        let ok: Bool
        let count: Int
    }

    /// Registers the route: `token` is the only one it accepts, `inputSchema` the operation's.
    static func add(to router: Router<BasicRequestContext>, token: String, inputSchema: JSONSchema) {
        let digest = TokenSecret.hash(token)
        router.post(RouterPath(path)) { request, _ -> Response in
            guard let presented = request.headers[.authorization], presented.hasPrefix("Bearer "),
                  TokenSecret.constantTimeEqual(TokenSecret.hash(String(presented.dropFirst(7))), digest)
            else { return Response(status: .unauthorized) }
            let body = try await request.body.collect(upTo: 1 << 20)
            let input = try JSONValue(parsing: body.readableBytesView)
            guard inputSchema.validate(input).isEmpty else { return Response(status: .badRequest) }
            let echo = try input.decode(as: Echo.self)
            var out: [UInt8] = []
            try JSONValue(encoding: Reply(ok: true, count: echo.tags.count)).appendSerialized(to: &out)
            return Response(status: .ok, headers: [.contentType: "application/json"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: out)))
        }
    }
}
