import Synchronization

/// What the HTTP edge counts: operation calls, their errors by code and their latency, per plugin
/// and operation; and every response by status. Read by `/metrics`.
///
/// Operation series exist only for operations a manifest declares, so a client sending made-up ids
/// cannot grow the table (nor the scrape) without bound.
final class HTTPMetrics: Sendable {
    struct OperationKey: Hashable, Comparable {
        var plugin: String
        var operation: String
        static func < (a: Self, b: Self) -> Bool { (a.plugin, a.operation) < (b.plugin, b.operation) }
    }

    struct OperationSeries: Sendable {
        var calls: UInt64 = 0
        var errors: [String: UInt64] = [:]
        var latency = LatencyHistogram()
    }

    private let operations = Mutex<[OperationKey: OperationSeries]>([:])
    private let responses = Mutex<[Int: UInt64]>([:])

    /// Records one call: how long it took and, if it failed, its error code.
    func recordCall(plugin: String, operation: String, seconds: Double, errorCode: String?) {
        operations.withLock { table in
            var series = table[OperationKey(plugin: plugin, operation: operation), default: OperationSeries()]
            series.calls += 1
            if let errorCode { series.errors[errorCode, default: 0] += 1 }
            series.latency.observe(seconds)
            table[OperationKey(plugin: plugin, operation: operation)] = series
        }
    }

    /// Records one response's status.
    func recordResponse(status: Int) {
        responses.withLock { $0[status, default: 0] += 1 }
    }

    var operationSnapshot: [(OperationKey, OperationSeries)] {
        operations.withLock { $0.sorted { $0.key < $1.key } }
    }

    var responseSnapshot: [(Int, UInt64)] {
        responses.withLock { $0.sorted { $0.key < $1.key } }
    }
}
