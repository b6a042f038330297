import Foundation
import Synchronization

/// A `TaskExecutor` with threads of its own: tasks that prefer it run there, never on Swift
/// concurrency's shared pool.
///
/// The shared pool has one thread per core, and code that computes without suspending keeps its
/// thread for as long as it computes. Nothing can take a thread back from it. A server whose
/// answers must not wait for such code (an emulator inside a busy test process) runs its tasks here:
///
/// ```swift
/// let threads = ThreadPoolExecutor(name: "stag-emulator", threads: 1)
/// let server = Task(executorPreference: threads) { try await serviceGroup.run() }
/// ```
///
/// Structured child tasks (task groups, `async let`) inherit the preference; an unstructured
/// `Task {}` does not. Code that may hold a thread for long, called from such a task, belongs back
/// on the shared pool: `withTaskExecutorPreference(globalConcurrentExecutor) { … }`.
public final class ThreadPoolExecutor: TaskExecutor, @unchecked Sendable {
    /// Jobs waiting for a thread, first in first out, and whether the pool is ending.
    private let queue = Mutex<(jobs: [UnownedJob], next: Int, ended: Bool)>(([], 0, false))
    /// One signal per job enqueued, and one per thread when the pool ends.
    private let ready = DispatchSemaphore(value: 0)
    private let threadCount: Int

    /// Starts `threads` threads named `name` (the name `ps -L` and a debugger show).
    public init(name: String, threads: Int) {
        threadCount = max(1, threads)
        for index in 0..<threadCount {
            let thread = Thread { [self] in serve() }
            thread.name = threadCount == 1 ? name : "\(name)-\(index + 1)"
            thread.start()
        }
    }

    private func serve() {
        while true {
            ready.wait()
            let next = queue.withLock { q -> UnownedJob?? in
                guard q.next < q.jobs.count else { return q.ended ? .some(nil) : nil }
                let job = q.jobs[q.next]
                q.next += 1
                // Drop what was run once it is half the array, so the queue stays small.
                if q.next * 2 >= q.jobs.count, q.next > 64 {
                    q.jobs.removeFirst(q.next)
                    q.next = 0
                }
                return .some(job)
            }
            guard let job = next else { continue }
            guard let job else { return }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// Queues a job for the next free thread of the pool.
    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        queue.withLock { $0.jobs.append(unowned) }
        ready.signal()
    }

    /// Ends the threads once they have run the jobs queued (call it when no task prefers the pool
    /// any more; a job enqueued later never runs).
    public func shutdown() {
        queue.withLock { $0.ended = true }
        for _ in 0..<threadCount { ready.signal() }
    }
}
