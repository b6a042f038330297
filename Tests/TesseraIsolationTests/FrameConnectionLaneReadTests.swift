import Foundation
import Testing
import TesseraIsolation
import TesseraSDK

/// The reads a caller waiting on its lane makes (`PeerConnection`'s brief wait): one that does not
/// wait, while it polls, and one asleep in `read(2)` itself for at most a time, the socket's
/// receive timeout. Each says whether bytes came, the peer closed the socket, or nothing came.
@Suite(.timeLimit(.minutes(1))) struct FrameConnectionLaneReadTests {
    /// A socket pair: the end read here, and the other side's, written by hand.
    private func pair() -> (lane: FrameConnection, other: FrameConnection, fds: [Int32]) {
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        return (FrameConnection(fd: fds[0]), FrameConnection(fd: fds[1]), fds)
    }

    @Test func aReadThatDoesNotWaitSaysNothingCameThenReadsWhatDid() throws {
        let (lane, other, fds) = pair()
        // Each descriptor closed once: a second close could close another test's file meanwhile.
        var otherOpen = true
        defer { close(fds[0]); if otherOpen { close(fds[1]) } }
        #expect(try lane.readIfAvailable() == .nothing)
        try other.send(["reply": 3, "result": "answer"])
        #expect(try lane.readIfAvailable() == .read)
        let message = try #require(try lane.bufferedMessage())
        #expect(message.json["result"] == "answer")
        close(fds[1])
        otherOpen = false
        #expect(try lane.readIfAvailable() == .ended)
    }

    @Test func aReadAsleepForAtMostATimeWakesForTheAnswerOrReturnsWhenTheTimeIsUp() throws {
        let (lane, other, fds) = pair()
        var otherOpen = true
        defer { close(fds[0]); if otherOpen { close(fds[1]) } }
        // Nothing sent: the receive timeout ends the read (a timeout of 0 would wait for ever).
        #expect(try lane.readWaiting(atMost: .milliseconds(1)) == .nothing)
        // A frame sent from another thread while the read sleeps wakes it.
        let sender = Thread { try? other.send(["reply": 4, "result": 42]) }
        sender.start()
        var read = FrameConnection.LaneRead.nothing
        var message: PeerMessage?
        for _ in 0..<1_000 where message == nil {
            read = try lane.readWaiting(atMost: .milliseconds(50))
            if read == .ended { break }
            message = try lane.bufferedMessage()
        }
        #expect(message?.json["result"] == 42)
        #expect(read == .read)
        close(fds[1])
        otherOpen = false
        #expect(try lane.readWaiting(atMost: .milliseconds(50)) == .ended)
    }

    @Test func aStreamThatEndsInsideAFrameThrows() throws {
        let (lane, _, fds) = pair()
        defer { close(fds[0]) }
        // A header announcing 100 bytes, then 3 of them, then the end.
        let partial: [UInt8] = [0, 0, 0, 100, UInt8(ascii: "{"), UInt8(ascii: "\""), UInt8(ascii: "a")]
        #expect(partial.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) } == partial.count)
        close(fds[1])
        #expect(try lane.readWaiting(atMost: .milliseconds(50)) == .read)
        #expect(try lane.bufferedMessage() == nil)
        #expect(throws: FrameError.self) { try lane.readWaiting(atMost: .milliseconds(50)) }
    }
}
