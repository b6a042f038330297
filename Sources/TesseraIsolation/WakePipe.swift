import Foundation

/// A pipe that wakes a thread asleep in `poll(2)`: it polls ``readEnd`` beside its sockets, and one
/// byte written by ``wake()`` from any thread ends its sleep. Both ends are non-blocking and close
/// on exec. Used by the child's event loop (jobs to run) and the host's reader (a lane handed over).
struct WakePipe: Sendable {
    let readEnd: Int32
    private let writeEnd: Int32

    /// A new pipe; `purpose` names it if the process has no descriptor left for it.
    init(for purpose: String) {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) != 0 { fatalError("pipe for \(purpose): \(String(cString: strerror(errno)))") }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        (readEnd, writeEnd) = (fds[0], fds[1])
    }

    func wake() {
        var one: UInt8 = 1
        _ = write(writeEnd, &one, 1)
    }

    /// Reads away the bytes the wake-ups left, so the next `poll` sleeps again.
    func drain() {
        var sink = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &sink, sink.count) > 0 {}
    }

    func close() {
        _ = Glibc.close(readEnd)
        _ = Glibc.close(writeEnd)
    }
}
