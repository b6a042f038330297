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

    /// The host's side of a socket pair, and the other side's end to answer by hand.
    private func connected(_ fds: inout [Int32]) -> (host: PeerConnection, other: FrameConnection, ended: AsyncStream<Void>) {
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let host = PeerConnection(fd: fds[0]) { _, params in params }
        let ended = AsyncStream<Void>.makeStream()
        host.start {
            ended.continuation.yield()
            return PluginError(.unavailable, "the connection ended")
        }
        return (host, FrameConnection(fd: fds[1]), ended.stream)
    }

    /// Answers the next call on `other` with `result`, written as the text it is: on a thread of
    /// its own, since it blocks reading (on the tests' shared pool, calls waiting for their turn
    /// would then never be sent).
    private func answer(on other: FrameConnection, with result: String) {
        Thread {
            guard case .call(let id, _, _)? = try? other.receiveMessage() else { return }
            try? other.send(.answer(id: id, AnswerText(bytes: Array(result.utf8))))
        }.start()
    }

    /// The answer an operation's caller takes as text is the text the other side sent, as it
    /// came (its spacing and order kept): not read into a tree and written out again.
    @Test func anAnswerTakenAsTextIsTheTextItCameAs() async throws {
        var fds: [Int32] = [-1, -1]
        let (host, other, _) = connected(&fds)
        defer { close(fds[0]); close(fds[1]) }
        let sent = #"{ "b" : [1, "}"],"a":"é" }"#
        answer(on: other, with: sent)
        #expect(try await host.callForText(.method("echo", 1), waitingBriefly: .zero, started: { _ in }, answered: {}) == Array(sent.utf8))
        // Taken as a value, the same text is read as the parser reads it.
        answer(on: other, with: sent)
        #expect(try await host.call("echo", 2) == ["a": "é", "b": [1, "}"]])
    }

    /// An answer whose result is not JSON is the other side's fault, as a frame that is not JSON
    /// is: its call fails saying so, and the connection ends (the calls after it fail at once).
    @Test(arguments: [true, false])
    func anAnswerThatIsNotJSONFailsItsCallAndEndsTheConnection(takenAsText: Bool) async throws {
        var fds: [Int32] = [-1, -1]
        let (host, other, ended) = connected(&fds)
        defer { close(fds[0]); close(fds[1]) }
        answer(on: other, with: "01")  // a leading zero: the frame's envelope reads, its result does not parse
        await #expect(throws: FrameError.self) {
            if takenAsText {
                _ = try await host.callForText(.method("echo", 1), waitingBriefly: .zero, started: { _ in }, answered: {})
            } else {
                _ = try await host.call("echo", 1)
            }
        }
        var endings = ended.makeAsyncIterator()
        _ = await endings.next()
        await #expect(throws: PluginError.self) { try await host.call("echo", 2) }
    }
}

