/// Runs `work` on Swift concurrency's shared pool, whatever executor the caller's task prefers.
///
/// The HTTP edge accepts connections on threads of its own (``ThreadPoolExecutor``) and answers
/// `/healthz` and the host's other own endpoints on NIO's event loops, so that they answer while
/// in-process plugins hold every thread of the shared pool (docs/isolation.md, "Threads"). Those
/// few threads must not be lent to work that can hold them: plugin code (a handler, a plugin's
/// start or stop, a loop in it that never suspends), nor to anything that keeps its thread for
/// long (a SQLite busy wait, a password hash, a file read): they carry every connection of the
/// process, and what one of them holds, they all wait for.
public func onSharedPool<Result, Failure: Error>(
    isolation: isolated (any Actor)? = #isolation,
    _ work: () async throws(Failure) -> Result
) async throws(Failure) -> Result {
    // A task that prefers no executor already runs such work on the shared pool. A preference
    // pushed anyway would be read, under the task's status lock, at every suspension inside
    // `work`: about 0.5 µs of a plugin call's 8 µs through the edge, in process (`tessera-bench
    // edge`, docs/benchmarks.md, 2026-12-02).
    guard withUnsafeCurrentTask(body: { $0?.unownedTaskExecutor != nil }) else { return try await work() }
    return try await withTaskExecutorPreference(globalConcurrentExecutor, isolation: isolation, operation: work)
}
