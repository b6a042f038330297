import Synchronization
import TesseraSDK

/// Counts how many calls reached plugin code, so a test can show that a refused request never did.
final class CallCounter: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .relaxed) }
    func increment() { count.add(1, ordering: .relaxed) }
}

/// The plugin the HTTP tests call, linked into the test process (`HostOptions.inProcessPlugins`):
/// it echoes, fails with any error code asked for, throws a non-Tessera error, and says who called.
final class ProbePlugin: Plugin {
    static let id = "test.probe"
    let counter: CallCounter

    init(counter: CallCounter) { self.counter = counter }

    func start(context: PluginContext) async throws {
        let counter = self.counter
        context.onOperation("echo") { call in
            counter.increment()
            return call.input
        }
        context.onOperation("fail") { call in
            counter.increment()
            let code = PluginError.Code(rawValue: call.input["code"]?.stringValue ?? "internal")
            throw PluginError(code, call.input["message"]?.stringValue ?? "failed as asked", field: call.input["field"]?.stringValue)
        }
        context.onOperation("crash") { _ in
            counter.increment()
            throw ProbeCrash(secret: "/var/lib/secret-path")
        }
        context.onOperation("whoami") { call in
            counter.increment()
            return ["id": .string(call.principal.id), "role": .string(call.principal.role.rawValue)]
        }
        context.onOperation("admin-only") { _ in
            counter.increment()
            return ["ok": true]
        }
        // For the inbox and the SSE stream: a notification due now (delivered when the clock
        // moves), and an event.
        context.onOperation("notify") { call in
            let clock = try context.capability(.clock)
            let title = call.input["title"]?.stringValue ?? "ping"
            try await context.capability(.notifications).schedule(NotificationRequest(
                key: title, title: title, body: "from the probe", payload: [:], schedule: .at(clock.now())))
            return ["ok": true]
        }
        // Answers once the test lets it (``HeldCalls``): a request a connection's task is still
        // answering, for as long as a test needs. A name no test holds answers at once.
        context.onOperation("hold") { call in
            counter.increment()
            await HeldCalls.shared.wait(for: call.input["name"]?.stringValue ?? "")
            return ["released": true]
        }
        context.onOperation("publish") { call in
            try await context.capability(.events).publish("pinged", call.input)
            return ["ok": true]
        }
    }

    struct ProbeCrash: Error { let secret: String }

    /// The capabilities the probe asks for (and the test deployment grants).
    static var requires: [[String: Any]] { ["clock", "notifications", "events"].map { ["capability": $0, "version": "^1.0"] }
        + [["capability": "storage", "version": "^1.0", "optional": true]] }

    /// The probe's manifest `operations`: small schemas, one admin-only operation, and one schema
    /// with `nullable`, `$defs` and `$ref` for the OpenAPI translation.
    static var operations: [[String: Any]] {
        let object: [String: Any] = ["type": "object"]
        return [
            ["name": "echo", "summary": "Returns its input.", "input": [
                "type": "object", "additionalProperties": false,
                "properties": [
                    "text": ["type": "string", "maxLength": 100000],
                    "count": ["type": "integer", "minimum": 0],
                    "note": ["type": "string", "nullable": true],
                    "size": ["enum": ["s", "m"], "nullable": true],
                    "where": ["$ref": "#/$defs/place"],
                ] as [String: Any],
                "$defs": ["place": ["type": "object", "required": ["lat"], "properties": ["lat": ["type": "number", "nullable": true]]]],
            ] as [String: Any], "output": object],
            ["name": "fail", "input": [
                "type": "object", "required": ["code"],
                "properties": ["code": ["type": "string"], "message": ["type": "string"], "field": ["type": "string"]],
            ] as [String: Any], "output": object],
            ["name": "crash", "input": object, "output": object],
            ["name": "whoami", "input": object, "output": [
                "type": "object", "properties": ["id": ["type": "string"], "role": ["type": "string"]],
            ] as [String: Any]],
            ["name": "admin-only", "input": object, "output": object, "roles": ["admin"]],
            ["name": "notify", "input": ["type": "object", "properties": ["title": ["type": "string"]]] as [String: Any], "output": object],
            ["name": "publish", "input": object, "output": object],
            ["name": "hold", "input": ["type": "object", "properties": ["name": ["type": "string"]]] as [String: Any], "output": object],
        ]
    }
}

/// The `hold` calls a test holds: a held name's calls wait until the test releases it.
final class HeldCalls: Sendable {
    static let shared = HeldCalls()
    private let state = Mutex<(held: Set<String>, waiting: [String: [CheckedContinuation<Void, Never>]],
                                watchers: [String: [CheckedContinuation<Void, Never>]])>(([], [:], [:]))

    /// From now, calls of `hold` with this name wait for ``release(_:)``.
    func hold(_ name: String) { state.withLock { _ = $0.held.insert(name) } }

    /// Lets the name's waiting calls answer, and any later ones at once.
    func release(_ name: String) {
        let waiting = state.withLock { state in
            state.held.remove(name)
            return state.waiting.removeValue(forKey: name) ?? []
        }
        for call in waiting { call.resume() }
    }

    func wait(for name: String) async {
        await withCheckedContinuation { call in
            let (answerNow, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                guard state.held.contains(name) else { return (true, []) }
                state.waiting[name, default: []].append(call)
                return (false, state.watchers.removeValue(forKey: name) ?? [])
            }
            if answerNow { call.resume() }
            for watcher in watchers { watcher.resume() }
        }
    }

    /// Returns once a call of the held `name` waits (at once if one does already).
    func arrival(of name: String) async {
        await withCheckedContinuation { watcher in
            let now = state.withLock { state in
                guard state.waiting[name]?.isEmpty ?? true else { return true }
                state.watchers[name, default: []].append(watcher)
                return false
            }
            if now { watcher.resume() }
        }
    }
}

/// A plugin whose start fails: the host parks it in `failed`, and calls to it get 503.
final class BrokenPlugin: Plugin {
    static let id = "test.broken"
    struct StartError: Error {}
    func start(context: PluginContext) async throws { throw StartError() }
}
