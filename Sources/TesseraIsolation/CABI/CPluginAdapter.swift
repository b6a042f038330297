import Foundation
import Synchronization
import TesseraLoader
@_spi(TesseraHost) import TesseraSDK

/// A C-ABI plugin (`tessera_plugin.h`) as the SDK's ``Plugin``: what lets the host run it in
/// either tier, swap it and hold it to its grants exactly as a Swift plugin.
///
/// Every call into the instance runs on the instance's own thread (``CPluginThread``), one at a
/// time. Its calls back into the host (`host->call`) go to a ``CCapabilityRouter``: the providers'
/// handlers in the host's process, the socket to the host in the process tier.
public final class CPluginAdapter: Plugin, Sendable {
    private let table: CPluginTable
    private let router: any CCapabilityRouter
    private let thread = CPluginThread()
    private let state = Mutex(State())

    private struct State {
        /// The instance `create` made, until `destroy`.
        var instance: Instance?
        /// The context the host started it with.
        var context: PluginContext?
    }

    /// The plugin's opaque instance pointer; only the instance's thread calls through it.
    private struct Instance: @unchecked Sendable { let pointer: UnsafeMutableRawPointer }

    /// An adapter for `table`'s plugin whose capability calls `router` answers.
    public init(table: CPluginTable, router: any CCapabilityRouter) {
        self.table = table
        self.router = router
    }

    private var api: tessera_plugin_api_t { table.api.pointee }

    public var migrations: [StorageMigration] { table.migrations }

    // MARK: Plugin

    public func start(context: PluginContext) async throws {
        state.withLock { $0.context = context }
        let config = Array(context.config.serialized().utf8)
        let registered = try await thread.run { [self] () throws -> JSONValue in
            // The instance finds this adapter through its host_context; the adapter outlives it
            // (the host holds the adapter until `stop`, which destroys the instance).
            let hostContext = Unmanaged.passUnretained(self).toOpaque()
            guard let instance = api.create!(CHostFunctions.table, hostContext) else {
                throw PluginError(.internal, "the plugin's create made no instance")
            }
            state.withLock { $0.instance = Instance(pointer: instance) }
            return try answer { result in config.withUnsafeBufferPointer { api.start!(instance, $0.baseAddress, $0.count, result) } }
        }
        route(registered, on: context)
    }

    public func stop() async {
        _ = try? await thread.run { [self] in
            guard let instance = state.withLock({ s -> Instance? in
                defer { s.instance = nil }
                return s.instance
            })?.pointer else { return }
            api.stop!(instance)
            api.destroy!(instance)
        }
        thread.finish()
    }

    public func exportState() async throws -> PluginState? {
        try await thread.run { [self] () throws -> PluginState? in
            let instance = try liveInstance()
            var schema: UInt32 = 0
            let (status, bytes) = collect { api.export_state!(instance, &schema, $0) }
            guard status == TESSERA_OK else { throw pluginError(bytes) }
            return bytes.isEmpty ? nil : PluginState(schema: Int(schema), bytes: bytes)
        }
    }

    public func importState(_ imported: PluginState) async throws {
        _ = try await thread.run { [self] in
            let instance = try liveInstance()
            return try answer { result in
                imported.bytes.withUnsafeBufferPointer { api.import_state!(instance, UInt32(clamping: imported.schema), $0.baseAddress, $0.count, result) }
            }
        }
    }

    // MARK: Calls into the instance

    /// An operation's call: `{"input", "principal"}` to `handle`.
    public func handle(_ call: OperationCall) async throws -> JSONValue {
        let bytes = Array(JSONValue.object(["input": call.input, "principal": ["id": .string(call.principal.id),
                                                                               "role": .string(call.principal.role.rawValue)]]).serialized().utf8)
        let operation = call.operation
        return try await thread.run { [self] in
            let instance = try liveInstance()
            return try answer { result in
                operation.withCString { name in bytes.withUnsafeBufferPointer { api.handle!(instance, name, $0.baseAddress, $0.count, result) } }
            }
        }
    }

