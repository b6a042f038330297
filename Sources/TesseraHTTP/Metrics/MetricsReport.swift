import Prometheus
import Synchronization
import TesseraRuntime

/// The `/metrics` page: what ``HTTPMetrics`` counted, and the host's plugin states and
/// generations and the process's own figures, set at scrape time into the same registry.
///
/// | metric | type | labels |
/// | --- | --- | --- |
/// | `tessera_operation_calls_total` | counter | plugin, operation |
/// | `tessera_operation_errors_total` | counter | plugin, operation, code |
/// | `tessera_operation_duration_seconds` | histogram | plugin, operation |
/// | `tessera_plugins` | gauge | state (every lifecycle state, zeros included) |
/// | `tessera_plugin_state` | gauge | plugin, state (1 for the plugin's current state) |
/// | `tessera_plugin_generation` | gauge | plugin |
/// | `tessera_plugin_retired_generations` | gauge | plugin |
/// | `tessera_http_responses_total` | counter | status |
///
/// and the process's own (``ProcessMetrics``): `process_*` and `tessera_build_info`.
final class MetricsReport: Sendable {
    /// The exposition format's content type, version 0.0.4.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    let metrics: HTTPMetrics
    private let process: ProcessMetrics
    /// Each plugin's state series: the one at 1 now (a state left is taken off the page).
    private let stateSeries = Mutex<[String: (state: LifecycleState, gauge: Gauge)]>([:])

    init(metrics: HTTPMetrics) {
        self.metrics = metrics
        process = ProcessMetrics(registry: metrics.registry)
    }

    /// The page, as of now.
    func render(host: any HostAPI) -> String {
        updatePlugins(host.statuses())
        process.update()
        return metrics.registry.emitToString()
    }

    private func updatePlugins(_ statuses: [PluginStatus]) {
        let registry = metrics.registry
        for state in LifecycleState.allCases {
            registry.makeGauge(name: "tessera_plugins", labels: [("state", state.rawValue)], help: "Plugins in each lifecycle state.")
                .set(Double(statuses.count { $0.state == state }))
        }
        for status in statuses {
            let plugin = [("plugin", status.id)]
            registry.makeGauge(name: "tessera_plugin_generation", labels: plugin,
                               help: "The generation of each plugin serving now (0: none loaded).").set(Double(status.generation))
            registry.makeGauge(name: "tessera_plugin_retired_generations", labels: plugin,
                               help: "Replaced generations still mapped in memory.").set(Double(status.retiredGenerations))
            stateSeries.withLock { series in
                guard series[status.id]?.state != status.state else { return }
                if let left = series[status.id] { registry.unregisterGauge(left.gauge) }
                let gauge = registry.makeGauge(name: "tessera_plugin_state", labels: plugin + [("state", status.state.rawValue)],
                                               help: "1 for each plugin's current lifecycle state.")
                gauge.set(1.0)
                series[status.id] = (status.state, gauge)
            }
        }
    }
}
