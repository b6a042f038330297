import Foundation
import Testing
import TesseraIsolation
import TesseraSDK

/// A reply that cannot be sent ends the connection (issue 44: no silent failure): the side that
/// waits for it then fails its calls at once, with the reader's reason, instead of at each call's
/// deadline; and no frame ever follows one that was cut off.
@Suite(.timeLimit(.minutes(10))) struct PeerConnectionReplyTests {
    @Test func aReplyThatCannotBeSentEndsTheConnection() async throws {
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let answering = AsyncStream<Void>.makeStream()
        let (release, released) = AsyncStream<Void>.makeStream()
        let host = PeerConnection(fd: fds[0]) { _, params in
            answering.continuation.yield()
            for await _ in release { break }  // answers once the other side no longer reads
            return params
        }
        let ended = AsyncStream<Void>.makeStream()
        host.start {
            ended.continuation.yield()
            return PluginError(.unavailable, "the other side stopped reading")
        }
        // The other side, by hand: one call, then it stops reading (its writes stay open, so
        // only the host can end the connection).
        let other = FrameConnection(fd: fds[1])
        try other.send(["call": 7, "method": "echo", "params": 1])
        var calls = answering.stream.makeAsyncIterator()
        _ = await calls.next()
        #expect(shutdown(fds[1], Int32(SHUT_RD)) == 0)
        released.yield()
        // The reply's send fails (EPIPE): the host shuts its end down, its reader ends, and
        // `closed` runs. Before, the reply was dropped and the connection stayed open.
        var endings = ended.stream.makeAsyncIterator()
        _ = await endings.next()
        // And a call the host makes now fails with that reason, at once.
        await #expect(throws: PluginError.self) { try await host.call("echo", 2) }
    }
}
