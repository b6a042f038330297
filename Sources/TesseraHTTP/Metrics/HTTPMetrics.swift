import CoreMetrics
import Prometheus
import Synchronization

/// What the HTTP edge counts: operation calls, their errors by code and their latency, per plugin
/// and operation; and every response by status. Read by `/metrics` (``MetricsReport``).
///
/// Recorded through swift-metrics' API (`Counter`, `Timer`) into a swift-prometheus registry of
/// this server's own: swift-metrics' global bootstrap can happen once a process, and a test
/// process runs many servers.
///
/// Operation series exist only for operations a manifest declares, so a client sending made-up ids
/// cannot grow the registry (nor the scrape) without bound.
final class HTTPMetrics: Sendable {
    /// The series `/metrics` writes; the report adds the host's gauges to it at scrape time.
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let operations = Mutex<[OperationKey: OperationSeries]>([:])
    private let responses = Mutex<[Int: CoreMetrics.Counter]>([:])

    /// Latency buckets: from half a millisecond (a call that only touches memory) to ten seconds
    /// (a plugin waiting on something slow).
    static let durationBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500),
        .seconds(5), .seconds(10),
    ]

    struct OperationKey: Hashable {
        var plugin: String
        var operation: String
    }

    struct OperationSeries: Sendable {
        let calls: CoreMetrics.Counter
        let duration: CoreMetrics.Timer
        var errors: [String: CoreMetrics.Counter] = [:]
    }

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["tessera_operation_duration_seconds"] = Self.durationBuckets
        self.factory = factory
    }

    /// Records one call: how long it took and, if it failed, its error code.
    func recordCall(plugin: String, operation: String, seconds: Double, errorCode: String?) {
        let key = OperationKey(plugin: plugin, operation: operation)
        let (series, error) = operations.withLock { table -> (OperationSeries, CoreMetrics.Counter?) in
            // An answered call of a known operation changes nothing in the table: one look-up.
            if errorCode == nil, let series = table[key] { return (series, nil) }
            var series = table[key] ?? makeSeries(key)
            var error: CoreMetrics.Counter?
            if let errorCode {
                error = series.errors[errorCode] ?? CoreMetrics.Counter(
                    label: "tessera_operation_errors_total",
                    dimensions: [("plugin", plugin), ("operation", operation), ("code", errorCode)], factory: factory)
                series.errors[errorCode] = error
            }
            table[key] = series
            return (series, error)
        }
        series.calls.increment()
        error?.increment()
        series.duration.recordNanoseconds(Int64(seconds * 1e9))
    }

    private func makeSeries(_ key: OperationKey) -> OperationSeries {
        let dimensions = [("plugin", key.plugin), ("operation", key.operation)]
        return OperationSeries(
            calls: CoreMetrics.Counter(label: "tessera_operation_calls_total", dimensions: dimensions, factory: factory),
            duration: CoreMetrics.Timer(label: "tessera_operation_duration_seconds", dimensions: dimensions, factory: factory))
    }

    /// Records one response's status.
    func recordResponse(status: Int) {
        let counter = responses.withLock { table in
            if let counter = table[status] { return counter }
            let counter = CoreMetrics.Counter(label: "tessera_http_responses_total", dimensions: [("status", String(status))], factory: factory)
            table[status] = counter
            return counter
        }
        counter.increment()
    }
}
