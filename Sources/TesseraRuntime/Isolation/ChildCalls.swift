import Foundation
import TesseraIsolation
@_spi(TesseraHost) import TesseraSDK

/// A capability call from a plugin that speaks the capability protocol — a process-tier child, or
/// a C-ABI plugin in either tier — as the handler of its method receives it: the parameters, and
/// the serving generation's context — the capability objects the providers built for this plugin,
/// with the operator's grants — so the same checks run as for a Swift plugin in the host's
/// process. A capability that was not granted is refused by `context.capability`.
struct ChildCall {
    let params: JSONValue
    let context: PluginContext
    /// What the plugin holds between calls (open file writers, the timers routed to it).
    let session: any CapabilityCallSession
}

/// What a plugin that speaks the capability protocol holds in the host between its calls.
protocol CapabilityCallSession: Sendable {
    /// The file writers it holds open, by handle.
    var fileWriters: FileWriterHandles { get }
    /// Routes the timers named `name` to it (a timer it schedules under a new name).
    func routeTimer(_ name: String, on context: PluginContext)
}

/// How the host answers one method of the capability protocol (``CapabilityMethodSpec``). Each
/// capability's provider gives its handlers (``CapabilityProvider/childCalls``), in its own file.
struct ChildCallHandler: Sendable {
    let method: CapabilityMethodSpec
    let answer: @Sendable (ChildCall) async throws -> JSONValue

    init(_ method: CapabilityMethodSpec, _ answer: @escaping @Sendable (ChildCall) async throws -> JSONValue) {
        self.method = method
        self.answer = answer
    }

    /// A method whose result is `null`.
    init(_ method: CapabilityMethodSpec, returningNothing run: @escaping @Sendable (ChildCall) async throws -> Void) {
        self.init(method) { call in
            try await run(call)
            return .null
        }
    }
}

/// Every method the host answers for a plugin's process, by name: the providers' handlers and
/// `log`. The process tier dispatches through it; nothing else names a method.
struct ChildCallTable: Sendable {
    private let handlers: [String: ChildCallHandler]

    init(_ handlers: [ChildCallHandler]) {
        var byName: [String: ChildCallHandler] = [:]
        for handler in handlers {
            precondition(byName[handler.method.name] == nil, "two handlers for \(handler.method.name)")
            byName[handler.method.name] = handler
        }
        self.handlers = byName
    }

    /// The names answered.
    var names: Set<String> { Set(handlers.keys) }

    /// Answers `method` through its handler, for a plugin whose calls `session` holds; a method
    /// the host does not answer is refused (`forbidden`), whichever tier or ABI asked.
    func answer(_ method: String, _ params: JSONValue, context: PluginContext, session: any CapabilityCallSession) async throws -> JSONValue {
        guard let handler = handlers[method] else {
            throw PluginError(.forbidden, "plugin '\(context.pluginID)' asked for '\(method)', which the host does not answer")
        }
        return try await handler.answer(ChildCall(params: params, context: context, session: session))
    }

    /// `log`, which every plugin may call: a line under its id, at its level.
    static let log = ChildCallHandler(LogMethods.log, returningNothing: { call in
        let level = PluginLog.Level(rawValue: call.params["level"]?.stringValue ?? "") ?? .info
        call.context.log.log(level, call.params["message"]?.stringValue ?? "")
    })
}

extension ProcessPlugin {
    /// Answers a capability call from the child through the handler declared for its method.
    func answerChild(_ method: String, _ params: JSONValue) async throws -> JSONValue {
        guard let context = state.withLock({ $0.context }) else { throw PluginError(.unavailable, "the plugin is not started") }
        return try await calls.answer(method, params, context: context, session: self)
    }
}

extension JSONValue {
    /// A string parameter of a capability call; a missing one is refused naming it.
    func wireField(_ key: String) throws -> String {
        guard let s = self[key]?.stringValue else { throw PluginError(.invalidInput, "the call has no '\(key)'", field: key) }
        return s
    }
}
