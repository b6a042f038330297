/// Runs `body`, then awaits `cleanup` however `body` ends, by returning or by throwing: the `defer`
/// a caller needs when what it must stop is async. A `defer { Task { await host.stop() } }` would
/// stop it after the caller had returned, and not at all when the process exits first (a command
/// line tool, a test run), so a host's last writes and its plugins' `stop` would be cut short.
///
/// ```swift
/// let host = try PluginHost(deployment: deployment)
/// await host.start()
/// try await withCleanup({ await host.stop() }) {
///     try await host.call("dev.tessera.example", "ping", json: [], as: principal)
/// }
/// ```
public func withCleanup<Result>(
    isolation: isolated (any Actor)? = #isolation,
    _ cleanup: () async -> Void,
    _ body: () async throws -> Result
) async throws -> Result {
    let result: Result
    do {
        result = try await body()
    } catch {
        await cleanup()
        throw error
    }
    await cleanup()
    return result
}
