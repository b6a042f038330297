import Hummingbird

/// One feature's routes, as a Hummingbird `RouteCollection`, with the answer 405 and `Allow` for a
/// method its paths do not take. (Hummingbird's router alone answers 404 then, as if the path did
/// not exist.) ``APIRouter`` adds each feature's collection to the router:
///
/// ```swift
/// router.addRoutes(RouteTable.feature { table in
///     table.add(.get, "/healthz", server.health)
/// })
/// ```
///
/// A path belongs to one feature, so that its 405 lists every method it takes.
struct RouteTable {
    typealias Handler = @Sendable (Request, APIRequestContext) async throws -> Response

    /// The feature's routes, added to the router as one group.
    let collection = RouteCollection(context: APIRequestContext.self)
    private var allowed: [(path: String, methods: [HTTPRequest.Method])] = []
    /// Methods a path takes only for some of what it names (GET of a download operation), with
    /// the test: `Allow` lists them only where it holds.
    private var conditional: [String: (methods: [HTTPRequest.Method], applies: @Sendable (APIRequestContext) -> Bool)] = [:]

    /// Methods a client might try on any path; HEAD of a GET route is answered by the router.
    static let probedMethods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options, .trace,
                                                       HTTPRequest.Method("QUERY")!]

    /// A feature's routes: `build` adds them; the 405 answers follow.
    static func feature(_ build: (inout RouteTable) -> Void) -> RouteCollection<APIRequestContext> {
        var table = RouteTable()
        build(&table)
        table.finish()
        return table.collection
    }

    /// Adds a route; `path` uses Hummingbird's `:name` parameters.
    mutating func add(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping Handler) {
        collection.on(RouterPath(path), method: method, use: handler)
        if let i = allowed.firstIndex(where: { $0.path == path }) { allowed[i].methods.append(method) } else { allowed.append((path, [method])) }
    }

    /// Adds a route that only some of what `path` names takes (`applies`); its handler refuses the
    /// rest itself (405 with the path's other methods). Add the path's other methods with
    /// ``add(_:_:_:)``.
    mutating func add(_ method: HTTPRequest.Method, _ path: String, onlyWhere applies: @escaping @Sendable (APIRequestContext) -> Bool,
                      _ handler: @escaping Handler) {
        collection.on(RouterPath(path), method: method, use: handler)
        conditional[path] = ((conditional[path]?.methods ?? []) + [method], applies)
    }

    /// Registers the 405 answers; called once, after every ``add(_:_:_:)`` (``feature(_:)`` does).
    private func finish() {
        for (path, methods) in allowed {
            let allow = Self.withHead(methods)
            let extra = conditional[path]
            let routed = Self.withHead(methods + (extra?.methods ?? []))
            for method in Self.probedMethods where !routed.contains(method) {
                collection.on(RouterPath(path), method: method) { request, context -> Response in
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
