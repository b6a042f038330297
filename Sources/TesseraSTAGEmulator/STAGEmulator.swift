import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// An IS/STAG emulator on loopback (docs/stag-emulator.md): the REST paths `/ws/services/rest2/...`,
/// the SSO login redirect, HTTP Basic, ticket expiry, enrolment rules, a settable clock and fault injection.
public final class STAGEmulator: Sendable {
    public let state: EmulatorState
    private let running = Mutex<(group: ServiceGroup, task: Task<Void, any Error>)?>(nil)

    public init(now: Date = Date(timeIntervalSince1970: 1_644_000_000)) {
        state = EmulatorState(now: now)
    }

    /// Starts serving on 127.0.0.1:`port` (0 = any) and returns the bound port.
    public func start(port: Int = 0) async throws -> Int {
        let logger = Logger(label: "stag-emulator")
        let (ports, sink) = AsyncStream<Int>.makeStream()
        let app = Application(router: EmulatorRoutes.make(state: state),
                              configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port)),
                              onServerRunning: { channel in sink.yield(channel.localAddress?.port ?? 0); sink.finish() },
                              logger: logger)
        let group = ServiceGroup(services: [app], logger: logger)
        let task = Task { defer { sink.finish() }; try await group.run() }
        running.withLock { $0 = (group, task) }
        for await bound in ports { return bound }
        try await task.value
        throw CancellationError()
    }

    /// Stops the server.
    public func stop() async {
        guard let (group, task) = running.withLock({ $0 }) else { return }
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        running.withLock { $0 = nil }
    }

    /// Runs until the process is stopped (the CLI).
    public func runForever(port: Int) async throws {
        let bound = try await start(port: port)
        print("stag-emulator listening on http://127.0.0.1:\(bound)/ws")
        while true { try await Task.sleep(for: .seconds(3600)) }
    }
}
