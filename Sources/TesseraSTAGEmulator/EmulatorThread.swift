import Foundation
import Synchronization

/// A thread of the emulator's own that runs its server's tasks (a `TaskExecutor`).
///
/// The emulator mostly runs inside a test process, beside hundreds of other tests' tasks on Swift
/// concurrency's two threads (two cores). A test that computes for seconds without suspending holds
/// one of them, and an emulator on the same pool then answered a plain request only after the
/// module's 10 s timeout. The module's side is what tests check, so the emulator must answer
/// promptly whatever else runs: its server's task, and the connection tasks it starts (structured
/// children, which inherit the preference), run here.
final class EmulatorThread: TaskExecutor, @unchecked Sendable {
    private let queue = Mutex<(jobs: [UnownedJob], ended: Bool)>(([], false))
    private let waiting = DispatchSemaphore(value: 0)

    init(name: String) {
        let thread = Thread { [self] in serve() }
        thread.name = name
        thread.start()
    }

    private func serve() {
        while true {
            waiting.wait()
            let next = queue.withLock { q -> UnownedJob?? in
                if q.jobs.isEmpty { return q.ended ? .some(nil) : nil }
                return .some(q.jobs.removeFirst())
            }
            guard let job = next else { continue }
            guard let job else { return }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        queue.withLock { $0.jobs.append(unowned) }
        waiting.signal()
    }

    /// The thread ends once it has run the jobs it holds (call it when the server has stopped).
    func end() {
        queue.withLock { $0.ended = true }
        waiting.signal()
    }
}
