import Hummingbird

/// Counts every response by status, including the refusals of the layers inside it. It sits
/// outside ``ErrorMiddleware``, which has turned every error into a response by then.
struct ResponseCountMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let metrics: HTTPMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        metrics.recordResponse(status: response.status.code)
        return response
    }
}
