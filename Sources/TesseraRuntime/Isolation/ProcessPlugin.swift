import Foundation
import Synchronization
import TesseraClock
import TesseraIsolation
import TesseraLoader
import TesseraManifest
@_spi(TesseraHost) import TesseraSDK

/// A plugin in the process tier, as the host sees it: a ``Plugin`` whose code runs in a child
/// process (``PluginChild``). The generation pipeline builds its context with the real capability
/// objects, exactly as for a plugin in the host's process; ``start(context:)`` starts the plugin
/// in the child, whose proxies call back into those objects (``answerChild(_:_:)``), and registers
/// on the host's context one forwarder per handler the plugin registered in the child, so dispatch,
/// timers and events reach it unchanged.
///
/// It also supervises the child: a crash fails the calls in flight with `plugin_crashed`, a call
/// past its deadline gets `plugin_timeout` and the child is killed; the plugin restarts after a
/// backoff on the host's clock, and a crash loop quarantines it (``IsolationPolicy``).
final class ProcessPlugin: Plugin, CapabilityCallSession, Sendable {
    let manifest: PluginManifest
    /// The staged library and what the child's sandbox is asked for (``ChildSandbox``).
    let sandbox: ChildSandbox
    var stagedPath: String { sandbox.library }
    let runner: String
    let clock: any ClockSource
    let policy: IsolationPolicy
    let hostLog: HostLog
    /// Told when the plugin is quarantined, with the reason (the slot's state follows it).
    let onQuarantine: @Sendable (String) -> Void
    let migrations: [StorageMigration]
    /// How the host answers the child's capability calls: the providers' handlers (``ChildCallTable``).
    let calls: ChildCallTable
    let state = Mutex(State())
    /// The file writers the child holds open in the host.
    let fileWriters: FileWriterHandles
    /// The deadlines of the calls in flight into the child (``forward(_:_:timeout:what:)``).
    let deadlines: CallDeadlines

    struct State {
        var child: PluginChild?
        /// The host-side context of the serving generation, once started.
        var context: PluginContext?
        var crashes: [Date] = []
        var restartAt: Date?
        var lastCrash: String?
        var quarantined: String?
        var restarting: Task<PluginChild, any Error>?
        var stopping = false
        /// How many children this plugin has had (1 for the first).
        var launches = 0
        /// What the latest child's sandbox enforces, as it reported.
        var sandboxReport: SandboxReport = .none
    }

    private init(manifest: PluginManifest, sandbox: ChildSandbox, runner: String, clock: any ClockSource, policy: IsolationPolicy,
                 log: HostLog, migrations: [StorageMigration], calls: ChildCallTable, onQuarantine: @escaping @Sendable (String) -> Void) {
        self.manifest = manifest
        self.calls = calls
        self.fileWriters = FileWriterHandles(limit: policy.maxOpenFileWriters)
        self.sandbox = sandbox
        self.runner = runner
        self.clock = clock
        self.deadlines = CallDeadlines(clock: clock)
        self.policy = policy
        self.hostLog = log
        self.migrations = migrations
        self.onQuarantine = onQuarantine
    }

