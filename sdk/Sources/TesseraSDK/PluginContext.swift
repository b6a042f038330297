import Foundation
import Synchronization

/// What the host hands a plugin at start: its identity, its configuration, the capabilities the
/// operator granted (and nothing else), and the place to register its handlers.
///
/// ```swift
/// func start(context: PluginContext) async throws {
///     let storage = try context.capability(.storage)
///     context.onOperation("add-note", input: NewNote.self) { note, call in
///         try await storage.write { $0.put("notes", id: note.id, ["text": .text(note.text)]) }
///         return Saved(id: note.id)
///     }
/// }
/// ```
public final class PluginContext: Sendable {
    /// The plugin's id, from its manifest.
    public let pluginID: String
    /// The operator's configuration for this plugin, validated against the manifest's `config` schema.
    public let config: JSONValue
    /// Where the plugin's log lines go. The host adds the plugin id to each line.
    public let log: PluginLog

    private let capabilities: [String: GrantedCapability]
    fileprivate let registrations = Mutex(Registrations())

    fileprivate struct Registrations {
        var operations: [String: OperationHandler] = [:]
        var textOperations: [String: OperationTextHandler] = [:]
        var timers: [String: TimerHandler] = [:]
        var events: [String: EventHandler] = [:]
        var location: LocationHandler?
        var remoteChanges: RemoteChangesHandler?
    }

    /// Creates a context. Hosts and test harnesses call this; plugins receive one.
    ///
    /// - Parameters:
    ///   - pluginID: the plugin's id, from its manifest.
    ///   - config: the operator's configuration for the plugin, already validated.
    ///   - capabilities: the granted capability objects, e.g. `[GrantedCapability(.storage, db)]`.
    ///   - log: where the plugin's log lines go.
    public init(pluginID: String, config: JSONValue, capabilities: [GrantedCapability], log: PluginLog) {
        self.pluginID = pluginID
        self.config = config
        self.capabilities = Dictionary(capabilities.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
        self.log = log
    }

    /// The granted capability named by `key`.
    ///
    /// - Throws: ``PluginError`` with code `notGranted` if the operator did not grant it.
    public func capability<Value>(_ key: CapabilityKey<Value>) throws -> Value {
        guard let value = capabilities[key.name]?.value(as: Value.self) else {
            throw PluginError(.notGranted, "capability '\(key.name)' is not granted to plugin '\(pluginID)'")
        }
        return value
    }

    /// Whether the capability named by `key` was granted.
    public func isGranted<Value>(_ key: CapabilityKey<Value>) -> Bool {
        capabilities[key.name]?.value(as: Value.self) != nil
    }

    /// The names of the granted capabilities.
    public var grantedCapabilities: [String] { capabilities.keys.sorted() }

    /// Registers the handler of an operation declared in the manifest. A later registration of the
    /// same name replaces the earlier one.
    public func onOperation(_ name: String, _ handler: @escaping OperationHandler) {
        registrations.withLock { $0.operations[name] = handler }
    }

    /// Registers a typed handler: the validated input is decoded as `Input` and the result encoded
    /// as JSON. A decoding failure reaches the caller as `invalidInput`, naming the field and the
    /// rule it broke (``PluginError/invalidInput(decoding:at:)``), never Swift's own error text.
    public func onOperation<Input: Decodable & Sendable, Output: Encodable & Sendable>(
        _ name: String, input: Input.Type,
        _ handler: @escaping @Sendable (Input, OperationCall) async throws -> Output
    ) {
        onOperation(name) { call in
            let input: Input
            do {
                input = try call.decodeInput(as: Input.self)
            } catch {
                throw PluginError.invalidInput(decoding: error)
            }
            return try JSONValue(encoding: try await handler(input, call))
        }
    }

    /// Registers the handler of timers scheduled under `name`.
    public func onTimer(_ name: String, _ handler: @escaping TimerHandler) {
        registrations.withLock { $0.timers[name] = handler }
    }

    /// Subscribes to an event of another plugin, named `publisher-id/event` as the manifest's
    /// `consumes` declares it. The handler gets each event at least once, in publish order; if it
    /// throws, the host retries that event with backoff before handing over the next one.
    public func onEvent(_ qualifiedName: String, _ handler: @escaping EventHandler) {
        registrations.withLock { $0.events[qualifiedName] = handler }
    }

    /// Subscribes to the location feed (needs the `location` capability): the handler gets every
    /// accepted fix, in timestamp order per device.
    public func onLocationFix(_ handler: @escaping LocationHandler) {
        registrations.withLock { $0.location = handler }
    }

    /// Tells the plugin which rows of its synced tables changed because of changes from other
    /// devices or members (needs the `sync` capability and `sync.tables` in the manifest). Called
    /// after each sync round that changed rows, once they are in the tables.
    public func onRemoteChanges(_ handler: @escaping RemoteChangesHandler) {
        registrations.withLock { $0.remoteChanges = handler }
    }

    /// The remote-changes handler, if one is registered. Used by the host.
    @available(*, deprecated, message: "host-only: a plugin has no use for it; the host reads handlers through hostHandlers")
    public var remoteChangesHandler: RemoteChangesHandler? {
        registrations.withLock { $0.remoteChanges }
    }

    /// The handler registered for events named `publisher-id/event`, if any. Used by the host.
    @available(*, deprecated, message: "host-only: a plugin has no use for it; the host reads handlers through hostHandlers")
    public func eventHandler(_ qualifiedName: String) -> EventHandler? {
        registrations.withLock { $0.events[qualifiedName] }
    }

    /// The location handler, if one is registered. Used by the host.
    @available(*, deprecated, message: "host-only: a plugin has no use for it; the host reads handlers through hostHandlers")
    public var locationHandler: LocationHandler? {
        registrations.withLock { $0.location }
    }

    /// The handler registered for an operation, if any. Used by the host to dispatch.
    @available(*, deprecated, message: "host-only: a plugin has no use for it; the host reads handlers through hostHandlers")
    public func operationHandler(_ name: String) -> OperationHandler? {
        registrations.withLock { $0.operations[name] }
    }

    /// The handler registered for timers named `name`, if any. Used by the host to fire timers.
    @available(*, deprecated, message: "host-only: a plugin has no use for it; the host reads handlers through hostHandlers")
    public func timerHandler(_ name: String) -> TimerHandler? {
        registrations.withLock { $0.timers[name] }
    }

    /// The names of the registered operations, sorted.
    public var registeredOperations: [String] {
        registrations.withLock { $0.operations.keys.sorted() }
    }
}

/// The handlers a plugin registered on its context, as the host reads them to dispatch operations,
/// timers, events, location fixes and sync changes.
///
/// Host-only: it is SPI (`@_spi(TesseraHost) import TesseraSDK`), so a plugin does not see it.
/// It replaces the context's deprecated `operationHandler(_:)`, `timerHandler(_:)`,
/// `eventHandler(_:)`, `locationHandler` and `remoteChangesHandler`, which stay for the ABI.
@_spi(TesseraHost)
public struct RegisteredHandlers: Sendable {
    let context: PluginContext

