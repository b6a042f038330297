import Foundation
import TesseraIsolation
@_spi(TesseraHost) import TesseraSDK

/// The host's side of the child's capability calls: each is answered by the real capability
/// object on the serving generation's context — the one its provider built for this plugin, with
/// the operator's grant — so the same checks run as for a plugin in the host's process. A
/// capability that was not granted is refused by `context.capability`, as in-process.
extension ProcessPlugin {
    func answerChild(_ method: String, _ params: JSONValue) async throws -> JSONValue {
        guard let context = state.withLock({ $0.context }) else { throw PluginError(.unavailable, "the plugin is not started") }
        switch method {
        case CapabilityMethod.storageWrite:
            try await context.capability(.storage).write(try WriteBatch(wire: params))
            return .null
        case CapabilityMethod.storageQuery:
            let parameters = try (params["parameters"]?.arrayValue ?? []).map(SQLValue.init(wire:))
            let rows = try await context.capability(.storage).query(params["sql"]?.stringValue ?? "", parameters)
            return .array(rows.map(\.wire))
        case CapabilityMethod.clockNow:
            return try context.capability(.clock).now().wire
        case CapabilityMethod.clockSleep:
            try await context.capability(.clock).sleep(until: try Date(wire: params))
            return .null
        case CapabilityMethod.clockSchedule:
            let timer = try TimerRequest(wire: params)
            try await context.capability(.clock).schedule(timer)
            routeTimer(timer.name, on: context)
            return .null
        case CapabilityMethod.clockCancel:
            try await context.capability(.clock).cancelTimer(key: params.stringValue ?? "")
            return .null
        case CapabilityMethod.clockPending:
            return .array(try await context.capability(.clock).pendingTimers().map(\.wire))
        case CapabilityMethod.notificationsSchedule:
            try await context.capability(.notifications).schedule(try NotificationRequest(wire: params))
            return .null
        case CapabilityMethod.notificationsCancel:
            try await context.capability(.notifications).cancel(key: params.stringValue ?? "")
            return .null
        case CapabilityMethod.notificationsPending:
            return .array(try await context.capability(.notifications).pending().map(\.wire))
        case CapabilityMethod.eventsPublish:
            try await context.capability(.events).publish(params["name"]?.stringValue ?? "", params["payload"] ?? .null)
            return .null
        case CapabilityMethod.secretsGet:
            return try await context.capability(.secrets).secret(named: params.stringValue ?? "")?.wire ?? .null
        case CapabilityMethod.secretsStore:
            try await context.capability(.secrets).store(try Secret(wire: params["secret"] ?? .null), named: params["name"]?.stringValue ?? "")
            return .null
        case CapabilityMethod.secretsRemove:
            try await context.capability(.secrets).removeSecret(named: params.stringValue ?? "")
            return .null
        case CapabilityMethod.secretsNames:
            return .array(try await context.capability(.secrets).secretNames().map(JSONValue.string))
        case CapabilityMethod.log:
            let level = PluginLog.Level(rawValue: params["level"]?.stringValue ?? "") ?? .info
            context.log.log(level, params["message"]?.stringValue ?? "")
            return .null
        default:
            if let answer = try await answerFiles(method, params, on: context) { return answer }
            if let answer = try await answerHTTPAndLocation(method, params, on: context) { return answer }
            if let answer = try await answerSync(method, params, on: context) { return answer }
            throw PluginError(.forbidden, "the plugin's process asked for '\(method)', which the host does not answer")
        }
    }
}
