/// Runs plugin code (a handler, a plugin's start or stop) on Swift concurrency's shared pool,
/// whatever executor the caller's task prefers.
///
/// The HTTP edge serves from threads of its own (docs/isolation.md, "Threads"), so that `/healthz`,
/// the admin API and SIGTERM's clean stop are answered while in-process plugins hold every pool
/// thread. A route that calls a plugin runs in a task that prefers the edge's threads; without this
/// the plugin's handler, and a loop in it that never suspends, would run there too.
func onSharedPool<Result, Failure: Error>(
    isolation: isolated (any Actor)? = #isolation,
    _ pluginCode: () async throws(Failure) -> Result
) async throws(Failure) -> Result {
    try await withTaskExecutorPreference(globalConcurrentExecutor, isolation: isolation, operation: pluginCode)
}
