/// Runs the module's state-changing work one piece at a time: operations, timer firings, fixes
/// and remote changes all read a record, decide, then write, and two of them interleaving at an
/// `await` could both pass a check (two SOS presses, a PIN and a deadline at once). An actor
/// alone does not prevent that, because it is re-entered at every suspension point.
actor Serial {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        if busy { await withCheckedContinuation { waiting.append($0) } } else { busy = true }
        defer { if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() } }
        return try await body()
    }
}
