import Foundation
import Hummingbird
import TesseraRuntime
import TesseraSDK

/// `POST /v1/plugins/{id}/restart` (admin only): restarts a process-tier plugin now, clearing its
/// crash record — how an operator lifts a quarantine (docs/isolation.md), as `tessera plugins
/// restart` asks. The answer is the plugin's status afterwards; 404 for an unknown id, 409 for a
/// plugin in the host's process, 503 when the new child did not come up.
struct RestartRoute: Sendable {
    let host: any HostAPI

    func restart(_ request: Request, context: APIRequestContext) async throws -> Response {
        try context.requireAdmin("restarting a plugin")
        let id = context.parameters.get("id") ?? ""
        try await host.restartIsolated(id)
        let status = host.status(of: id)
        return .json([
            "plugin": .string(id), "state": .string(status?.state.rawValue ?? "unknown"),
            "pid": host.isolatedProcessID(id).map { .integer(Int64($0)) } ?? .null,
            "reason": status?.reason.map(JSONValue.string) ?? .null,
        ])
    }
}
