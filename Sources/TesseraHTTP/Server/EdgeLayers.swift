import Hummingbird

/// The middlewares of every route (``APIRouter``), kept by their types as well as in the router.
///
/// The router runs them as a chain of `any MiddlewareProtocol`, each calling the next through a
/// closure with its own copy of the request's context. The edge's shortcut for a plugin operation
/// (``EdgeResponder``) runs the same layers in one function instead (``run(_:_:_:)``): with the
/// four layers but authentication taken out, the edge's CPU per call fell by about a tenth
/// (`tessera-bench http`, docs/benchmarks.md), most of it the chain's, not the layers' work.
/// Each layer's work is its middleware's own method, so the two paths cannot drift apart.
struct EdgeLayers: Sendable {
    typealias Context = APIRequestContext
    typealias Handler = @Sendable (Request, Context) async throws -> Response

    let accessLog: AccessLogMiddleware
    let responseCount: ResponseCountMiddleware
    let errors: ErrorMiddleware
    let auth: AuthMiddleware
    /// `nil` when the deployment limits no budget.
    let rateLimit: RateLimitMiddleware?

    /// The layers as the router applies them, outermost first.
    var middlewares: [any MiddlewareProtocol<Request, Response, Context>] {
        let layers: [any MiddlewareProtocol<Request, Response, Context>] = [accessLog, responseCount, errors, auth]
        return layers + (rateLimit.map { [$0] } ?? [])
    }

    /// What `handler` answers inside ``middlewares``, as the router's chain would answer it: the
    /// request id and the log line on every response, the response counted, anything thrown inside
    /// the error layer made its JSON response, the principal put in the context (or the refusal),
    /// the rate limit's decision spent and its fields on a successful answer.
    ///
    /// It runs only for a plugin operation's path (``EdgeResponder/operationPath(_:)``), which
    /// needs a bearer token and spends the calls' budget: it does not read either from the path.
    ///
    /// The context is the caller's, given its principal in place: a copy per layer, as the
    /// router's chain makes, is what the shortcut saves.
    func run(_ request: Request, _ context: inout Context, _ handler: Handler) async throws -> Response {
        let started = ContinuousClock.now
        var response: Response
        do {
            // An operation's path needs a token and spends the calls' budget (``EdgeResponder``
            // takes only `/v1/plugins/{id}/ops/{op}`; a test holds every such path to that:
            // `anOperationPathNeedsATokenAndSpendsTheCallsBudget`).
            try auth.authenticate(request, &context, closedPath: true)
            let decision = try rateLimit?.admit(request, context, budget: .calls)
            response = try await handler(request, context)
            if let decision { response.headers.append(contentsOf: RateLimitMiddleware.fields(decision)) }
        } catch {
            response = try errors.response(to: error, request: request, context: context)
        }
        responseCount.metrics.recordResponse(status: response.status.code)
        accessLog.finish(&response, of: request, context: context, startedAt: started)
        return response
    }
}
