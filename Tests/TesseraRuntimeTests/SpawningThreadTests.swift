import Foundation
import Synchronization
import Testing
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// A process-tier child outlives the thread that happened to start it. The runner dies with its
/// parent (`PR_SET_PDEATHSIG`), and for the kernel that parent is the spawning *thread*; Swift
/// concurrency's threads end after a few idle seconds, so children spawned on them were killed
/// at random (the host saw a crash, and answered 503 while it waited to restart).
@Suite(.hangWatchdog) struct SpawningThreadTests {
    @Test func aChildStartedFromAThreadThatThenEndsKeepsServing() async throws {
        let ws = try await ProcessIsolationTests().workspace("isolation-spawning-thread")
        var options = HostOptions(dataDirectory: ws.dataDirectory)
        options.isolation = IsolationPolicy()
        let host = try PluginHost(deployment: DeploymentReader.read(file: ws.deploymentFile), options: options)
        // Every job of the host's start runs on one thread of its own, which then ends.
        let thread = OneThreadExecutor()
        await withTaskExecutorPreference(thread) { await host.start() }
        let spawnedOn = thread.end()
        #expect(spawnedOn > 0, "the start ran on the test's thread")
        try await withCleanup({ await host.stop() }) {

            let first = try await host.call("fixture.isolated", "pid", input: [:], as: user)["pid"]?.integerValue
            let child = try #require(first.map { pid_t($0) })
            // The same child answers after its spawning thread ended: nothing killed it.
            let again = try await host.call("fixture.isolated", "pid", input: [:], as: user)["pid"]?.integerValue
            #expect(again.map { pid_t($0) } == child)
            #expect(host.status(of: "fixture.isolated")?.isolation.recentCrashes == 0, "\(host.status(of: "fixture.isolated")?.history ?? [])")
        }
    }
}

/// A task executor with one thread, which ``end()`` stops (the thread returns, so the kernel
/// sees it exit).
final class OneThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let jobs = Mutex<(queue: [UnownedJob], ended: Bool, ran: Int)>(([], false, 0))
    private let waiting = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)

    init() {
        Thread { [self] in
            while true {
                waiting.wait()
                let next = jobs.withLock { j -> UnownedJob?? in
                    if j.queue.isEmpty { return j.ended ? .some(nil) : nil }
                    j.ran += 1
                    return .some(j.queue.removeFirst())
                }
                guard let job = next else { continue }
                guard let job else { break }
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
            exited.signal()
        }.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        jobs.withLock { $0.queue.append(unowned) }
        waiting.signal()
    }

    /// Lets the thread finish the jobs it has, then end; waits for it. Returns how many jobs it ran.
    func end() -> Int {
        jobs.withLock { $0.ended = true }
        waiting.signal()
        exited.wait()
        return jobs.withLock { $0.ran }
    }
}
