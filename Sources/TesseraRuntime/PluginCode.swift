/// Runs plugin code (a handler, a plugin's start or stop) on Swift concurrency's shared pool,
/// whatever executor the caller's task prefers.
///
/// A caller whose task prefers an executor of its own (an edge on threads of its own, so that
/// `/healthz` answers while in-process plugins hold every pool thread: docs/isolation.md,
/// "Threads") must not lend those threads to plugin code, nor to a loop in it that never suspends.
func onSharedPool<Result, Failure: Error>(
    isolation: isolated (any Actor)? = #isolation,
    _ pluginCode: () async throws(Failure) -> Result
) async throws(Failure) -> Result {
    try await withTaskExecutorPreference(globalConcurrentExecutor, isolation: isolation, operation: pluginCode)
}