    /// Something delivered to `receive`: a `timer`, an `event` or a `location` fix.
    public func receive(_ kind: String, _ payload: JSONValue) async throws {
        let bytes = Array(payload.serialized().utf8)
        _ = try await thread.run { [self] in
            let instance = try liveInstance()
            return try answer { result in
                kind.withCString { name in bytes.withUnsafeBufferPointer { api.receive!(instance, name, $0.baseAddress, $0.count, result) } }
            }
        }
    }

    /// Registers on the context what `start` said to route to the instance.
    private func route(_ registered: JSONValue, on context: PluginContext) {
        for name in registered["operations"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
            context.onOperation(name) { [unowned self] call in try await self.handle(call) }
        }
        for name in registered["timers"]?.arrayValue?.compactMap(\.stringValue) ?? [] { routeTimer(name, on: context) }
        for name in registered["events"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
            context.onEvent(name) { [unowned self] event in
                try await self.receive("event", ["qualifiedName": .string(name), "event": event.wire])
            }
        }
        if registered["location"]?.boolValue == true {
            context.onLocationFix { [unowned self] fix in try await self.receive("location", fix.wire) }
        }
    }

    /// Routes timers named `name` to the instance (at start, and when it schedules a new name).
    public func routeTimer(_ name: String, on context: PluginContext) {
        guard context.hostHandlers.timer(name) == nil else { return }
        context.onTimer(name) { [unowned self] firing in try await self.receive("timer", firing.wire) }
    }

    // MARK: Calls from the instance

    /// `host->call`, on the instance's thread (or one of its own).
    func answerCapabilityCall(_ method: String, _ params: JSONValue) throws -> JSONValue {
        guard let context = state.withLock({ $0.context }) else { throw PluginError(.unavailable, "the plugin is not started") }
        return try router.answer(method, params, context: context, adapter: self)
    }

    /// `host->log`.
    func log(_ level: PluginLog.Level, _ message: String) {
        state.withLock { $0.context }?.log.log(level, message)
    }

    // MARK: Buffers

    private func liveInstance() throws -> UnsafeMutableRawPointer {
        guard let instance = state.withLock({ $0.instance }) else { throw PluginError(.unavailable, "the plugin is not started") }
        return instance.pointer
    }

    /// Calls a function that fills a result buffer, and takes the bytes (giving the buffer back).
    private func collect(_ invoke: (UnsafeMutablePointer<tessera_buffer_t>) -> Int32) -> (Int32, [UInt8]) {
        var buffer = tessera_buffer_t(data: nil, length: 0)
        let status = invoke(&buffer)
        guard let data = buffer.data else { return (status, []) }
        let bytes = Array(UnsafeBufferPointer(start: data, count: buffer.length))
        api.free_buffer!(&buffer)
        return (status, bytes)
    }

    /// The JSON a function answered, or the error it answered as a ``PluginError``.
    private func answer(_ invoke: (UnsafeMutablePointer<tessera_buffer_t>) -> Int32) throws -> JSONValue {
        let (status, bytes) = collect(invoke)
        guard status == TESSERA_OK else { throw pluginError(bytes) }
        guard !bytes.isEmpty else { return .null }
        do { return try JSONValue(parsing: bytes) } catch {
            throw PluginError(.internal, "the plugin answered with bytes that are not JSON (\(error))")
        }
    }

    /// `{"code", "message", "field"?, "reason"?}` as a ``PluginError``. A field named plainly
    /// (`text`) is the input's member, as the host's own refusals name it (`$.text`).
    private func pluginError(_ bytes: [UInt8]) -> PluginError {
        guard let json = try? JSONValue(parsing: bytes), let code = json["code"]?.stringValue else {
            return PluginError(.internal, "the plugin failed without saying why")
        }
        let field = json["field"]?.stringValue.map { $0.hasPrefix("$") ? $0 : "$.\($0)" }
        return PluginError(PluginError.Code(rawValue: code), json["message"]?.stringValue ?? "the plugin refused", field: field,
                           reason: json["reason"]?.stringValue.map(PluginError.Code.init(rawValue:)))
    }
}
