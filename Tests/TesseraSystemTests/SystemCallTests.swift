import Foundation
import Synchronization
import Testing
import TesseraSystem

/// The one EINTR loop: retried while a signal interrupts, and only then.
@Suite struct SystemCallTests {
    @Test func aCallInterruptedBySignalsIsMadeAgainAndOtherFailuresAreLeftAsTheyAre() {
        var calls = 0
        let result = SystemCall.retryingInterrupted { () -> Int in
            calls += 1
            if calls <= 3 { errno = EINTR; return -1 }
            return 5
        }
        #expect(result == 5 && calls == 4)
        calls = 0
        let busy = SystemCall.retryingInterrupted { () -> Int32 in
            calls += 1
            errno = EAGAIN
            return -1
        }
        #expect(busy == -1 && errno == EAGAIN && calls == 1)
    }

    /// A real `read(2)` blocked on an empty pipe, interrupted by signals whose handler does not ask
    /// for restarting (no SA_RESTART): it returns -1 with EINTR each time, and the helper reads on
    /// until the bytes come.
    @Test func aBlockedReadInterruptedBySignalsStillGetsItsBytes() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in SignalCount.value.add(1, ordering: .relaxed) }
        action.sa_flags = 0  // no SA_RESTART: a blocked read returns EINTR
        var previous = sigaction()
        try #require(sigaction(SIGUSR2, &action, &previous) == 0)
        defer { _ = sigaction(SIGUSR2, &previous, nil) }

        let reader = ReaderThread(fd: ends[0])
        reader.start()
        reader.started.wait()
        for round in 1...3 {
            // Signal until the handler has run this round's time (the reader may not be blocked
            // yet); bounded, so a signal that never arrives fails the test instead of hanging it.
            var tries = 0
            while SignalCount.value.load(ordering: .relaxed) < round && tries < 2_000_000 {
                _ = pthread_kill(reader.thread.withLock { $0! }, SIGUSR2)
                sched_yield()
                tries += 1
            }
        }
        try #require(SignalCount.value.load(ordering: .relaxed) >= 3, "the reader thread never took the signal")
        let bytes: [UInt8] = Array("after the signals".utf8)
        try bytes.withUnsafeBytes { try SystemCall.writeAll(ends[1], $0) }
        reader.finished.wait()
        #expect(reader.result.withLock { $0 } == bytes)
        #expect(SignalCount.value.load(ordering: .relaxed) >= 3)
    }

    @Test func writeAllAndReadFullyMoveEveryByte() throws {
        let path = NSTemporaryDirectory() + "/system-call-\(getpid()).bin"
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        defer { close(fd); unlink(path) }
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try bytes.withUnsafeBytes { try SystemCall.writeAll(fd, $0) }
        var back = [UInt8](repeating: 0, count: 300_010)
        let count = try back.withUnsafeMutableBytes { try SystemCall.readFully(fd, into: $0, at: 0) }
        #expect(count == bytes.count && Array(back[..<count]) == bytes)
        #expect(throws: SystemCallError.self) { try bytes.withUnsafeBytes { try SystemCall.writeAll(-1, $0) } }
    }
}

enum SignalCount {
    static let value = Atomic<Int>(0)
}

/// Reads one chunk from `fd` on a thread of its own, through `SystemCall.read`.
final class ReaderThread: Sendable {
    let fd: Int32
    let thread = Mutex<pthread_t?>(nil)
    let result = Mutex<[UInt8]>([])
    let started = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)

    init(fd: Int32) { self.fd = fd }

    func start() {
        Thread { [self] in
            // A thread started from the test's task inherits its blocked signals: take SIGUSR2.
            var only = sigset_t()
            sigemptyset(&only)
            sigaddset(&only, SIGUSR2)
            pthread_sigmask(SIG_UNBLOCK, &only, nil)
            thread.withLock { $0 = pthread_self() }
            started.signal()
            var buffer = [UInt8](repeating: 0, count: 64)
            let n = (try? buffer.withUnsafeMutableBytes { try SystemCall.read(fd, into: $0) }) ?? -1
            result.withLock { $0 = n > 0 ? Array(buffer[..<n]) : [] }
            finished.signal()
        }.start()
    }
}
