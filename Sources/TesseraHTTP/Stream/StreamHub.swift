import Synchronization

/// Wakes the open `GET /v1/stream` connections when something new may be there to send, and ends
/// them all when the server stops.
///
/// A wake-up carries nothing: each stream reads what is new from the inbox and the event log
/// after its own position. So a wake-up that comes twice, late, or for something another stream
/// already sent does no harm, and nothing is lost between a wake-up and the read.
final class StreamHub: Sendable {
    private struct State {
        var next = 0
        var streams: [Int: AsyncStream<Void>.Continuation] = [:]
        var closed = false
    }
    private let state = Mutex(State())

    /// A new stream's wake-ups. It has one waiting already, so the stream reads its backlog at once;
    /// it finishes when the hub closes. Call ``leave(_:)`` with the token when the stream ends.
    func join() -> (token: Int, wakeups: AsyncStream<Void>) {
        let (wakeups, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        continuation.yield()
        let token = state.withLock { s -> Int? in
            guard !s.closed else { return nil }
            s.next += 1
            s.streams[s.next] = continuation
            return s.next
        }
        guard let token else {
            continuation.finish()
            return (0, wakeups)
        }
        return (token, wakeups)
    }

    /// Forgets a stream that ended.
    func leave(_ token: Int) {
        state.withLock { $0.streams.removeValue(forKey: token) }?.finish()
    }

    /// Wakes every open stream (``wake(_:)`` for one).
    func wakeAll() {
        for continuation in state.withLock({ Array($0.streams.values) }) { continuation.yield() }
    }

    /// Wakes one stream (its keep-alive timer).
    func wake(_ token: Int) {
        state.withLock { $0.streams[token] }?.yield()
    }

    /// Ends every stream, and any joining later: the server is stopping, and a graceful stop waits
    /// for every response to end.
    func close() {
        let open = state.withLock { s -> [AsyncStream<Void>.Continuation] in
            s.closed = true
            defer { s.streams = [:] }
            return Array(s.streams.values)
        }
        for continuation in open { continuation.finish() }
    }
}
