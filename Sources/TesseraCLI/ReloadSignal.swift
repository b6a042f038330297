import Dispatch
import Foundation
import Synchronization
import TesseraRuntime
import TesseraSDK

/// SIGHUP reloads the deployment (issue 46; docs/operating.md): what `systemctl reload` sends.
///
/// Taken over as soon as `serve` starts, since SIGHUP's default action ends the process; a signal
/// that arrives before the host serves is told to wait. Reloads run one after another: a signal
/// during a reload is refused by the host and said in the log.
final class ReloadSignal: @unchecked Sendable {  // `source` is set once, in init
    private let host = Mutex<(any HostAPI)?>(nil)
    private let source: any DispatchSourceSignal

    init() {
        signal(SIGHUP, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: TerminationSignal.queue)
        source.setEventHandler { [weak self] in self?.fire() }
        source.resume()
    }

    /// From now on a SIGHUP reloads `host`.
    func serve(_ host: any HostAPI) { self.host.withLock { $0 = host } }

    private func fire() {
        guard let host = host.withLock({ $0 }) else {
            say("tessera: SIGHUP: the host is still starting; send it again once it serves to reload the deployment")
            return
        }
        Task {
            do {
                let report = try await host.reload()
                say("tessera: SIGHUP: " + Reload.describe(report.json(file: host.deployment.file)))
            } catch let error as PluginError {
                say("tessera: SIGHUP: \(error.message)")
            } catch {
                say("tessera: SIGHUP: \(error)")
            }
        }
    }
}