    /// Gates 2 and 3 in a new child, on the staged copy that passed gate 1 here, and the
    /// capability protocol's version agreed (the child answers with one the host offered). A
    /// refusal is the child's, as a ``GateRefusal``; the child is gone then. `calls` answers the
    /// child's capability calls once it serves.
    static func launch(manifest: PluginManifest, sandbox: ChildSandbox, clock: any ClockSource, policy: IsolationPolicy,
                       log: HostLog, calls: ChildCallTable, onQuarantine: @escaping @Sendable (String) -> Void) async throws -> ProcessPlugin {
        let runner = PluginRunnerExecutable.path
        let child = try PluginChild.spawn(runner: runner, sandbox: sandbox, output: { line in log(.warning, manifest.id, "output: \(line)") },
                                          handler: { _, _ in .null }) { _, exit in
            PluginError(.pluginCrashed, "the plugin's process \(sandbox.describe(exit)) while loading")
        }
        let answer: JSONValue
        let load: JSONValue = ["path": .string(sandbox.library), "pluginID": .string(manifest.id), "abi": .string(manifest.abi.rawValue),
                               "protocols": .array(CapabilityProtocol.supported.map { .integer(Int64($0)) })]
        do { answer = try await child.peer.call(ChildMethod.load, load) } catch {
            throw GateRefusal(gate: 2, field: "dlopen", expected: "the library loaded in the plugin's process", found: "\(error)")
        }
        child.shutDown()
        let report = SandboxReport(wire: answer["sandbox"] ?? .null)
        ChildSandbox.logWarnings(report, pluginID: manifest.id, log: log)
        if let refused = answer["refused"] { throw GateRefusal(wire: refused) }
        let agreed = Int(answer["protocol"]?.integerValue ?? 1)
        guard CapabilityProtocol.supported.contains(agreed) else {
            throw GateRefusal(gate: 3, field: "capability protocol", expected: "one of versions \(CapabilityProtocol.supported)",
                              found: "version \(agreed)")
        }
        let migrations = try (answer["migrations"]?.arrayValue ?? []).map(StorageMigration.init(wire:))
        let plugin = ProcessPlugin(manifest: manifest, sandbox: sandbox, runner: runner, clock: clock, policy: policy,
                                   log: log, migrations: migrations, calls: calls, onQuarantine: onQuarantine)
        plugin.state.withLock { $0.sandboxReport = report }
        return plugin
    }

    // MARK: Plugin

    func start(context: PluginContext) async throws {
        state.withLock { $0.context = context }
        _ = try await respawn()
    }

    /// How long a child has to stop before it is killed.
    static let stopGrace: Duration = .seconds(10)

    func stop() async {
        let child = state.withLock { s -> PluginChild? in
            s.stopping = true
            s.restarting?.cancel()
            return s.child
        }
        guard let child else { return }
        // Stopping never hangs on a plugin: a child that has not answered `stop`, closed its end
        // and exited within the grace is killed (its socket closes, pending calls fail, and it is
        // reaped). The grace is the system clock's, as a supervisor's kill timeout is.
        let grace = Task {
            try await Task.sleep(for: Self.stopGrace)
            child.kill()
        }
        _ = try? await child.peer.call(ChildMethod.stop)
        child.shutDown()
        // Returns once the child is gone: a swapped-out generation leaves no process behind.
        await child.reaped()
        grace.cancel()
        // The plugin's last lines are in the journal before `stop` returns.
        await child.outputRelayed(atMost: .seconds(2))
        deadlines.cancelAll()
        fileWriters.cancelAll()
    }

    /// The plugin's in-memory state, from its child (a hot swap moves it to the new build's child).
    func exportState() async throws -> PluginState? {
        let answer = try await serving().peer.call(ChildMethod.exportState)
        guard answer != .null else { return nil }
        guard let schema = answer["schema"]?.integerValue else { throw PluginError(.internal, "the plugin's process exported a state with no schema") }
        return PluginState(schema: Int(schema), bytes: try BytesWire.decode(answer["bytes"]))
    }

    func importState(_ state: PluginState) async throws {
        _ = try await serving().peer.call(ChildMethod.importState, ["schema": .integer(Int64(state.schema)), "bytes": BytesWire.encode(state.bytes)])
    }

    // MARK: The child

