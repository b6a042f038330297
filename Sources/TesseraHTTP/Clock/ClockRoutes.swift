import Foundation
import Hummingbird
import TesseraClock
import TesseraManifest
import TesseraRuntime
import TesseraSDK

/// `GET /v1/clock` and `POST /v1/clock/advance`: the host's clock, and moving a virtual one.
///
/// Why a route rather than `tessera clock advance` beside a running server: that command opens a
/// second host on the same data directory, and the server's host would go on with its own copy of
/// the virtual time (older), firing nothing and stamping later calls with the wrong time. Moving
/// the clock inside the serving host keeps one clock, and what falls due is delivered there — to
/// the inbox and the SSE stream at once.
struct ClockRoutes: Sendable {
    let host: any HostAPI
    let maxBodyBytes: Int
    /// One advance at a time: two at once could each fire the same due timer.
    let gate = AdvanceGate()

    /// `{"by": "2h30m"}`: days, hours, minutes and seconds, in that order, each part 1–99 days or
    /// 1–999 of the smaller units. The bound keeps one request's work small: advancing fires every
    /// timer on the way, and a daily job over centuries would keep the server busy for hours. The
    /// pattern says all of it, so the OpenAPI document tells a client exactly what passes.
    static let advanceInput = RouteInput([
        "type": "object", "required": ["by"], "additionalProperties": false,
        "properties": ["by": ["type": "string", "minLength": 2,
                              "pattern": "^([1-9][0-9]?d)?([1-9][0-9]{0,2}h)?([1-9][0-9]{0,2}m)?([1-9][0-9]{0,2}s)?$"]],
    ])

    /// `GET /v1/clock`: `{"now": ISO 8601, "kind": "system" | "virtual"}`.
    func show(_ request: Request, context: APIRequestContext) -> Response {
        .json(["now": .string(host.clock.now().formatted(.iso8601)), "kind": host.virtualClock == nil ? "system" : "virtual"])
    }

    /// `POST /v1/clock/advance` (admin): moves a virtual clock forward, firing what falls due in
    /// time order. 409 on a deployment with the system clock.
    func advance(_ request: Request, context: APIRequestContext) async throws -> Response {
        guard context.principal?.role == .admin else {
            throw APIError(.forbidden, code: "forbidden", "only an admin token may move the clock")
        }
        let input = try await Self.advanceInput.read(request, limit: maxBodyBytes)
        guard let seconds = DurationText.seconds(input["by"]?.stringValue ?? ""), seconds > 0 else {
            throw APIError(.badRequest, code: "invalid_input", "expected a positive duration such as 30s, 2h30m or 6d", field: "$.by")
        }
        guard host.virtualClock != nil else {
            throw APIError(.conflict, code: "conflict", "deployment '\(host.deployment.name)' uses the system clock; only a virtual clock can be advanced")
        }
        let firings = try await gate.run { try await host.advanceClock(by: TimeInterval(seconds)) }
        return .json(["now": .string(host.clock.now().formatted(.iso8601)), "fired": .array(firings.map(Self.json))])
    }

    static func json(_ firing: TimerScheduler.Firing) -> JSONValue {
        let outcome: String = switch firing.outcome {
        case .delivered: "fired"
        case .failed: "failed"
        case .deferred: "deferred"
        }
        return ["plugin": .string(firing.timer.plugin), "key": .string(firing.timer.key),
                "at": .string(firing.timer.fireAt.formatted(.iso8601)), "outcome": .string(outcome)]
    }
}

/// Runs one body at a time, in arrival order.
actor AdvanceGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        }
        busy = true
        defer {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
        return try await body()
    }
}
