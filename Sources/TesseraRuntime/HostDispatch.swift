import Foundation
import TesseraClock
import TesseraManifest
import TesseraSystem
@_spi(TesseraHost) import TesseraSDK

extension PluginHost {
    /// Calls an operation with JSON text as input: parsed, then as ``call(_:_:input:as:)``. The
    /// call carries the text too, so a plugin in the process tier is sent these bytes rather than
    /// the tree written again (``OperationFrame``).
    public func call(_ pluginID: String, _ operation: String, json: some Collection<UInt8>, as principal: Principal) async throws(PluginError) -> JSONValue {
        try await call(pluginID, operation, text: (json as? [UInt8]) ?? Array(json), as: principal)
    }

    /// ``call(_:_:json:as:)`` for text that is an array already (the edge's bodies): parsed in
    /// place and handed on as it is. The edge calls this one through ``HostAPI``, without the
    /// generic entry's cast and copy and one async frame fewer (docs/benchmarks.md, eighteenth pass).
    func call(_ pluginID: String, _ operation: String, text: [UInt8], as principal: Principal) async throws(PluginError) -> JSONValue {
        try await dispatch(pluginID, operation, input: try Self.input(parsing: text), text: text, as: principal, answeringText: false).value
    }

    /// ``call(_:_:json:as:)`` for a caller that writes the answer out as JSON (the edge): a
    /// plugin in the process tier answers with the text its child sent, checked but not read into
    /// a tree (``OperationAnswer``); one in the host's process with its value.
    public func answer(_ pluginID: String, _ operation: String, json text: [UInt8], as principal: Principal) async throws(PluginError) -> OperationAnswer {
        try await dispatch(pluginID, operation, input: try Self.input(parsing: text), text: text, as: principal, answeringText: true)
    }

    private static func input(parsing text: [UInt8]) throws(PluginError) -> JSONValue {
        do { return try JSONValue(parsing: text) } catch {
            throw PluginError(.invalidInput, "the input is not JSON: \(error)", field: "$")
        }
    }

    /// Calls an operation. The host checks, in order, before any plugin code runs: the plugin exists
    /// and is active, the operation is declared, the principal's role may call it, and the input
    /// satisfies the operation's schema. Errors a plugin throws as ``PluginError`` reach the caller
    /// as they are; any other error becomes `internal` with a generic message (and is logged).
    public func call(_ pluginID: String, _ operation: String, input: JSONValue, as principal: Principal) async throws(PluginError) -> JSONValue {
        try await dispatch(pluginID, operation, input: input, text: nil, as: principal, answeringText: false).value
    }

    /// A call, with the JSON text its input was parsed from when it came as text. `answeringText`:
    /// the caller takes an answer as text, so a plugin that answers with text (the process tier's
    /// forwarder) is asked for it.
    ///
    /// The checks and the failures are functions of their own, not written out here: what an async
    /// function holds lives in its frame, allocated for every call, and the messages' text and the
    /// checks' temporaries made this one 3 KB (`tessera-bench edge`, docs/benchmarks.md).
    private func dispatch(_ pluginID: String, _ operation: String, input: JSONValue, text: [UInt8]?,
                          as principal: Principal, answeringText: Bool) async throws(PluginError) -> OperationAnswer {
        guard let slot = registry[pluginID] else { throw noSlot(pluginID) }
        // Nearly every call is admitted at once; only one that meets a swap waits (one async
        // frame fewer on the common path).
        var admitted = slot.beginCall()
        if admitted == nil { admitted = await slot.admit() }
        guard let (manifest, context) = admitted else { throw Self.notActive(slot) }
        defer { slot.endCall() }
        let handler = try Self.checkedHandler(pluginID, operation, manifest: manifest, context: context, input: input,
                                              as: principal, answeringText: answeringText)
        let call = text.map { OperationCall(operation: operation, input: input, inputText: $0, principal: principal) }
            ?? OperationCall(operation: operation, input: input, principal: principal)
        do {
            switch handler {
            case .text(let answersWithText): return .text(try await onSharedPool { try await answersWithText(call) })
            case .value(let handler): return .value(try await onSharedPool { try await handler(call) })
            }
        } catch {
            throw failure(error, of: pluginID, operation, manifest: manifest)
        }
    }

