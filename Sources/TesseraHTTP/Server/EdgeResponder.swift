import Hummingbird

/// The HTTP API's responder: the router (``APIRouter``), with one shortcut in front of it for the
/// request a deployment serves most, a plugin operation (`POST /v1/plugins/{id}/ops/{op}`).
///
/// Such a request goes through the same middlewares to the same handler as through the router;
/// only the router's look-up is skipped, and the plugin and operation travel in the context's
/// `operationTarget` instead of the router's `parameters`. That look-up splits the path character by character and
/// walks a trie of some forty routes: 5 % of the edge's CPU per call in a profile of
/// `tessera-bench http` (docs/benchmarks.md). The shortcut takes only the canonical form of the
/// path (no empty, `.` or `..` segment, no trailing slash); anything else goes to the router,
/// which answers it as it always did.
struct EdgeResponder: HTTPResponder {
    typealias Context = APIRequestContext
    typealias Handler = @Sendable (Request, APIRequestContext) async throws -> Response

    let router: RouterResponder<APIRequestContext>
    /// The router's middlewares, run as one function around ``operationCall``.
    let layers: EdgeLayers
    /// The route's handler.
    let operationCall: Handler
    /// What the router would record as the endpoint's path.
    let operationEndpoint: String
    /// Whether the shortcut is taken (``HTTPConfiguration/operationShortcut``).
    let shortcut: Bool

    /// - Parameters:
    ///   - layers: the middlewares the router applies to its routes; the shortcut runs them as one
    ///     function (``EdgeLayers/run(_:_:_:)``).
    ///   - operationCall: the handler the router has for `POST /v1/plugins/:id/ops/:op`.
    ///   - shortcut: `false` sends every request through the router.
    init(router: Router<APIRequestContext>, layers: EdgeLayers,
         operationCall: @escaping Handler, shortcut: Bool = true) {
        self.shortcut = shortcut
        self.router = router.buildResponder()
        self.layers = layers
        self.operationCall = operationCall
        operationEndpoint = RouterPath(Self.operationRoute).description
    }

    /// The route the shortcut stands in for, as the router declares it.
    static let operationRoute = "/v1/plugins/:id/ops/:op"

    /// What answers while in-process plugins hold every thread of the shared pool
    /// (``HostEndpointsOnTheLoop``): the probes, the metrics and the list of plugins, which ask
    /// nothing of a plugin and nothing that blocks.
    static let hostsOwn: Set<String> = ["/healthz", "/readyz", "/metrics", "/v1/plugins"]

    func respond(to request: Request, context: Context) async throws -> Response {
        guard shortcut, request.method == .post, let (plugin, operation) = Self.operationPath(request.uri.path) else {
            return try await router.respond(to: request, context: context)
        }
        var context = context
        context.operationTarget = (String(plugin), String(operation))
        context.coreContext.endpointPath.value = operationEndpoint
        // As the router does: an error that knows its response becomes it.
        do {
            return try await layers.run(request, &context, operationCall)
        } catch let error as any HTTPResponseError {
            return try error.response(from: request, context: context)
        }
    }

    /// The plugin and operation of `/v1/plugins/{id}/ops/{op}` in its canonical form, read from the
    /// path's bytes; `nil` for any other path.
    static func operationPath(_ path: String) -> (plugin: Substring, operation: Substring)? {
        var path = path
        // The offsets of the two names, found on the bytes in place (this runs on every request).
        let found = path.withUTF8 { bytes -> (Int, Int, Int)? in
            guard bytes.count > Self.prefix.count, bytes[..<Self.prefix.count].elementsEqual(Self.prefix) else { return nil }
            var idEnd = Self.prefix.count
            while idEnd < bytes.count, bytes[idEnd] != UInt8(ascii: "/") { idEnd += 1 }
            let opStart = idEnd + Self.middle.count
            guard idEnd > Self.prefix.count, opStart < bytes.count,
                  bytes[idEnd..<(idEnd + Self.middle.count)].elementsEqual(Self.middle),
                  !bytes[opStart...].contains(UInt8(ascii: "/")),
                  !isDotSegment(bytes[Self.prefix.count..<idEnd]), !isDotSegment(bytes[opStart...]) else { return nil }
            return (Self.prefix.count, idEnd, opStart)
        }
        guard let (idStart, idEnd, opStart) = found else { return nil }
        let utf8 = path.utf8
        let index = { (offset: Int) in utf8.index(utf8.startIndex, offsetBy: offset) }
        return (path[index(idStart)..<index(idEnd)], path[index(opStart)...])
    }

    private static let prefix = Array("/v1/plugins/".utf8), middle = Array("/ops/".utf8)

    /// `.` and `..` are not names: such a path is left to the router, whatever it makes of it.
    private static func isDotSegment(_ segment: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        segment.allSatisfy { $0 == UInt8(ascii: ".") } && segment.count <= 2
    }
}
