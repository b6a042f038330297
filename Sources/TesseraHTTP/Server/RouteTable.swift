import Hummingbird

/// Registers routes on a Hummingbird router, and answers 405 with `Allow` for a method a path does
/// not take. (Hummingbird's router alone answers 404 then, as if the path did not exist.)
struct RouteTable {
    typealias Handler = @Sendable (Request, APIRequestContext) async throws -> Response

    let router: Router<APIRequestContext>
    private var allowed: [(path: String, methods: [HTTPRequest.Method])] = []

    /// Methods a client might try on any path; HEAD of a GET route is answered by the router.
    static let probedMethods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options, .trace,
                                                       HTTPRequest.Method("QUERY")!]

    init(router: Router<APIRequestContext>) { self.router = router }

    /// Adds a route; `path` uses Hummingbird's `:name` parameters.
    mutating func add(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping Handler) {
        router.on(RouterPath(path), method: method, use: handler)
        if let i = allowed.firstIndex(where: { $0.path == path }) { allowed[i].methods.append(method) } else { allowed.append((path, [method])) }
    }

    /// Registers the 405 answers; call once, after every ``add(_:_:_:)``.
    func finish() {
        for (path, methods) in allowed {
            let allow = methods.contains(.get) ? methods + [.head] : methods
            for method in Self.probedMethods where !allow.contains(method) {
                router.on(RouterPath(path), method: method) { request, _ -> Response in
                    throw APIError.methodNotAllowed(request.method, request.uri.path, allowed: allow)
                }
            }
        }
    }
}
