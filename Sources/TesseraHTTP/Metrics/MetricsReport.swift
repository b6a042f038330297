import TesseraRuntime

/// The `/metrics` page: the host's plugin states and generations, read from the host at scrape
/// time, and what ``HTTPMetrics`` counted.
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
enum MetricsReport {
    static func render(host: PluginHost, metrics: HTTPMetrics) -> String {
        var out = PrometheusText()
        writeOperations(metrics.operationSnapshot, to: &out)
        writePlugins(host.statuses(), to: &out)
        out.family("tessera_http_responses_total", type: "counter", help: "HTTP responses sent, by status.")
        for (status, count) in metrics.responseSnapshot {
            out.sample("tessera_http_responses_total", ["status": String(status)], Double(count))
        }
        ProcessMetrics.write(to: &out)
        return out.text
    }

    static func writeOperations(_ series: [(HTTPMetrics.OperationKey, HTTPMetrics.OperationSeries)], to out: inout PrometheusText) {
        out.family("tessera_operation_calls_total", type: "counter", help: "Operation calls over HTTP, by plugin and operation.")
        for (key, s) in series {
            out.sample("tessera_operation_calls_total", ["plugin": key.plugin, "operation": key.operation], Double(s.calls))
        }
        out.family("tessera_operation_errors_total", type: "counter", help: "Operation calls that failed, by error code.")
        for (key, s) in series {
            for (code, count) in s.errors.sorted(by: { $0.key < $1.key }) {
                out.sample("tessera_operation_errors_total", ["plugin": key.plugin, "operation": key.operation, "code": code], Double(count))
            }
        }
        out.family("tessera_operation_duration_seconds", type: "histogram", help: "Operation call latency, from request body read to result.")
        for (key, s) in series {
            let labels = [("plugin", key.plugin), ("operation", key.operation)]
            for (le, count) in s.latency.cumulativeBuckets {
                out.sample("tessera_operation_duration_seconds_bucket", labels + [("le", le)], Double(count))
            }
            out.sample("tessera_operation_duration_seconds_sum", labels, s.latency.sum)
            out.sample("tessera_operation_duration_seconds_count", labels, Double(s.latency.count))
        }
    }

    static func writePlugins(_ statuses: [PluginStatus], to out: inout PrometheusText) {
        out.family("tessera_plugins", type: "gauge", help: "Plugins in each lifecycle state.")
        for state in LifecycleState.allCases {
            out.sample("tessera_plugins", ["state": state.rawValue], Double(statuses.count { $0.state == state }))
        }
        out.family("tessera_plugin_state", type: "gauge", help: "1 for each plugin's current lifecycle state.")
        for status in statuses {
            out.sample("tessera_plugin_state", ["plugin": status.id, "state": status.state.rawValue], 1)
        }
        out.family("tessera_plugin_generation", type: "gauge", help: "The generation of each plugin serving now (0: none loaded).")
        for status in statuses {
            out.sample("tessera_plugin_generation", ["plugin": status.id], Double(status.generation))
        }
        out.family("tessera_plugin_retired_generations", type: "gauge", help: "Replaced generations still mapped in memory.")
        for status in statuses {
            out.sample("tessera_plugin_retired_generations", ["plugin": status.id], Double(status.retiredGenerations))
        }
    }
}