    /// A new child: load, then start with the serving context, then route the plugin's handlers.
    func respawn() async throws -> PluginChild {
        guard let context = state.withLock({ $0.context }) else { throw PluginError(.unavailable, "not started") }
        let child = try PluginChild.spawn(runner: runner, sandbox: sandbox, lanes: PeerConnection.lanesPerChild(asked: policy.callLanes),
                                          busyPolling: BusyPolling(microseconds: policy.busyPollMicroseconds),
                                          maxCallsInFlight: policy.maxCapabilityCallsInFlight,
                                          output: { [hostLog, id = manifest.id] line in hostLog(.warning, id, "output: \(line)") },
                                          handler: { [weak self] method, params in
            guard let self else { throw PluginError(.unavailable, "the plugin stopped") }
            return try await self.answerChild(method, params)
        }, exited: { [weak self] child, exit in
            self?.childExited(child, exit) ?? PluginError(.pluginCrashed, "the plugin's process \(exit)")
        })
        do {
            let loaded = try await child.peer.call(ChildMethod.load, ["path": .string(stagedPath), "pluginID": .string(manifest.id),
                                                                              "abi": .string(manifest.abi.rawValue)])
            if let refused = loaded["refused"] { throw GateRefusal(wire: refused) }
            let report = SandboxReport(wire: loaded["sandbox"] ?? .null)
            let launches = state.withLock { s -> Int in s.child = child; s.launches += 1; s.sandboxReport = report; return s.launches }
            let timerNames = Set(manifest.jobs.map(\.name) + (await pendingTimerNames(context)))
            let registered = try await child.peer.call(ChildMethod.start, [
                "pluginID": .string(manifest.id), "config": context.config,
                "capabilities": .array(context.grantedCapabilities.map(JSONValue.string)),
                "timerNames": .array(timerNames.sorted().map(JSONValue.string)),
                "eventNames": .array(manifest.consumes.map(JSONValue.string)),
                "httpHosts": .array(((try? context.capability(.http))?.grantedHosts ?? []).map(JSONValue.string)),
                // The host's time, so the child has one before it can ask (issue 44: it never reads the wall clock).
                "now": (try? context.capability(.clock))?.now().wire ?? .null,
            ])
            route(registered, on: context)
            hostLog(.info, manifest.id, "process tier: child \(child.pid) serving (launch \(launches))")
            return child
        } catch {
            // Not counted by ``childExited``: the caller (``serving()``) counts a failed restart.
            state.withLock { if $0.child === child { $0.child = nil } }
            child.kill()
            throw error
        }
    }

    /// Registers on the host's context a forwarder for each handler the plugin registered.
    private func route(_ registered: JSONValue, on context: PluginContext) {
        for name in (registered["operations"]?.arrayValue ?? []).compactMap(\.stringValue) {
            let timeout = manifest.operation(named: name)?.timeoutSeconds ?? policy.callTimeout
            let what = "operation '\(name)'"  // made once, not per call
            context.onOperation(name) { [unowned self] call in
                try await self.forward(.operation(OperationFrame(call)), timeout: timeout, what: what)
            }
            // What the edge calls: the child's answer handed on as the text it came as.
            context.onOperation(name, answeringText: { [unowned self] call in
                try await self.forward(.operation(OperationFrame(call)), timeout: timeout, what: what, asText: true)
            })
        }
        for name in (registered["timers"]?.arrayValue ?? []).compactMap(\.stringValue) { routeTimer(name, on: context) }
        if registered["location"]?.boolValue == true {
            context.onLocationFix { [unowned self] fix in
                _ = try await self.forward(.method(ChildMethod.location, fix.wire), timeout: policy.callTimeout, what: "the location handler")
            }
        }
        if registered["remoteChanges"]?.boolValue == true {
            context.onRemoteChanges { [unowned self] changes in
                _ = try await self.forward(.method(ChildMethod.remoteChanges, changes.wire), timeout: policy.callTimeout, what: "the remote-changes handler")
            }
        }
        for name in (registered["events"]?.arrayValue ?? []).compactMap(\.stringValue) {
            context.onEvent(name) { [unowned self] event in
                _ = try await self.forward(.method(ChildMethod.event, ["qualifiedName": .string(name), "event": event.wire]),
                                           timeout: policy.callTimeout, what: "event '\(name)'")
            }
        }
    }

    /// Routes timers named `name` to the child (at start, and when the plugin schedules a new name).
    func routeTimer(_ name: String, on context: PluginContext) {
        guard context.hostHandlers.timer(name) == nil else { return }
        context.onTimer(name) { [unowned self] firing in
            _ = try await self.forward(.method(ChildMethod.timer, firing.wire), timeout: policy.callTimeout, what: "timer '\(name)'")
        }
    }

    /// How long a caller reads its answer on its own thread before suspending (``CallLanes``):
    /// longer than a quick call's round trip, short enough that holding a thread costs little.
    /// The caller sleeps in `read` with this as the socket's receive timeout, which the kernel
    /// keeps on its tick and rounds up to whole ticks: a wait that runs out lasts 4–8 ms on a
    /// 250 Hz kernel (``FrameConnection/readWaiting(atMost:)``, docs/isolation.md, "Lanes").
    static let briefWait: Duration = .microseconds(250)

