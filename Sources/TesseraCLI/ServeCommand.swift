import ArgumentParser
import Dispatch
import Foundation
import TesseraRuntime

/// `tessera serve`
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start the host on a deployment and run until interrupted (Ctrl-C or SIGTERM).",
        discussion: "Loads and starts every enabled plugin, prints their states, and fires timers on the deployment's clock.")
    @OptionGroup var host: HostArguments

    func run() async throws {
        // Take over SIGINT and SIGTERM before anything else, so a signal that arrives while the
        // host starts still leads to a clean stop.
        let termination = TerminationSignal()
        try await reportingErrors {
            let host = try self.host.makeHost()
            await host.start()
            say(PluginTable.render(host.statuses()))
            say("tessera \(tesseraVersionText) serving deployment '\(host.deployment.name)' (data: \(host.options.dataDirectory)); Ctrl-C to stop")
            let timers = host.virtualClock == nil ? Task { await host.timers.run() } : nil
            await termination.wait()
            timers?.cancel()
            await host.stop()
            say("stopped")
        }
    }
}

let tesseraVersionText = Tessera.configuration.version

/// Catches SIGINT and SIGTERM from the moment it is made; ``wait()`` returns once one arrived
/// (at once if one already did).
final class TerminationSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var arrived = false
    private var waiter: CheckedContinuation<Void, Never>?
    private var sources: [any DispatchSourceSignal] = []

    init() {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [weak self] in self?.fire() }
            source.resume()
            sources.append(source)
        }
    }

    private func fire() {
        lock.lock()
        arrived = true
        let waiter = self.waiter
        self.waiter = nil
        lock.unlock()
        waiter?.resume()
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if arrived {
                lock.unlock()
                continuation.resume()
            } else {
                waiter = continuation
                lock.unlock()
            }
        }
    }
}
