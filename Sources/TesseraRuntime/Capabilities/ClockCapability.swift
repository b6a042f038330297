import Foundation
import TesseraClock
import TesseraIsolation
import TesseraManifest
import TesseraSDK

/// `clock`: the host's clock (system or virtual) and the plugin's persisted timers.
struct ClockProvider: CapabilityProvider {
    let name = "clock"
    let version = SemanticVersion(1, 0, 0)
    let source: any ClockSource
    let timers: any TimerStore

    func prepare(_ request: CapabilityRequest) throws -> any CapabilityBinding {
        let clock = PluginClock(pluginID: request.manifest.id, source: source, store: timers, permissions: request.grant)
        return ObjectBinding(granted: GrantedCapability(.clock, clock as any HostClock))
    }
}

extension ClockProvider {
    /// The process tier's clock calls (``ClockMethods``). A timer the child schedules is routed
    /// back to it when it fires.
    var childCalls: [ChildCallHandler] {
        [ChildCallHandler(ClockMethods.now) { call in try call.context.capability(.clock).now().wire },
         ChildCallHandler(ClockMethods.sleep, returningNothing: { call in
            try await call.context.capability(.clock).sleep(until: try Date(wire: call.params))
         }),
         ChildCallHandler(ClockMethods.schedule, returningNothing: { call in
            let timer = try TimerRequest(wire: call.params)
            try await call.context.capability(.clock).schedule(timer)
            call.session.routeTimer(timer.name, on: call.context)
         }),
         ChildCallHandler(ClockMethods.cancelTimer, returningNothing: { call in
            try await call.context.capability(.clock).cancelTimer(key: call.params.stringValue ?? "")
         }),
         ChildCallHandler(ClockMethods.pendingTimers) { call in
            .array(try await call.context.capability(.clock).pendingTimers().map(\.wire))
         }]
    }
}
