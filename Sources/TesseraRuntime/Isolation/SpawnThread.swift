import Foundation
import Synchronization

/// The one thread every plugin child is spawned from; it lives as long as the host.
///
/// The plugin runner asks the kernel to kill it when its parent goes (`PR_SET_PDEATHSIG`), and
/// for that request the parent is the *thread* that spawned the child, not the host's process
/// (prctl(2)). Swift concurrency's threads on Linux end after about five idle seconds, so a child
/// spawned on one of them (a restart after a crash, a hot swap) was killed with SIGKILL once that
/// thread ended, and the host counted a crash. A thread that never ends keeps the promise the
/// runner asks for: the child dies with the host, and only then.
final class SpawnThread: Sendable {
    static let shared = SpawnThread()

    private let jobs = Mutex<[@Sendable () -> Void]>([])
    private let waiting = DispatchSemaphore(value: 0)

    private init() {
        let thread = Thread { [self] in serve() }
        thread.name = "tessera-spawn"
        thread.start()
    }

    private func serve() -> Never {
        while true {
            waiting.wait()
            let job = jobs.withLock { $0.removeFirst() }
            job()
        }
    }

    /// Runs `work` on the spawn thread and returns its result; the caller waits meanwhile (a
    /// `posix_spawn` takes well under a millisecond).
    func perform<T: Sendable>(_ work: @escaping @Sendable () -> T) -> T {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        jobs.withLock {
            $0.append {
                let value = work()
                result.withLock { $0 = value }
                done.signal()
            }
        }
        waiting.signal()
        done.wait()
        return result.withLock { $0! }
    }
}