    /// One call into the child, answered within `timeout` seconds on the host's clock. The caller
    /// reads a quick answer itself, on a lane (``CallLanes``), or is resumed by the reader thread;
    /// the deadline is one entry in ``deadlines`` (no task of its own per call).
    func forward(_ request: PeerConnection.Request, timeout: TimeInterval, what: String) async throws -> JSONValue {
        let child = try await serving()
        let watch = DeadlineWatch()
        return try await child.peer.call(request, waitingBriefly: Self.briefWait,
                                         started: watch.starting(deadline(child, timeout, what)), answered: watch.answered(deadlines))
    }

    /// As ``forward(_:timeout:what:)``, the answer handed back as the JSON text the child sent,
    /// checked but not read into a value (``PeerConnection/callForText(_:waitingBriefly:started:answered:)``).
    func forward(_ request: PeerConnection.Request, timeout: TimeInterval, what: String, asText: Bool) async throws -> [UInt8] {
        let child = try await serving()
        let watch = DeadlineWatch()
        return try await child.peer.callForText(request, waitingBriefly: Self.briefWait,
                                                started: watch.starting(deadline(child, timeout, what)), answered: watch.answered(deadlines))
    }

    /// Records a call's deadline in ``deadlines`` once the call has its number.
    private func deadline(_ child: PluginChild, _ timeout: TimeInterval, _ what: String) -> (Int) -> UInt64 {
        let deadline = clock.now().addingTimeInterval(timeout)
        return { [deadlines] id in deadlines.watch(until: deadline) { [self] in timedOut(child, call: id, what: what, timeout: timeout) } }
    }

    /// A call's deadline came first: the child stops serving now (so no call reaches it and its
    /// reaping counts no second crash), the restart is scheduled, the call is answered
    /// `plugin_timeout`, and the child is killed.
    private func timedOut(_ child: PluginChild, call id: Int, what: String, timeout: TimeInterval) {
        let current = state.withLock { s -> Bool in
            guard s.child === child else { return false }
            s.child = nil
            return true
        }
        if current { _ = recordCrash("\(what) ran past its deadline of \(Self.seconds(timeout)), so its process \(child.pid) was killed") }
        child.peer.fail(call: id, with: PluginError(.pluginTimeout, "\(what) of '\(manifest.id)' did not return within \(Self.seconds(timeout)); its process was killed and restarts"))
        child.kill()
    }

    static func seconds(_ t: TimeInterval) -> String { t == t.rounded() ? "\(Int(t)) s" : "\(t) s" }
}

extension ProcessPlugin {
    /// The names of the timers the plugin scheduled itself (not its jobs), so the new child routes
    /// them. Unreadable, they are said in the log: such a timer would fire with no handler.
    fileprivate func pendingTimerNames(_ context: PluginContext) async -> [String] {
        guard let clock = try? context.capability(.clock) else { return [] }  // no clock granted: no timers
        do { return try await clock.pendingTimers().map(\.name) } catch {
            hostLog(.warning, manifest.id, "process tier: the plugin's pending timers could not be read (\(error)); those it scheduled itself fail when they fall due until it starts again")
            return []
        }
    }
}

/// One call's deadline: whether its answer came, and the deadline's key once recorded. The answer
/// may arrive before the deadline is recorded, and then it must not be.
private final class DeadlineWatch: Sendable {
    private let state = Mutex<(answered: Bool, key: UInt64?)>((false, nil))

    /// What the call does once sent: records the deadline with `watch`, unless answered already.
    func starting(_ watch: @escaping (Int) -> UInt64) -> (Int) -> Void {
        { [self] id in
            state.withLock { w in
                guard !w.answered else { return }
                w.key = watch(id)
            }
        }
    }

    /// What the call does once answered: forgets its deadline, if recorded.
    func answered(_ deadlines: CallDeadlines) -> @Sendable () -> Void {
        { [self] in
            if let key = state.withLock({ w -> UInt64? in w.answered = true; return w.key }) { deadlines.forget(key) }
        }
    }
}
