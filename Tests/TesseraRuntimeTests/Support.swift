import Foundation
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// Starts a host on the workspace's deployment.
func startHost(_ workspace: FixtureWorkspace, depth: PluginHost.StartDepth = .active) async throws -> PluginHost {
    let deployment = try DeploymentReader.read(file: workspace.deploymentFile)
    let host = try PluginHost(deployment: deployment, options: HostOptions(dataDirectory: workspace.dataDirectory))
    await host.start(until: depth)
    return host
}

let admin = Principal(id: "test-admin", role: .admin)
let user = Principal(id: "test-user", role: .user)

/// A deployment entry granting `grants` (storage by default).
func entry(_ id: String, grants: [String: Any] = ["storage": [:] as [String: Any]], extra: [String: Any] = [:]) -> [String: Any] {
    var e: [String: Any] = ["id": id, "grants": grants]
    for (k, v) in extra { e[k] = v }
    return e
}

/// The error a call throws, or nil if it succeeded.
func callError(_ host: PluginHost, _ plugin: String, _ op: String, _ input: JSONValue, as principal: Principal = admin) async -> PluginError? {
    do {
        _ = try await host.call(plugin, op, input: input, as: principal)
        return nil
    } catch {
        return error
    }
}