    /// The handler registered for an operation, if any.
    public func operation(_ name: String) -> OperationHandler? {
        context.withRegistrations { $0.operations[name] }
    }

    /// The handler registered for an operation that answers with JSON text (the host's
    /// forwarder to the process tier), if any; an operation has one beside its ``operation(_:)``.
    public func operationText(_ name: String) -> OperationTextHandler? {
        context.withRegistrations { $0.textOperations[name] }
    }

    /// The handler registered for timers named `name`, if any.
    public func timer(_ name: String) -> TimerHandler? {
        context.withRegistrations { $0.timers[name] }
    }

    /// The handler registered for events named `publisher-id/event`, if any.
    public func event(_ qualifiedName: String) -> EventHandler? {
        context.withRegistrations { $0.events[qualifiedName] }
    }

    /// The location handler, if one is registered.
    public var location: LocationHandler? {
        context.withRegistrations { $0.location }
    }

    /// The remote-changes handler, if one is registered.
    public var remoteChanges: RemoteChangesHandler? {
        context.withRegistrations { $0.remoteChanges }
    }
}

extension PluginContext {
    /// The handlers the plugin registered, for the host's dispatch. Host-only (SPI).
    @_spi(TesseraHost)
    public var hostHandlers: RegisteredHandlers { RegisteredHandlers(context: self) }

    /// Registers, beside an operation's handler, one that answers with JSON text the host hands
    /// on without reading it into a tree (the process tier's forwarder: its answer comes as text).
    /// Host-only (SPI); it replaces an earlier one of the same name.
    @_spi(TesseraHost)
    public func onOperation(_ name: String, answeringText handler: @escaping OperationTextHandler) {
        registrations.withLock { $0.textOperations[name] = handler }
    }

    /// Forgets every handler the plugin registered, once its instance has stopped. Host-only (SPI).
    ///
    /// A handler that captured the context (the usual way to reach a capability) is held by the
    /// context it captured: neither would ever be freed, nor the capabilities and the host's
    /// stores they hold, after the plugin stopped or was swapped out.
    @_spi(TesseraHost)
    public func removeAllHandlers() {
        registrations.withLock { $0 = Registrations() }
    }

    fileprivate func withRegistrations<T>(_ body: (Registrations) -> T) -> T {
        registrations.withLock { body($0) }
    }
}

/// A plugin's log. Lines go to the host's log with the plugin's id attached; never log secrets.
public struct PluginLog: Sendable {
    /// How important a line is.
    public enum Level: String, Sendable, CaseIterable {
        /// Detail for debugging.
        case debug
        /// Normal operation.
        case info
        /// Something unexpected that the plugin handled.
        case warning
        /// Something failed.
        case error
    }

    private let sink: @Sendable (Level, String) -> Void

    /// Creates a log that hands each line to `sink`.
    public init(sink: @escaping @Sendable (Level, String) -> Void) { self.sink = sink }

    /// A log that drops every line.
    public static var discarding: PluginLog { PluginLog { _, _ in } }

    /// Logs a line at `level`.
    public func log(_ level: Level, _ message: @autoclosure () -> String) { sink(level, message()) }
    /// Logs a debug line.
    public func debug(_ message: @autoclosure () -> String) { sink(.debug, message()) }
    /// Logs an info line.
    public func info(_ message: @autoclosure () -> String) { sink(.info, message()) }
    /// Logs a warning.
    public func warning(_ message: @autoclosure () -> String) { sink(.warning, message()) }
    /// Logs an error.
    public func error(_ message: @autoclosure () -> String) { sink(.error, message()) }
}
