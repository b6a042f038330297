import Synchronization
import TesseraLoader
import TesseraManifest
import TesseraSDK
import TesseraStorage

/// One plugin's place in the host: its manifest, its state with the reason, its loaded generations,
/// and the running instance with its context. All mutable state sits behind one lock.
final class PluginSlot: Sendable {
    let id: String
    private let state: Mutex<State>

    struct State {
        var lifecycle: LifecycleState = .discovered
        var reason: String?
        var history: [String] = []
        var manifest: PluginManifest?
        var manifestFile: String?
        var library: VerifiedLibrary?
        var generation: LoadedGeneration?
        var generationNumber = 0
        var retired: [LoadedGeneration] = []
        var instance: (any Plugin)?
        var context: PluginContext?
        var grants: [String: JSONValue] = [:]
        /// The serving generation's capability bindings, released when it stops serving.
        var bindings: [any CapabilityBinding] = []
        /// The plugin's database, kept for the next generation of a hot swap.
        var storage: SQLitePluginStorage?
        var inflight = 0
        /// While a swap moves state across, new calls wait here instead of reaching either generation.
        var admissionClosed = false
        var queued: [CheckedContinuation<Void, Never>] = []
        var drained: CheckedContinuation<Void, Never>?
        /// A swap is under way (one at a time).
        var swapping = false
    }

    init(id: String) {
        self.id = id
        state = Mutex(State())
    }

    func withState<T>(_ body: (inout State) throws -> T) rethrows -> T {
        try state.withLock { try body(&$0) }
    }

    /// Moves to `lifecycle`, recording the step in the history (and the reason, for non-happy states).
    func transition(_ lifecycle: LifecycleState, _ note: String) {
        state.withLock {
            $0.lifecycle = lifecycle
            $0.reason = lifecycle.needsReason ? note : nil
            $0.history.append("\(lifecycle.rawValue): \(note)")
        }
    }

    var lifecycle: LifecycleState { state.withLock { $0.lifecycle } }

    /// Admits one call if the plugin is active and no swap holds admission: its manifest and
    /// context. Pair with ``endCall()``.
    func beginCall() -> (PluginManifest, PluginContext)? {
        state.withLock { s in
            guard s.lifecycle == .active, !s.admissionClosed, let manifest = s.manifest, let context = s.context else { return nil }
            s.inflight += 1
            return (manifest, context)
        }
    }

    /// Admits one call, waiting while a swap holds admission closed; `nil` if the plugin is not
    /// active. Pair with ``endCall()``.
    func admit() async -> (PluginManifest, PluginContext)? {
        while true {
            if let admitted = beginCall() { return admitted }
            let mustWait = state.withLock { $0.admissionClosed }
            guard mustWait else { return nil }
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let waiting = state.withLock { s -> Bool in
                    guard s.admissionClosed else { return false }
                    s.queued.append(c)
                    return true
                }
                if !waiting { c.resume() }
            }
        }
    }

    func endCall() {
        let drained = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.inflight -= 1
            guard s.inflight == 0 else { return nil }
            defer { s.drained = nil }
            return s.drained
        }
        drained?.resume()
    }

    // MARK: Swapping

    /// Holds new calls (they wait in ``admit()``) until ``openAdmission()``.
    func closeAdmission() { state.withLock { $0.admissionClosed = true } }

    /// Lets the held calls through, to whatever generation the slot now points at.
    func openAdmission() {
        let queued = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.admissionClosed = false
            defer { s.queued = [] }
            return s.queued
        }
        for waiter in queued { waiter.resume() }
    }

    /// Waits until no call is in flight, or `timeout` passes; whether it drained.
    func drain(timeout: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                    let idle = self.state.withLock { s -> Bool in
                        if s.inflight == 0 { return true }
                        s.drained = c
                        return false
                    }
                    if idle { c.resume() }
                }
                return true
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            if !first {
                // Give up waiting: release the drain waiter so the group can finish.
                let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
                    defer { s.drained = nil }
                    return s.drained
                }
                waiter?.resume()
            }
            group.cancelAll()
            return first
        }
    }

    /// Marks a swap as started; `false` if one already is.
    func beginSwap() -> Bool {
        state.withLock { s in
            if s.swapping { return false }
            s.swapping = true
            return true
        }
    }

    func endSwap() { state.withLock { $0.swapping = false } }

    var status: PluginStatus {
        // The process tier's figures are read outside the slot's lock: the plugin takes its own.
        let processPlugin = state.withLock { $0.instance } as? ProcessPlugin
        var status = state.withLock { s in
            PluginStatus(
                id: id, name: s.manifest?.name, version: s.manifest?.version.description, state: s.lifecycle,
                reason: s.reason, manifestFile: s.manifest?.file ?? s.manifestFile, libraryPath: s.library?.path,
                sha256: s.library?.sha256,
                stampedABI: s.library.map { "\($0.stamp.sdkABIMajor).\($0.stamp.sdkABIMinor)" },
                buildID: s.library?.buildID, generation: s.generationNumber, retiredGenerations: s.retired.count,
                retiredBytes: s.retiredBytes,
                grants: s.grants, operations: s.manifest?.operations.map(\.name) ?? [], history: s.history)
        }
        status.isolation = processPlugin?.isolationStatus ?? .inProcess
        return status
    }
}

extension PluginSlot.State {
    /// Points the slot at a committed generation: its instance, context, bindings and manifest; a
    /// library generation replacing another retires the one it replaces.
    mutating func serve(_ candidate: GenerationCandidate) {
        manifest = candidate.manifest
        grants = candidate.grants
        instance = candidate.instance
        context = candidate.context
        bindings = candidate.bindings
        storage = candidate.storage ?? storage
        if let loaded = candidate.loaded, loaded.stagedPath != generation?.stagedPath {
            if let previous = generation { retired.append(previous) }
            generation = loaded
            library = loaded.library
        }
    }

    /// What the retired generations keep mapped: each distinct library once (a build swapped out,
    /// in and out again is one mapping: `dlopen` of a path already loaded returns that image).
    var retiredBytes: Int {
        var seen = Set<String>()
        return retired.reduce(0) { sum, generation in
            seen.insert(generation.stagedPath).inserted && generation.stagedPath != self.generation?.stagedPath
                ? sum + generation.library.size : sum
        }
    }
}
