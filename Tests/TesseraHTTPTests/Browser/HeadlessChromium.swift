import Foundation
import Synchronization
import Glibc
import Testing
import TesseraSDK

/// A headless Chromium (Debian's `chromium` package) driven over the DevTools protocol on a pipe
/// (`--remote-debugging-pipe`): the browser reads commands on its file descriptor 3 and writes
/// answers and events on 4, each message JSON ended by a NUL byte. No WebSocket and no port are
/// needed, and the browser ends when the pipes close.
final class HeadlessChromium: @unchecked Sendable {
    let pid: pid_t
    private let commands: Int32  // we write, the browser reads (its fd 3)
    private let answers: Int32   // the browser writes (its fd 4), we read
    private let profile: String
    private var buffer: [UInt8] = []
    private var nextID = 0
    /// What went wrong in the pages, as the browser reported it while commands ran: console
    /// errors, uncaught exceptions, Content-Security-Policy violations, static files that failed
    /// to load (``BrowserProblems``). ``quit()`` records each as a test issue.
    private let problems = Mutex<[String]>([])

    /// The browser's executable, if installed (the suites that drive it carry `.needs("chromium")`).
    static var executable: String? {
        ["/usr/lib/chromium/chromium", "/usr/bin/chromium"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts the browser with a fresh profile in a temporary folder.
    init(executable: String) throws {
        profile = NSTemporaryDirectory() + "tessera-chromium-\(UUID().uuidString.prefix(8))"
        var toBrowser: [Int32] = [0, 0], fromBrowser: [Int32] = [0, 0]
        guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else { throw Failure("pipe: \(String(cString: strerror(errno)))") }
        let arguments = [executable, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                         "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                         "--user-data-dir=\(profile)", "--window-size=1280,1000", "--remote-debugging-pipe", "about:blank"]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toBrowser[0], 3)
        posix_spawn_file_actions_adddup2(&actions, fromBrowser[1], 4)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, executable, &actions, nil, argv, environ)
        close(toBrowser[0])
        close(fromBrowser[1])
        guard spawned == 0 else { throw Failure("cannot start \(executable): \(String(cString: strerror(spawned)))") }
        pid = child
        commands = toBrowser[1]
        answers = fromBrowser[0]
        // Our ends must not leak into other children (tessera serve).
        _ = fcntl(commands, F_SETFD, FD_CLOEXEC)
        _ = fcntl(answers, F_SETFD, FD_CLOEXEC)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Sends a command and waits for its answer (events that come in between are dropped).
    /// Blocking: call it on a thread of its own.
    func send(_ method: String, _ params: JSONValue = [:], session: String? = nil) throws -> JSONValue {
        nextID += 1
        var message: [String: JSONValue] = ["id": .integer(Int64(nextID)), "method": .string(method), "params": params]
        if let session { message["sessionId"] = .string(session) }
        let bytes = Array(JSONValue.object(message).serialized().utf8) + [0]
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(commands, $0.baseAddress, $0.count) }
            guard n > 0 else { throw Failure("the browser stopped reading") }
            offset += n
        }
        while true {
            let answer = try readMessage(for: method)
            guard answer["id"]?.integerValue == Int64(nextID) else {
                if let problem = BrowserProblems.problem(in: answer) { problems.withLock { $0.append(problem) } }
                continue
            }
            if let error = answer["error"] { throw Failure("\(method): \(error.serialized())") }
            return answer["result"] ?? [:]
        }
    }

    /// How long the browser may take to say anything at all: far beyond any answer under load, so
    /// that a browser that stopped answering fails its test instead of holding CI until its limit.
    static let silenceLimitMilliseconds: Int32 = 120_000

    private func readMessage(for method: String) throws -> JSONValue {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            if let end = buffer.firstIndex(of: 0) {
                let message = Array(buffer[..<end])
                buffer.removeFirst(end + 1)
                return try JSONValue(parsing: message)
            }
            var ready = pollfd(fd: answers, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, Self.silenceLimitMilliseconds)
            if polled == 0 { throw Failure("the browser said nothing for \(Self.silenceLimitMilliseconds / 1000) s after \(method)") }
            if polled < 0 && errno == EINTR { continue }
            let n = read(answers, &chunk, chunk.count)
            guard n > 0 else { throw Failure("the browser closed the DevTools pipe") }
            buffer += chunk[..<n]
        }
    }

