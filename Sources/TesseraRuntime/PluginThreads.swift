import Foundation
import Synchronization
import TesseraIsolation

/// The threads in-process plugins' code runs on: a `TaskExecutor` of its own, apart from Swift
/// concurrency's global pool, where the host's HTTP edge, its timers and its signal handling run.
///
/// Why (issue 43): the global pool has one thread per core. In-process plugins whose operations
/// computed without suspending held every one of them, and then nothing of the host ran — `/healthz`
/// did not answer and SIGTERM was not honoured. With each call to an in-process plugin preferring
/// these threads (``run(_:)``), a plugin that spins holds only them: the host's own work goes on
/// on its pool, and the operating system shares the cores between both. The plugin's child tasks
/// inherit the preference; what it awaits in the host (its capabilities) runs here too, unless an
/// actor of the host takes it.
///
/// A plugin spinning on every one of these threads still delays other plugins' calls (they queue
/// here): that is the in-process tier's limit (docs/isolation.md), and the process tier's reason.
final class PluginThreads: TaskExecutor, @unchecked Sendable {
    /// One executor for the whole process: threads are started once and live as long as it.
    static let shared = PluginThreads(count: max(2, ProcessInfo.processInfo.activeProcessorCount))

    private let queue = Mutex<[UnownedJob]>([])
    private let waiting = DispatchSemaphore(value: 0)

    private init(count: Int) {
        for index in 0..<count {
            let thread = Thread { [self] in serve(named: "tessera-plug-\(index)") }
            thread.start()
        }
    }

    private func serve(named name: String) {
        ChildEventLoop.nameThread(name)
        while true {
            waiting.wait()
            guard let job = queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        queue.withLock { $0.append(unowned) }
        waiting.signal()
    }

    /// Runs `work` (a call into an in-process plugin) preferring these threads; a call to a plugin
    /// in the process tier (`inProcess` false) stays where it is, since only frames run here.
    static func run<T, Failure: Error>(inProcess: Bool, _ work: () async throws(Failure) -> T) async throws(Failure) -> T {
        guard inProcess else { return try await work() }
        return try await withTaskExecutorPreference(shared, operation: work)
    }
}
