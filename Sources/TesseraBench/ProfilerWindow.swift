import Foundation

/// Confines a sampling profiler to one phase of a benchmark.
///
/// With `TESSERA_BENCH_PROFILE_CONTROL` naming a FIFO, and `TESSERA_BENCH_PROFILE_PHASE` a phase
/// (e.g. `patches`), ``around(_:_:)`` writes `enable` to the FIFO before that phase and `disable`
/// after it: the control protocol of `perf record --control fifo:…` started with `-D -1` (events
/// off until enabled). Without the variables it only runs the body. The write happens outside
/// the timed part of the phase, so the figures printed are unchanged.
///
///     mkfifo /tmp/ctl
///     TESSERA_BENCH_PROFILE_CONTROL=/tmp/ctl TESSERA_BENCH_PROFILE_PHASE=patches \
///       perf record -g -D -1 --control fifo:/tmp/ctl -- .build/debug/tessera-bench sync 100000
enum ProfilerWindow {
    private static let control = ProcessInfo.processInfo.environment["TESSERA_BENCH_PROFILE_CONTROL"]
    private static let phase = ProcessInfo.processInfo.environment["TESSERA_BENCH_PROFILE_PHASE"]

    /// Runs `body`, with the profiler enabled while it runs if `name` is the phase asked for.
    static func around<T>(_ name: String, _ body: () throws -> T) rethrows -> T {
        guard let control, name == phase else { return try body() }
        send("enable", to: control)
        defer { send("disable", to: control) }
        return try body()
    }

    /// The same around an asynchronous body (the HTTP benchmark's `wrk` runs).
    static func around<T>(_ name: String, _ body: () async throws -> T) async rethrows -> T {
        guard let control, name == phase else { return try await body() }
        send("enable", to: control)
        defer { send("disable", to: control) }
        return try await body()
    }

    private static func send(_ command: String, to fifo: String) {
        guard let handle = FileHandle(forWritingAtPath: fifo) else { return }
        handle.write(Data((command + "\n").utf8))
        try? handle.close()
    }
}
