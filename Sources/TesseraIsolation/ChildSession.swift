import Foundation
import Synchronization
import TesseraLoader
@_spi(TesseraHost) import TesseraSDK

/// The names of the host's calls into the child, as ``ChildSession`` answers them.
public enum ChildMethod {
    /// `{"path", "pluginID", "abi": "swift"|"c", "protocols": [versions]}` → gates 2 and 3 on the staged copy, an
    /// instance made: `{"migrations": […], "protocol": the capability protocol's version agreed}`,
    /// or `{"refused": {gate, field, expected, found, hint}}`.
    public static let load = "load"
    /// `{"pluginID", "config", "capabilities": [names]}` → `start(context:)` with proxies for those
    /// capabilities: `{"operations", "timers", "events": [names], "location": Bool}`.
    public static let start = "start"
    /// An ``OperationCall`` → the handler's result. Sent as ``PeerMessage/operation(id:_:)``: the
    /// input crosses as the text it came as (``OperationFrame``).
    public static let operation = "operation"
    /// A ``LocationFix`` → `null` once the plugin's location handler returned.
    public static let location = "location"
    /// A ``RemoteChanges`` → `null` once the plugin's `onRemoteChanges` handler returned.
    public static let remoteChanges = "remoteChanges"
    /// A ``TimerFiring`` → `null` once the handler returned.
    public static let timer = "timer"
    /// `{"qualifiedName", "event": PublishedEvent}` → `null` once the handler returned.
    public static let event = "event"
    /// `exportState()` on the instance (a hot swap moves it to the new build's child):
    /// `{"schema", "bytes": base64}`, or `null` for none.
    public static let exportState = "exportState"
    /// `{"schema", "bytes": base64}` → `importState(_:)` on the instance: `null`.
    public static let importState = "importState"
    /// `stop()` on the instance; the child exits when the host then closes the socket.
    public static let stop = "stop"
}

/// The child's side: one plugin instance, loaded from its staged library, started with proxy
/// capabilities, answering the host's calls.
final class ChildSession: Sendable {
    private let peer: Mutex<PeerConnection?> = Mutex(nil)
    private let loaded = Mutex<(instance: any Plugin, context: PluginContext?)?>(nil)
    /// What this process's sandbox enforces; the answer to `load` carries it to the host.
    private let sandbox: SandboxReport

    init(sandbox: SandboxReport) { self.sandbox = sandbox }

    func attach(_ peer: PeerConnection) { self.peer.withLock { $0 = peer } }

    func handle(_ method: String, _ params: JSONValue) async throws -> JSONValue {
        switch method {
        case ChildMethod.load: return try load(params)
        case ChildMethod.start: return try await start(params)
        case ChildMethod.operation: return try await operation(OperationCall(wire: params))
        case ChildMethod.timer:
            let firing = try TimerFiring(wire: params)
            guard let handler = handlers()?.timer(firing.name) else {
                throw PluginError(.unavailable, "the plugin registered no handler for timer '\(firing.name)'")
            }
            try await handler(firing)
            return .null
        case ChildMethod.event:
            let name = try params.wireString("qualifiedName")
            guard let handler = handlers()?.event(name) else {
                throw PluginError(.unavailable, "the plugin registered no handler for event '\(name)'")
            }
            try await handler(try PublishedEvent(wire: params["event"] ?? .null))
            return .null
        case ChildMethod.location:
            guard let handler = handlers()?.location else { throw PluginError(.unavailable, "the plugin registered no location handler") }
            try await handler(try LocationFix(wire: params))
            return .null
        case ChildMethod.remoteChanges:
            guard let handler = handlers()?.remoteChanges else { throw PluginError(.unavailable, "the plugin registered no remote-changes handler") }
            try await handler(try RemoteChanges(wire: params))
            return .null
        case ChildMethod.exportState:
            guard let state = try await loaded.withLock({ $0?.instance })?.exportState() else { return .null }
            return ["schema": .integer(Int64(state.schema)), "bytes": BytesWire.encode(state.bytes)]
        case ChildMethod.importState:
            guard let schema = params["schema"]?.integerValue else { throw WireFormatError("a state schema", params["schema"]) }
            try await loaded.withLock({ $0?.instance })?.importState(PluginState(schema: Int(schema), bytes: try BytesWire.decode(params["bytes"])))
            return .null
        case ChildMethod.stop:
            await loaded.withLock { $0?.instance }?.stop()
            return .null
        default:
            throw PluginError(.invalidInput, "the plugin runner has no method '\(method)'")
        }
    }

