/// A server a test starts and must stop: its port, its host's plugins and its files.
public protocol StoppableTestServer {
    /// Stops serving and releases what it holds.
    func stop() async
}

extension StoppableTestServer {
    /// Runs `body` with this server, then stops it however `body` ends — by returning or by
    /// throwing — as Hummingbird's `Application.test` does. A test that fails half-way through
    /// would otherwise leave its server listening (and its plugins running) for the rest of the run.
    ///
    /// ```swift
    /// try await TestServer.start(maxBodyBytes: 1024).use { server in
    ///     #expect(try await server.request("GET", "/healthz").status == 200)
    /// }
    /// ```
    public func use<Result>(_ body: (Self) async throws -> Result) async throws -> Result {
        try await withCleanup({ await stop() }) { try await body(self) }
    }
}
