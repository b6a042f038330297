import Foundation
import TesseraManifest
@_spi(TesseraHost) import TesseraSDK
import TesseraStorage
import TesseraSystem

/// What a reload did, plugin by plugin (``PluginHost/reload()``).
public struct ReloadReport: Sendable {
    /// Plugins the new deployment enables, now started (or tried: see ``notServing``).
    public var started: [String] = []
    /// Plugins the new deployment disables or leaves out, now stopped.
    public var stopped: [String] = []
    /// Plugins whose entry changed (grants, config, limits, version range), now serving with it.
    public var reconfigured: [String] = []
    /// Plugins that were not serving and were tried again (their entry unchanged).
    public var retried: [String] = []
    /// Plugins whose entry did not change; they served throughout.
    public var unchanged: [String] = []
    /// Plugins that were to serve after the reload and do not, with the reason.
    public var notServing: [String: String] = [:]

    /// The report as the HTTP API answers it (`POST /v1/deployment/reload`), for the deployment `file`.
    public func json(file: String) -> JSONValue {
        func list(_ ids: [String]) -> JSONValue { .array(ids.map(JSONValue.string)) }
        return [
            "deployment": .string(file),
            "started": list(started), "stopped": list(stopped), "reconfigured": list(reconfigured),
            "retried": list(retried), "unchanged": list(unchanged),
            "notServing": .object(notServing.mapValues(JSONValue.string)),
        ]
    }
}

extension GenerationOrchestrator {
    /// Reads the deployment file again and applies what changed in its plugins, while the host
    /// serves (issue 46; docs/operating.md, "Reloading").
    ///
    /// All or nothing before anything changes: the file must read and pass its schema, change only
    /// its plugins (a change to the providers, the listener or the data directory takes a
    /// restart), and every plugin it newly enables or changes must pass the deployment's checks
    /// against its manifest (grants within the manifest's request, config valid, required
    /// capabilities granted). A refused reload changes nothing, and the deployment in force keeps
    /// serving.
    ///
    /// Then plugin by plugin: one newly enabled is brought up through the gates as at start; one
    /// disabled or left out stops taking calls, finishes those in flight and stops; one whose
    /// entry changed is swapped to its own build with the new entry, through the generation
    /// pipeline, so its calls wait through a short pause rather than fail (a plugin whose manifest
    /// refuses hot swap is stopped and started instead); one that was not serving (rejected or
    /// failed) is tried again. Plugins whose entry did not change are not touched: no call of
    /// theirs waits or fails.
    func reload() async throws(PluginError) -> ReloadReport {
        guard reloading.withLock({ busy in defer { busy = true }; return !busy }) else {
            throw PluginError(.conflict, "a reload is already under way; try again when it has finished")
        }
        defer { reloading.withLock { $0 = false } }
        let current = deployment
        let next = try readAgain(current)
        try refuseHostChanges(from: current, to: next)
        let catalog = ManifestCatalog(directories: next.manifestDirectories, checked: checkedManifests)
        let plan = ReloadPlan(from: current, to: next, catalog: catalog, slots: registry, only: options.onlyPlugins)
        try checkBeforeApplying(plan, catalog: catalog, next: next)
        putInForce(next)
        let report = await apply(plan, catalog: catalog, file: next.file)
        refreshEventRoutes()
        log(.info, "host", "reloaded \(next.file): " + report.summary)
        return report
    }

    /// The deployment file as it is now.
    private func readAgain(_ current: Deployment) throws(PluginError) -> Deployment {
        do { return try DeploymentReader.read(file: current.file) } catch {
            throw PluginError(.unprocessable, "\(current.file) was not applied: \(error). The deployment in force keeps serving.")
        }
    }

    /// Refuses a file whose settings outside `plugins` changed: the host opened its stores,
    /// listener and providers from them at start.
    private func refuseHostChanges(from current: Deployment, to next: Deployment) throws(PluginError) {
        let changed = Self.changedSettings(current.document, next.document)
        guard !changed.isEmpty else { return }
        let names = changed.joined(separator: ", ")
        throw PluginError(.conflict, "\(next.file) changes \(names), which the host reads only when it starts: restart it to apply "
            + "\(changed.count == 1 ? "that" : "those"). Nothing was reloaded; the deployment in force keeps serving.")
    }

    /// The top-level settings (and providers, one by one) that differ, without `plugins` and `$schema`.
    static func changedSettings(_ old: JSONValue, _ new: JSONValue) -> [String] {
        let before = old.objectValue ?? [:], after = new.objectValue ?? [:]
        var changed: [String] = []
        for key in Set(before.keys).union(after.keys).sorted() where key != "plugins" && key != "$schema" {
            guard before[key] != after[key] else { continue }
            if key == "providers" {
                let a = before[key]?.objectValue ?? [:], b = after[key]?.objectValue ?? [:]
                changed += Set(a.keys).union(b.keys).sorted().filter { a[$0] != b[$0] }.map { "providers.\($0)" }
            } else {
                changed.append(key)
            }
        }
        return changed
    }

    /// Every plugin to start or reconfigure must pass the deployment's checks against its manifest.
    private func checkBeforeApplying(_ plan: ReloadPlan, catalog: ManifestCatalog, next: Deployment) throws(PluginError) {
        for id in plan.toStart + plan.toReconfigure {
            guard case .valid(let manifest)? = catalog.entry(for: id) else { continue }  // reported as not serving
            do { _ = try checkDeployment(manifest, against: next) } catch {
                throw PluginError(.unprocessable, "\(next.file) was not applied: plugin '\(id)': \(reason(of: error)). "
                    + "Nothing was reloaded; the deployment in force keeps serving.")
            }
        }
    }