    /// An operation call: its input is the host's text, which a typed handler decodes directly.
    func operation(_ call: OperationCall) async throws -> JSONValue {
        guard let handler = handlers()?.operation(call.operation) else {
            throw PluginError(.unavailable, "the plugin registered no handler for '\(call.operation)'")
        }
        return try await handler(call)
    }

    private func handlers() -> RegisteredHandlers? { loaded.withLock { $0?.context?.hostHandlers } }

    /// Gates 2 and 3 here, in the child: the library's constructors and entry symbol run in this
    /// process, never in the host's.
    private func load(_ params: JSONValue) throws -> JSONValue {
        let path = try params.wireString("path")
        // The capability protocol: the highest version both sides speak (a host that sends none
        // speaks version 1).
        let offered = params["protocols"]?.arrayValue?.compactMap(\.integerValue).map(Int.init) ?? [1]
        guard let agreed = CapabilityProtocol.agree(offered: offered) else {
            let refusal = GateRefusal(gate: 3, field: "capability protocol", expected: "one of versions \(offered)",
                                      found: "this process speaks versions \(CapabilityProtocol.supported)")
            return ["refused": refusal.wire, "sandbox": sandbox.wire]
        }
        do throws(GateRefusal) {
            let (_, answer) = try LibraryLoader.openAndShakeHands(path: path, isCABI: params["abi"]?.stringValue == "c",
                                                                  expectedID: params["pluginID"]?.stringValue)
            let instance: any Plugin
            switch answer.code {
            case .swift(let factory): instance = factory.makePlugin()
            case .c(let table):
                // A C-ABI plugin's capability calls go to the host as they are, answered there.
                guard let peer = peer.withLock({ $0 }) else {
                    throw GateRefusal(gate: 3, field: "load", expected: "a connection to the host", found: "none yet")
                }
                instance = CPluginAdapter(table: table, router: PeerCapabilityRouter(peer: peer))
            }
            loaded.withLock { $0 = (instance, nil) }
            return ["migrations": .array(instance.migrations.map(\.wire)), "pluginID": .string(answer.pluginID),
                    "sandbox": sandbox.wire, "protocol": .integer(Int64(agreed))]
        } catch {
            return ["refused": error.wire, "sandbox": sandbox.wire]
        }
    }

    private func start(_ params: JSONValue) async throws -> JSONValue {
        guard let peer = peer.withLock({ $0 }), let instance = loaded.withLock({ $0?.instance }) else {
            throw PluginError(.unavailable, "start before load")
        }
        let names = (params["capabilities"]?.arrayValue ?? []).compactMap(\.stringValue)
        let httpHosts = (params["httpHosts"]?.arrayValue ?? []).compactMap(\.stringValue)
        let log = PluginLog { level, message in
            peer.notify(LogMethods.log.name, ["level": .string(level.rawValue), "message": .string(message)])
        }
        let context = PluginContext(pluginID: try params.wireString("pluginID"), config: params["config"] ?? .object([:]),
                                    capabilities: ChildCapabilities.granted(names, peer: peer, httpHosts: httpHosts,
                                                                            hostTime: params["now"].flatMap { try? Date(wire: $0) }), log: log)
        loaded.withLock { $0?.context = context }
        try await instance.start(context: context)
        return registrations(context, params: params)
    }

    /// What the plugin registered, so the host can route to it: operations and timers by the
    /// names the host asks about (the manifest's), events by the consumed names.
    private func registrations(_ context: PluginContext, params: JSONValue) -> JSONValue {
        let handlers = context.hostHandlers
        let timers = (params["timerNames"]?.arrayValue ?? []).compactMap(\.stringValue).filter { handlers.timer($0) != nil }
        let events = (params["eventNames"]?.arrayValue ?? []).compactMap(\.stringValue).filter { handlers.event($0) != nil }
        return ["operations": .array(context.registeredOperations.map(JSONValue.string)),
                "timers": .array(timers.map(JSONValue.string)), "events": .array(events.map(JSONValue.string)),
                "location": .bool(handlers.location != nil), "remoteChanges": .bool(handlers.remoteChanges != nil)]
    }
}

extension GateRefusal {
    public var wire: JSONValue {
        var o: [String: JSONValue] = ["gate": .integer(Int64(gate)), "field": .string(field), "expected": .string(expected), "found": .string(found)]
        if let hint { o["hint"] = .string(hint) }
        return .object(o)
    }
    public init(wire: JSONValue) {
        self.init(gate: Int(wire["gate"]?.integerValue ?? 2), field: wire["field"]?.stringValue ?? "load",
                  expected: wire["expected"]?.stringValue ?? "", found: wire["found"]?.stringValue ?? "", hint: wire["hint"]?.stringValue)
    }
}
