import Foundation
import Synchronization
import TesseraSDK

/// The thread a C-ABI plugin instance runs on: every call into the instance, one at a time, in
/// the order made (`tessera_plugin.h` promises both).
///
/// A C plugin blocks in `host->call` until the host answers, and the host answers on Swift's
/// concurrency pool: were the plugin called on that pool, a blocked call could hold the very thread
/// its answer needs (the pool has as many threads as cores). So calls into it hop to this thread,
/// and the caller suspends meanwhile.
final class CPluginThread: Sendable {
    private let queue = JobQueue()

    /// The thread starts with the first job, so an adapter that is made and never started (its
    /// migrations read) costs no thread.
    private let started = Mutex(false)

    deinit { queue.finish() }

    /// Runs `work` on the thread and answers its result; the caller suspends until then.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        startIfNeeded()
        return try await withCheckedThrowingContinuation { continuation in
            let accepted = queue.append { continuation.resume(with: Result { try work() }) }
            if !accepted { continuation.resume(throwing: PluginError(.unavailable, "the plugin was stopped")) }
        }
    }

    /// Ends the thread once the jobs before this one have run.
    func finish() { queue.finish() }

    private func startIfNeeded() {
        let first = started.withLock { wasStarted -> Bool in
            defer { wasStarted = true }
            return !wasStarted
        }
        guard first else { return }
        let queue = self.queue
        let thread = Thread { queue.serve() }
        thread.name = "tessera-c-plugin"
        // C code may keep large buffers on its stack; the default of a secondary thread is small.
        thread.stackSize = 8 << 20
        thread.start()
    }
}

/// The jobs waiting for a ``CPluginThread``, served in order until finished. Apart from the
/// thread object, so that the thread holds the queue and not its owner.
private final class JobQueue: Sendable {
    private let jobs = Mutex<(pending: [@Sendable () -> Void], finished: Bool)>(([], false))
    private let waiting = DispatchSemaphore(value: 0)

    /// Queues `job`; `false` once finished (the job will not run).
    func append(_ job: @escaping @Sendable () -> Void) -> Bool {
        let accepted = jobs.withLock { s -> Bool in
            guard !s.finished else { return false }
            s.pending.append(job)
            return true
        }
        if accepted { waiting.signal() }
        return accepted
    }

    func finish() {
        jobs.withLock { $0.finished = true }
        waiting.signal()
    }

    /// Runs jobs as they come until ``finish()``, after the jobs appended before it.
    func serve() {
        while true {
            waiting.wait()
            let next = jobs.withLock { s -> (@Sendable () -> Void)? in
                s.pending.isEmpty ? nil : s.pending.removeFirst()
            }
            if let next { next() } else if jobs.withLock({ $0.finished }) { return }
        }
    }
}
