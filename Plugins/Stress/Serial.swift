/// Runs the module's state-changing operations one at a time.
///
/// Every rule here is "read the state, check it, then write": two calls interleaving at an `await`
/// (two notes at once, a double tap on "complete") could both pass the check. An actor alone does
/// not prevent that, because it is re-entered at every suspension point; this queue does.
actor Serial {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        guard busy else { busy = true; return }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}
