import Hummingbird
import TesseraRuntime
import TesseraSDK

/// `GET /v1/plugins` and `POST /v1/plugins/{id}/ops/{op}`: the plugins' states, and their operations
/// called through the host, which checks existence, state, role and input schema before any plugin
/// code runs.
struct PluginRoutes: Sendable {
    let host: any HostAPI
    let metrics: HTTPMetrics
    let maxBodyBytes: Int

    /// Every plugin with its state. An admin sees each plugin's history, files and process-tier
    /// figures too; a user sees what the plugins are and whether they serve, not where they live on disk. A plugin with pages
    /// for the console has `ui`: their title and address.
    func list(_ request: Request, context: APIRequestContext) -> Response {
        let detailed = context.principal?.role == .admin
        let enabled = Set(host.enabledManifests().map(\.id))
        let syncing = Set(host.syncingPlugins), rounds = host.lastSyncRounds()
        let plugins = host.statuses().map { status in
            var json = detailed ? status.json : Self.summary(status)
            if syncing.contains(status.id) { json = json.adding("sync", Self.syncState(hub: host.deployment.sync?.hub, round: rounds[status.id])) }
            guard enabled.contains(status.id), let ui = host.manifest(of: status.id)?.ui else { return json }
            return json.adding("ui", ["title": .string(ui.title), "titles": .object(ui.titles.mapValues { .string($0) }),
                                      "url": .string("/ui/\(status.id)/")])
        }
        return .json(["plugins": .array(plugins), "restartRecommended": .bool(host.restartRecommended)])
    }

    /// A syncing plugin's hub and last round: when, what moved, or why it failed.
    static func syncState(hub: String?, round: SyncStatus?) -> JSONValue {
        var state: [String: JSONValue] = ["hub": hub.map { .string($0) } ?? .null]
        if let round {
            var last: [String: JSONValue] = ["at": .string(round.at.formatted(.iso8601))]
            if let report = round.report {
                last["pushed"] = .integer(Int64(report.pushed))
                last["pulled"] = .integer(Int64(report.pulled))
                last["rejected"] = .integer(Int64(report.rejected.count))
            }
            if let error = round.error { last["error"] = .string(error) }
            state["lastRound"] = .object(last)
        }
        return .object(state)
    }

    static func summary(_ status: PluginStatus) -> JSONValue {
        guard case .object(var members) = status.json else { return status.json }
        for key in ["history", "manifest", "library", "sha256", "stampedABI", "buildID"] { members[key] = nil }
        // Where the code runs, yes; its process ids and crash reports are the operator's.
        members["isolation"] = ["tier": .string(status.isolation.tier)]
        return .object(members)
    }

    /// Calls the operation with the body as its input, as the token's principal (an upload
    /// operation's body is a file: ``FileRoutes``). Only a call to an
    /// operation some manifest declares is counted in the metrics, whatever its outcome.
    func call(_ request: Request, context: APIRequestContext) async throws -> Response {
        let plugin = context.operationTarget?.plugin ?? context.parameters.get("id") ?? ""
        let operation = context.operationTarget?.operation ?? context.parameters.get("op") ?? ""
        guard let principal = context.principal else { throw APIError.unauthorized("this route needs a token") }
        // Read in place: a copy of the declaration would retain and release each of its references.
        let manifest = host.manifest(of: plugin)
        let index = manifest?.operationIndex(named: operation)
        let declared = index != nil
        let started = ContinuousClock.now
        do {
            if let manifest, let index, manifest.operations[index].file == .upload {  // the body is a file (FileRoutes)
                let response = try await FileRoutes(host: host).upload(request, plugin: plugin, operation: operation, principal: principal)
                record(plugin, operation, since: started, errorCode: nil)
                return response
            }
            let input = try await JSONRequestBody.read(request, limit: maxBodyBytes)
            let answer = try await host.answer(plugin, operation, json: input, as: principal)
            if declared { record(plugin, operation, since: started, errorCode: nil) }
            return .json(answer)
        } catch {
            if declared { record(plugin, operation, since: started, errorCode: Self.code(of: error)) }
            throw error
        }
    }

    private func record(_ plugin: String, _ operation: String, since started: ContinuousClock.Instant, errorCode: String?) {
        let elapsed = ContinuousClock.now - started
        let seconds = elapsed.timeInterval
        metrics.recordCall(plugin: plugin, operation: operation, seconds: seconds, errorCode: errorCode)
    }

    /// The code the client will see for `error`.
    static func code(of error: any Error) -> String {
        switch error {
        case let error as APIError: error.code
        case let error as PluginError: APIError(error).code
        default: PluginError.Code.internal.rawValue
        }
    }
}
