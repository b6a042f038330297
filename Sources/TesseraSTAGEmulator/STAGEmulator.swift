import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization
import TesseraSystem

/// An IS/STAG web-service emulator on loopback: the student and teacher endpoints under `/ws/services/rest2/`,
/// the SSO login redirect with `stagUserTicket`, ticket expiry (401), enrolment rules answered in
/// STAG's plain text; under `/_emulator/`, a settable time, fault switches, and routes to add
/// people, subjects, terms and grades (``AdminRoutes``).
public final class STAGEmulator: Sendable {
    /// The port it listens on (127.0.0.1).
    public let port: Int
    /// `http://127.0.0.1:PORT`, what a redirect of a university's base origin points at.
    public var origin: String { "http://127.0.0.1:\(port)" }
    let task: Task<Void, any Error>
    /// The server's service group: ``stop()`` asks it to shut down gracefully.
    let group: ServiceGroup
    let shared: SharedState
    /// The thread the server's tasks run on. The emulator mostly runs inside a test process,
    /// beside hundreds of other tests' tasks on Swift concurrency's two threads (two cores); a test
    /// that computes for seconds without suspending holds one of them, and an emulator on the same
    /// pool then answered a plain request only after the module's 10 s timeout. The module's side is
    /// what tests check, so the emulator answers promptly whatever else runs: its server's task, and
    /// the connection tasks it starts (structured children, which inherit the preference), run here.
    let thread: ThreadPoolExecutor

    private init(port: Int, task: Task<Void, any Error>, group: ServiceGroup, shared: SharedState, thread: ThreadPoolExecutor) {
        self.port = port
        self.task = task
        self.group = group
        self.shared = shared
        self.thread = thread
    }

    /// Starts the emulator on `port` (0 = any free port), its time at `now`.
    public static func start(port: Int = 0, now: Date = Date(timeIntervalSince1970: 1_767_225_600)) async throws -> STAGEmulator {
        let shared = SharedState(now: now)
        let router = Router()
        Routes.install(on: router, state: shared)
        let (ports, sink) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: "stag-emulator")
        logger.logLevel = .critical
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
                              onServerRunning: { sink.yield($0.localAddress?.port ?? 0); sink.finish() }, logger: logger)
        let thread = ThreadPoolExecutor(name: "stag-emulator", threads: 1)
        // No signal handling: whoever started the emulator stops it (``stop()``).
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let task = Task(executorPreference: thread) { try await group.run() }
        for await bound in ports { return STAGEmulator(port: bound, task: task, group: group, shared: shared, thread: thread) }
        await group.triggerGracefulShutdown()
        thread.shutdown()
        throw CancellationError()
    }

    /// Waits until the server ends (it serves until stopped or cancelled).
    public func run() async throws { try await task.value }

    /// Stops serving; connections are then refused.
    ///
    /// A graceful shutdown, not a cancellation: cancelling the server's task from another thread
    /// while a connection task ran on the emulator's thread deadlocked the two in Swift's runtime
    /// (the task's status lock against swift-async-algorithms' merge lock; seen when tests began
    /// to await this stop).
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        thread.shutdown()
    }

    // MARK: In-process control (the same as the `/_emulator/` endpoints)

    /// Sets the emulator's time (deadlines and ticket expiry are judged against it).
    public func setTime(_ date: Date) { shared.box.withLock { $0.now = date } }
    /// Who the next SSO login logs in as (the student by default).
    public func setLoginUser(_ user: EmulatorUser) { shared.box.withLock { $0.loginUser = user.account.userName } }
    /// Adds (or replaces) a person; log them in with ``setLoginUser(named:)``.
    public func addUser(_ account: EmulatorAccount) { shared.box.withLock { $0.accounts[account.userName] = account } }
    /// Who the next SSO login logs in as, by login name (one of the built-in people or one added).
    public func setLoginUser(named userName: String) { shared.box.withLock { $0.loginUser = userName } }
    /// Enrols a student in a subject.
    public func addSubject(_ subject: EmulatorSubject) { shared.box.withLock { $0.subjects.append(subject) } }
    /// How long tickets issued from now on stay valid.
    public func setTicketLifetime(_ seconds: TimeInterval) { shared.box.withLock { $0.ticketLifetime = seconds } }
    /// Switches a fault on (or `.none` off).
    public func setFault(_ fault: EmulatorFault) { shared.box.withLock { $0.fault = fault } }
    /// Answers the next `requests` service calls normally, then switches `fault` on.
    public func failAfter(requests: Int, with fault: EmulatorFault) { shared.box.withLock { $0.pendingFault = (requests, fault) } }
    /// Switches `.slow` on: every service call then answers after `seconds`.
    public func setSlow(seconds: Double) { shared.box.withLock { $0.fault = .slow; $0.slowSeconds = seconds } }
    /// Adds an exam term.
    public func addTerm(_ term: EmulatorTerm) { shared.box.withLock { $0.terms.append(term) } }
    /// Publishes a grade.
    public func addGrade(_ grade: EmulatorGrade) { shared.box.withLock { $0.grades.append(grade) } }
    /// Service calls answered so far.
    public var requestCount: Int { shared.box.withLock { $0.requestCount } }
    /// Whether the student is registered for the term.
    public func isRegistered(term: Int, student: String = STAGEmulator.student) -> Bool {
        shared.box.withLock { $0.terms.first { $0.id == term }?.registered.contains(student) ?? false }
    }
    /// The emulator's student's number (`osCislo`).
    public static var student: String { Fixtures.osCislo }
    /// Parses a STAG date (`d.M.yyyy` or `d.M.yyyy H:mm`, Europe/Prague), for tests building terms.
    public static func pragueDate(_ text: String) -> Date { Fixtures.date(text) }
}

/// The state behind a reference the route closures share.
final class SharedState: Sendable {
    let box: Mutex<EmulatorState>
    init(now: Date) { box = Mutex(EmulatorState(now: now)) }
}
