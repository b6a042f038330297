import Foundation
import Hummingbird
import TesseraRuntime
import TesseraSDK

/// `POST /v1/deployment/reload` (admin only): reads the deployment file again and applies what
/// changed in its plugins while the host serves, as `tessera reload` and SIGHUP ask
/// (``HostAPI/reload()``; docs/operating.md). 422 for a file that does not read or check, 409
/// for one that changes settings only a restart applies, or while another reload runs: in both
/// the deployment in force keeps serving.
struct ReloadRoute: Sendable {
    let host: any HostAPI

    func reload(_ request: Request, context: APIRequestContext) async throws -> Response {
        try context.requireAdmin("reloading the deployment")
        return .json(try await host.reload().json(file: host.deployment.file))
    }
}