    /// The handler a call goes to, once the host's checks pass: the operation is declared, the
    /// principal's role may call it, the input satisfies its schema, the plugin registered it.
    private static func checkedHandler(_ pluginID: String, _ operation: String, manifest: PluginManifest, context: PluginContext,
                                       input: JSONValue, as principal: Principal, answeringText: Bool) throws(PluginError) -> CallHandler {
        // The declaration read in place, not copied (``PluginManifest/operationIndex(named:)``).
        guard let index = manifest.operationIndex(named: operation) else {
            throw PluginError(.notFound, "plugin '\(pluginID)' has no operation '\(operation)'")
        }
        guard manifest.operations[index].roles.contains(principal.role) else {
            throw PluginError(.forbidden, "operation '\(operation)' of '\(pluginID)' is not open to the role '\(principal.role)'")
        }
        if let violation = manifest.operations[index].inputSchema.validate(input).first {
            throw PluginError(.invalidInput, violation.message, field: violation.path)
        }
        guard let handler = context.hostHandlers.operation(operation) else {
            throw PluginError(.unavailable, "plugin '\(pluginID)' declares '\(operation)' but registered no handler for it")
        }
        if answeringText, let answersWithText = context.hostHandlers.operationText(operation) { return .text(answersWithText) }
        return .value(handler)
    }

    /// Which of a plugin's handlers answers a call.
    private enum CallHandler {
        case value(OperationHandler)
        /// The process tier's forwarder, which answers with the child's text.
        case text(OperationTextHandler)
    }

    /// What a call to a plugin the registry has no slot for fails with.
    private func noSlot(_ pluginID: String) -> PluginError {
        // Enabled by the deployment but not yet set up: the host is still starting (the edge
        // listens first), which a client should wait out, not take for "no such plugin".
        if deployment.entry(for: pluginID)?.enabled == true { return PluginError.starting(pluginID) }
        return PluginError(.notFound, "no plugin '\(pluginID)' in this host")
    }

    /// What a call to a plugin that is not active fails with.
    private static func notActive(_ slot: PluginSlot) -> PluginError {
        let status = slot.status
        return PluginError(.unavailable, "plugin '\(slot.id)' is not active: \(status.state.rawValue)\(status.reason.map { " (\($0))" } ?? "")")
    }

    /// What a handler's error becomes for the caller: a ``PluginError`` as it is, any other error
    /// `internal` with a generic message (and logged).
    private func failure(_ error: any Error, of pluginID: String, _ operation: String, manifest: PluginManifest) -> PluginError {
        if let error = error as? PluginError {
            if let reason = error.reason, manifest.reasons[reason.rawValue] == nil {
                // Still answered as given: the caller gets the refusal; the author learns to list it.
                log(.warning, pluginID, "operation '\(operation)' refused with reason '\(reason)', which the manifest's 'reasons' does not list")
            }
            return error
        }
        log(.error, pluginID, "operation '\(operation)' threw: \(error)")
        return PluginError(.internal, "operation '\(operation)' of '\(pluginID)' failed")
    }

    /// Delivers a due timer to its plugin, if the plugin is active now; otherwise it stays due.
    static func fire(_ timer: StoredTimer, at firedAt: Date, registry: SlotRegistry, log: HostLog) async -> TimerScheduler.Outcome {
        guard let slot = registry[timer.plugin], let (_, context) = await slot.admit() else { return .deferred }
        defer { slot.endCall() }
        guard let handler = context.hostHandlers.timer(timer.name) else {
            return .failed("plugin '\(timer.plugin)' registered no handler for timer '\(timer.name)'")
        }
        do {
            try await onSharedPool { try await handler(TimerFiring(key: timer.key, name: timer.name, dueAt: timer.fireAt, firedAt: firedAt, payload: timer.payload)) }
            return .delivered
        } catch {
            log(.warning, timer.plugin, "timer '\(timer.key)' handler threw: \(error)")
            return .failed("\(error)")
        }
    }

    /// Advances the virtual clock by `seconds`, firing every timer that falls due, in time order.
    public func advanceClock(by seconds: TimeInterval) async throws -> [TimerScheduler.Firing] {
        try await timers.advance(to: clock.now().addingTimeInterval(seconds))
    }

    /// Sets the virtual clock to `time`: forwards fires what falls due on the way; backwards only
    /// moves the clock.
    public func setClock(to time: Date) async throws -> [TimerScheduler.Firing] {
        guard let virtual = virtualClock else {
            throw PluginError(.conflict, "deployment '\(deployment.name)' uses the system clock; only a virtual clock can be set")
        }
        if time <= virtual.now() {
            virtual.set(to: time)
            return []
        }
        return try await timers.advance(to: time)
    }
}

extension PluginError {
    /// What a call to a plugin the host is still starting gets: `unavailable` (503), and the edge
    /// adds `Retry-After` (``startingMessageEnding`` marks it).
    static func starting(_ pluginID: String) -> PluginError {
        PluginError(.unavailable, "plugin '\(pluginID)' \(startingMessageEnding)")
    }

    /// The end of the message of ``starting(_:)``.
    public static let startingMessageEnding = "is starting; try again in a moment"
}
