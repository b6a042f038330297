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
        try await reportingErrors {
            let host = try self.host.makeHost()
            await host.start()
            say(PluginTable.render(host.statuses()))
            say("tessera \(tesseraVersionText) serving deployment '\(host.deployment.name)' (data: \(host.options.dataDirectory)); Ctrl-C to stop")
            let timers = host.virtualClock == nil ? Task { await host.timers.run() } : nil
            await waitForTerminationSignal()
            timers?.cancel()
            await host.stop()
            say("stopped")
        }
    }
}

let tesseraVersionText = Tessera.configuration.version

/// Returns when SIGINT or SIGTERM arrives.
func waitForTerminationSignal() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let once = OnceFlag()
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .main)
            source.setEventHandler {
                if once.claim() { continuation.resume() }
            }
            source.resume()
            SignalSources.keep(source)
        }
    }
}

/// Keeps signal sources alive for the life of the process.
enum SignalSources {
    nonisolated(unsafe) static var sources: [any DispatchSourceSignal] = []
    static func keep(_ source: any DispatchSourceSignal) { sources.append(source) }
}

/// True exactly once.
final class OnceFlag: @unchecked Sendable {
    private var claimed = false
    private let lock = NSLock()
    func claim() -> Bool {
        lock.lock(); defer { lock.unlock() }
        if claimed { return false }
        claimed = true
        return true
    }
}
