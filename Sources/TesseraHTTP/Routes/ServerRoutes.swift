import Hummingbird
import Synchronization
import TesseraRuntime
import TesseraSDK

/// The routes about the server itself: liveness, readiness, metrics, and the OpenAPI document.
struct ServerRoutes: Sendable {
    let host: any HostAPI
    let report: MetricsReport
    let readiness: Readiness

    /// `GET /healthz`: the process answers. Needs no token.
    func health(_ request: Request, context: APIRequestContext) -> Response {
        .json(["status": "ok"])
    }

    /// `GET /readyz`: 200 once the host has started its plugins, 503 before (and while stopping).
    func ready(_ request: Request, context: APIRequestContext) throws -> Response {
        guard readiness.isReady else {
            throw APIError(.serviceUnavailable, code: "unavailable", "the host is \(readiness.phase); not ready yet")
        }
        return .json(["status": "ready"])
    }

    /// `GET /metrics`: the Prometheus text exposition, for a token with the admin or the metrics
    /// role, or (`http.metrics: loopback`) any request from a loopback address. The middleware lets
    /// the request through without a token; this decides.
    func metricsPage(_ request: Request, context: APIRequestContext) throws -> Response {
        switch context.principal?.role {
        case .admin?, .metrics?:
            break
        case nil where host.deployment.metricsAccess == .loopback && context.fromLoopback:
            break
        case nil:
            throw APIError.unauthorized("/metrics needs a token with the admin or the metrics role (tessera token create --role metrics NAME)")
        default:
            throw PluginError(.forbidden, "/metrics is read with a token of the admin or the metrics role, not '\(context.principal!.role)'")
        }
        return .text(report.render(host: host), contentType: MetricsReport.contentType)
    }

    /// `GET /openapi.json`: made anew from the manifests on each request, so it follows the plugins.
    func openAPI(_ request: Request, context: APIRequestContext) -> Response {
        .json(OpenAPIDocument.make(manifests: host.enabledManifests(), deploymentName: host.deployment.name,
                                   hub: host.deployment.role == .hub))
    }
}

/// Whether the host has finished starting: set by whoever runs the server (``HTTPServer/markReady()``).
final class Readiness: Sendable {
    private let state = Atomic<Int>(0)  // 0 starting, 1 ready, 2 stopping

    var isReady: Bool { state.load(ordering: .acquiring) == 1 }
    var phase: String { ["starting", "ready", "stopping"][state.load(ordering: .acquiring)] }

    func markReady() { state.store(1, ordering: .releasing) }
    func markStopping() { state.store(2, ordering: .releasing) }
}