    private func apply(_ plan: ReloadPlan, catalog: ManifestCatalog, file: String) async -> ReloadReport {
        var report = ReloadReport(unchanged: plan.unchanged)
        for id in plan.toStop {
            await stopServing(registry.slot(for: id), because: "disabled by the operator in \(file) (reload)")
            report.stopped.append(id)
        }
        for id in plan.toReconfigure {
            await reconfigure(registry.slot(for: id), catalog: catalog)
            report.reconfigured.append(id)
        }
        for id in plan.toList { await bringUp(registry.slot(for: id), catalog: catalog, depth: .active) }
        for id in plan.toStart + plan.toRetry {
            let slot = registry.slot(for: id)
            await bringUp(slot, catalog: catalog, depth: .active, storageOpening: keptStorage(of: slot))
            plan.toStart.contains(id) ? report.started.append(id) : report.retried.append(id)
        }
        for id in report.started + report.reconfigured + report.retried {
            let status = registry.slot(for: id).status
            if status.state != .active { report.notServing[id] = "\(status.state.rawValue): \(status.reason ?? "no reason given")" }
        }
        return report
    }

    /// The database a stopped plugin kept open, handed to its next start.
    private func keptStorage(of slot: PluginSlot) -> StorageOpening? {
        guard let kept = slot.withState({ $0.storage }) else { return nil }
        return StorageOpening(kept)
    }

    /// A plugin whose entry changed: swapped to its own build under the new entry, or, when its
    /// manifest refuses hot swap or it was not serving, stopped and brought up again.
    private func reconfigure(_ slot: PluginSlot, catalog: ManifestCatalog) async {
        let (manifest, libraryPath) = slot.withState { ($0.manifest, $0.library?.path) }
        if slot.lifecycle == .active, manifest?.hotSwap == true {
            let source: SwapSource? = options.inProcessPlugins[slot.id].map { .inProcess($0) } ?? libraryPath.map { .library($0) }
            if let source {
                do { _ = try await swap(slot.id, to: source); return } catch {
                    log(.warning, slot.id, "reload: its new entry could not be swapped in (\(error.message)); it is stopped and started again")
                }
            }
        }
        if slot.lifecycle == .active { await stopServing(slot, because: "stopped to start again with its new entry (reload)") }
        await bringUp(slot, catalog: catalog, depth: .active, storageOpening: keptStorage(of: slot))
    }

    /// Stops one plugin while the host goes on: new calls are refused (the plugin is no longer
    /// active), those in flight get ``swapDrainTimeout`` to finish, then the instance stops. Its
    /// database stays open on the slot for a later start.
    func stopServing(_ slot: PluginSlot, because reason: String) async {
        guard slot.lifecycle == .active else {
            slot.transition(.disabled, reason)
            return
        }
        slot.transition(.draining, reason)
        if !(await slot.drain(timeout: Self.swapDrainTimeout)) {
            log(.warning, slot.id, "stopping with calls still in flight after \(Self.swapDrainTimeout)")
        }
        let (instance, context, bindings) = slot.withState { ($0.instance, $0.context, $0.bindings) }
        for binding in bindings { binding.release() }
        await onSharedPool { await instance?.stop() }
        context?.removeAllHandlers()
        slot.withState { $0.instance = nil; $0.context = nil; $0.bindings = [] }
        slot.transition(.disabled, reason)
        log(.info, slot.id, "stopped: \(reason)")
    }
}

extension ReloadReport {
    /// One line for the log: what changed, by plugin.
    var summary: String {
        let parts = [("started", started), ("stopped", stopped), ("reconfigured", reconfigured), ("retried", retried)]
            .filter { !$0.1.isEmpty }.map { "\($0.0) \($0.1.joined(separator: ", "))" }
        let failing = notServing.keys.sorted().map { "\($0) not serving (\(notServing[$0]!))" }
        return parts.isEmpty && failing.isEmpty ? "nothing changed" : (parts + failing).joined(separator: "; ")
    }
}

/// Which plugins a reload touches, from the two deployments' entries compared as the file wrote them.
struct ReloadPlan {
    var toStart: [String] = [], toStop: [String] = [], toReconfigure: [String] = [], toRetry: [String] = []
    /// Manifests that appeared since, with no enabled entry: listed (as disabled), not started.
    var toList: [String] = []
    var unchanged: [String] = []

    init(from current: Deployment, to next: Deployment, catalog: ManifestCatalog, slots: SlotRegistry, only: Set<String>?) {
        let known = slots.all.map(\.id)
        let ids = known + (next.plugins.map(\.id) + catalog.ids).filter { !known.contains($0) }
        var seen = Set<String>()
        for id in ids where seen.insert(id).inserted && only?.contains(id) != false {
            let was = current.entry(for: id)?.enabled == true, now = next.entry(for: id)?.enabled == true
            let state = slots[id]?.lifecycle
            switch (was, now) {
            case (true, false): toStop.append(id)
            case (false, true): toStart.append(id)
            case (false, false): state == nil ? toList.append(id) : unchanged.append(id)
            case (true, true):
                if Self.entry(id, in: current) != Self.entry(id, in: next) { toReconfigure.append(id) }
                else if state == .rejected || state == .failed || state == nil { toRetry.append(id) }
                else { unchanged.append(id) }
            }
        }
    }

    /// A plugin's entry as the file wrote it.
    static func entry(_ id: String, in deployment: Deployment) -> JSONValue? {
        deployment.document["plugins"]?.arrayValue?.first { $0["id"]?.stringValue == id }
    }
}
