import Hummingbird

/// Registers routes on a Hummingbird router, and answers 405 with `Allow` for a method a path does
/// not take. (Hummingbird's router alone answers 404 then, as if the path did not exist.)
struct RouteTable {
    typealias Handler = @Sendable (Request, APIRequestContext) async throws -> Response

    let router: Router<APIRequestContext>
    private var allowed: [(path: String, methods: [HTTPRequest.Method])] = []
    /// Methods a path takes only for some of what it names (GET of a download operation), with
    /// the test: `Allow` lists them only where it holds.
    private var conditional: [String: (methods: [HTTPRequest.Method], applies: @Sendable (APIRequestContext) -> Bool)] = [:]

    /// Methods a client might try on any path; HEAD of a GET route is answered by the router.
    static let probedMethods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options, .trace,
                                                       HTTPRequest.Method("QUERY")!]

    init(router: Router<APIRequestContext>) { self.router = router }

    /// Adds a route; `path` uses Hummingbird's `:name` parameters.
    mutating func add(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping Handler) {
        router.on(RouterPath(path), method: method, use: handler)
        if let i = allowed.firstIndex(where: { $0.path == path }) { allowed[i].methods.append(method) } else { allowed.append((path, [method])) }
    }

    /// Adds a route that only some of what `path` names takes (`applies`); its handler refuses the
    /// rest itself (405 with the path's other methods). Add the path's other methods with
    /// ``add(_:_:_:)``.
    mutating func add(_ method: HTTPRequest.Method, _ path: String, onlyWhere applies: @escaping @Sendable (APIRequestContext) -> Bool,
                      _ handler: @escaping Handler) {
        router.on(RouterPath(path), method: method, use: handler)
        conditional[path] = ((conditional[path]?.methods ?? []) + [method], applies)
    }

    /// Registers the 405 answers; call once, after every ``add(_:_:_:)``.
    func finish() {
        for (path, methods) in allowed {
            let allow = Self.withHead(methods)
            let extra = conditional[path]
            let routed = Self.withHead(methods + (extra?.methods ?? []))
            for method in Self.probedMethods where !routed.contains(method) {
                router.on(RouterPath(path), method: method) { request, context -> Response in
                    let all = extra.map { $0.applies(context) ? Self.withHead(methods + $0.methods) : allow } ?? allow
                    throw APIError.methodNotAllowed(request.method, request.uri.path, allowed: all)
                }
            }
        }
    }

    /// HEAD is answered wherever GET is.
    static func withHead(_ methods: [HTTPRequest.Method]) -> [HTTPRequest.Method] {
        methods.contains(.get) && !methods.contains(.head) ? methods + [.head] : methods
    }
}