    /// Whether this browser holds one of ``BrowserSlots``' places (given back by ``quit()``).
    private var holdsSlot = false

    /// Starts a browser once one of the test process's browser places is free: a dozen suites
    /// drive Chromium, and all of them at once on two cores starved the other suites' servers
    /// (their 10 s timeouts ran out).
    static func launch(executable: String) async throws -> HeadlessChromium {
        await BrowserSlots.shared.acquire()
        do {
            let browser = try HeadlessChromium(executable: executable)
            browser.holdsSlot = true
            return browser
        } catch {
            BrowserSlots.shared.release()
            throw error
        }
    }

    /// Ends the browser and removes its profile, on a thread of its own: tests call it from a
    /// `defer`, which cannot await, and Chromium takes up to seconds to answer and exit under load
    /// (waited for on one of Swift concurrency's two threads, that stalled the other tests'
    /// servers). Its place is given back once it is gone, so at most two still run at once.
    ///
    /// Before that, every problem the pages reported fails the test that drove them: a page
    /// that breaks its Content-Security-Policy, logs an error or shows a missing message is broken
    /// for the person who opens it, whatever the test's own expectations say.
    func quit() {
        for problem in problems.withLock({ $0 }) where !BrowserProblems.tolerated.contains(where: { problem.contains($0) }) {
            Issue.record("the page reported: \(problem)")
        }
        Thread { [self] in end() }.start()
    }

    private func end() {
        defer { if holdsSlot { holdsSlot = false; BrowserSlots.shared.release() } }
        _ = try? send("Browser.close")
        close(commands)
        close(answers)
        var status: Int32 = 0
        for _ in 0..<50 where waitpid(pid, &status, WNOHANG) == 0 { usleep(100_000) }
        if waitpid(pid, &status, WNOHANG) == 0 {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
        try? FileManager.default.removeItem(atPath: profile)
    }
}

/// At most two browsers at once in the test process; the others wait their turn (in order).
final class BrowserSlots: Sendable {
    static let shared = BrowserSlots(places: 2)
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state: Mutex<State>

    init(places: Int) { state = Mutex(State(free: places)) }

    func acquire() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.free > 0 { s.free -= 1; return true }
                s.waiting.append(c)
                return false
            }
            if now { c.resume() }
        }
    }

    func release() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if s.waiting.isEmpty { s.free += 1; return nil }
            return s.waiting.removeFirst()
        }
        next?.resume()
    }
}

/// Which DevTools events are a page's problems: an error on its console (`console.error`, a
/// missing message from console/i18n.js), an uncaught exception, and the browser's own error log
/// (a Content-Security-Policy violation, a script or style that failed to load). A refused API
/// call (`/v1/…`, 4xx) is not one: the flows that test a refusal make them on purpose, and the page
/// shows them as sentences, which the tests check.
enum BrowserProblems {
    /// Problems a test may cause on purpose (none yet; add the text that identifies one).
    static let tolerated: [String] = []

    static func problem(in event: JSONValue) -> String? {
        let params = event["params"] ?? [:]
        switch event["method"]?.stringValue {
        case "Runtime.consoleAPICalled":
            guard ["error", "assert"].contains(params["type"]?.stringValue ?? "") else { return nil }
            let text = (params["args"]?.arrayValue ?? []).map { $0["value"]?.stringValue ?? $0["description"]?.stringValue ?? "" }.joined(separator: " ")
            return "console error: \(text)"
        case "Runtime.exceptionThrown":
            let details = params["exceptionDetails"] ?? [:]
            return "uncaught exception: \(details["exception"]?["description"]?.stringValue ?? details["text"]?.stringValue ?? "")"
        case "Log.entryAdded":
            let entry = params["entry"] ?? [:]
            guard entry["level"]?.stringValue == "error" else { return nil }
            let url = entry["url"]?.stringValue ?? ""
            if entry["source"]?.stringValue == "network", url.contains("/v1/") { return nil }
            return "\(entry["source"]?.stringValue ?? "log"): \(entry["text"]?.stringValue ?? "") \(url)"
        default:
            return nil
        }
    }
}
