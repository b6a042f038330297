import ArgumentParser
import Dispatch
import Foundation
import TesseraHTTP
import TesseraHub
import TesseraManifest
import TesseraRuntime
import TesseraSystem

/// `tessera serve`
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Start the host on a deployment and run until interrupted (Ctrl-C or SIGTERM).",
        discussion: """
            Listens for HTTP on the deployment's http.host and http.port (127.0.0.1:8420 by default; docs/http.md), \
            loads and starts every enabled plugin, prints their states and the URL, and fires timers on the deployment's clock. \
            On first start it makes the admin token and prints it once.
            """)
    @OptionGroup var host: HostArguments
    @Option(name: .long, help: "Listen on this port instead of the deployment's (0: any free port; the bound one is printed).")
    var port: Int?
    @Option(name: .long, help: "The largest request body accepted, in bytes.")
    var maxBodyBytes: Int = HTTPConfiguration.defaultMaxBodyBytes
    @Option(name: .long, help: "Calls per second each token may make on average (0: no limit; default: the deployment's http.rateLimit, else 300).")
    var rateLimit: Double?
    @Option(name: .long, help: "Calls a token may make at once before the rate limit applies (default: the deployment's, else 1000).")
    var rateBurst: Double?
    @Flag(name: .long, help: "Serve the other plugins when an enabled plugin is rejected or fails to start (by default the host says which and why, and exits 6).")
    var keepGoing = false

    func validate() throws {
        if let port, !(0...65535).contains(port) { throw ValidationError("--port: expected 0...65535, found \(port)") }
        guard maxBodyBytes > 0 else { throw ValidationError("--max-body-bytes: expected a positive number, found \(maxBodyBytes)") }
        guard (rateLimit ?? 0) >= 0, (rateBurst ?? 1) >= 1 else { throw ValidationError("--rate-limit must be ≥ 0 and --rate-burst ≥ 1") }
    }

    func run() async throws {
        // Take over SIGINT and SIGTERM before anything else, so a signal that arrives while the
        // host starts still leads to a clean stop.
        let termination = TerminationSignal()
        let reloadSignal = ReloadSignal()
        // A crash names the in-process plugin that caused it and ends the host at once.
        CrashReport.installHandlers()
        try await reportingErrors {
            let host = try self.host.makeHost(quietLevel: .info)
            let (server, background) = try await Self.start(host, http: httpConfiguration(host.deployment))
            if let refused = Self.refusedAtStart(host), !keepGoing {
                await Self.stop(host, server: server, background: background)
                throw CLIError(code: .invalidDeployment, message: refused + ". Fix the deployment or the plugin and start again, or "
                    + "disable the plugin; `tessera serve --keep-going` serves the other plugins meanwhile.")
            }
            reloadSignal.serve(host)
            await termination.wait()
            await Self.stop(host, server: server, background: background)
        }
    }

    /// Gives the operator the new admin token once. On a terminal or a pipe it is printed; into
    /// the journal (a systemd service) it is not, since a journal is read by more people than the
    /// operator and kept for months (issue 46: a token is never logged): it goes to
    /// `<data>/admin-token`, 0600, and the log says where.
    static func handOver(adminToken secret: String, tokens: TokenStore, dataDirectory: String) throws {
        guard stdoutIsTheJournal() else {
            say("admin token (shown this once; only its SHA-256 is kept, in \(tokens.path)):\n  \(secret)")
            return
        }
        let file = URL(fileURLWithPath: dataDirectory).appendingPathComponent("admin-token").path
        // Made 0600 whatever the umask: only the host's user reads it.
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CLIError(code: .failure, message: "cannot write the admin token to \(file): errno \(errno)") }
        defer { close(fd) }
        _ = fchmod(fd, 0o600)
        let bytes = Array((secret + "\n").utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else {
            throw CLIError(code: .failure, message: "cannot write the admin token to \(file): errno \(errno)")
        }
        say("admin token written to \(file) (readable only by this user; only its SHA-256 is kept, in \(tokens.path)): "
            + "read it, keep it somewhere safe, and delete the file")
    }

    /// Whether standard output is systemd's journal: `JOURNAL_STREAM` names the device and inode
    /// of the stream systemd connected, which a child's own pipe or file does not match
    /// (systemd.exec(5)).
    static func stdoutIsTheJournal() -> Bool {
        guard let stream = ProcessInfo.processInfo.environment["JOURNAL_STREAM"] else { return false }
        let parts = stream.split(separator: ":")
        var info = stat()
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]), fstat(STDOUT_FILENO, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    /// Starts the HTTP listener and the host's plugins, and the background work (the timer loop on
    /// the system clock, the deployment's location sources); prints the states, the URL and, on
    /// first start, the admin token. Shared by `serve` and `dev`.
    static func start(_ host: any HostAPI, http: HTTPConfiguration) async throws -> (HTTPServer, [Task<Void, Never>]) {
        let tokens = TokenStore(dataDirectory: host.options.dataDirectory)
        // Listen before the plugins start, so /healthz answers and /readyz says 503 while they do.
        // A hub deployment also serves the hub's API (docs/hub.md) from its store (<data>/hub.sqlite or
        // PostgreSQL), on the host's clock.
        let hub = host.deployment.role == .hub
            ? try await host.deployment.openHubStore(dataDirectory: host.options.dataDirectory, now: { host.clock.now() },
                                                     sleepUntil: { try? await host.clock.sleep(until: $0) }) : nil
        let hubFiles = hub.map { host.deployment.openHubFiles(store: $0, dataDirectory: host.options.dataDirectory) }
        if let hubFiles { host.addDueWork(HubFileCollector(files: hubFiles, clock: host.clock)) }
        // One host per data directory: a second one would run every plugin twice on the same stores.
        let here = RunningHostFile(dataDirectory: host.options.dataDirectory)
        _ = try here.claim()
        let server = HTTPServer(host: host, tokens: tokens, configuration: http, hub: hub, hubFiles: hubFiles)
        let boundPort: Int
        do { boundPort = try await server.start() } catch { throw CLIError(code: .failure, message: "\(error)") }
        do { try here.announce(pid: getpid(), url: Self.url(http.host == "0.0.0.0" ? "127.0.0.1" : http.host, boundPort)) } catch {
            // The host serves either way; the CLI then cannot find it without --url.
            warn("where this host listens could not be written to \(host.options.dataDirectory)/host.json (\(error)): give plugins swap, restart, reload and list --running the --url")
        }
        // Only once listening: a start that fails leaves no token behind that nobody saw work.
        if let secret = try tokenAction({ try tokens.ensureAdminToken() }) {
            try Self.handOver(adminToken: secret, tokens: tokens, dataDirectory: host.options.dataDirectory)
        }
        await host.start()
        server.markReady()
        say(PluginTable.render(host.statuses()))
        say("tessera \(tesseraVersionText) serving \(hub == nil ? "" : "hub ")deployment '\(host.deployment.name)' at \(Self.url(http.host, boundPort)) (data: \(host.options.dataDirectory)); Ctrl-C to stop")
        var background = host.startLocationSources()
        // OwnTracks apps in MQTT mode: the deployment's broker (providers.location.mqtt).
        do { if let mqtt = try OwnTracksMQTT.start(host: host) { background.append(mqtt) } } catch {
            throw CLIError(code: .invalidDeployment, message: "\(error)")
        }
        // A device waits at its hub, so other devices' changes come down in seconds.
        if host.deployment.role == .device { background += host.startHubWatch() }
        if host.virtualClock == nil { background.append(Task { await host.runTimers() }) }
        // A hub with providers.mail sends its queued mail (reset codes, invitations) by SMTP.
        if let hub, let mailer = host.deployment.hubMailer(for: hub, log: host.options.log) { background.append(Task { await mailer.run() }) }
        // A hub sends the space notifications filed for people to their own channels (webhook, e-mail).
        if let hub {
            let log = host.options.log
            let sender = HubChannelSender(store: hub, log: { log(.warning, "hub-channels", $0) })
            background.append(Task { await sender.run() })
        }
        // What the start left is given back to the kernel (StartupLeftovers): the code it ran once
        // (the command line, manifest checks, migrations, each module's start) — of the executable
        // and every library: the SDK, SQLite, the plugins, and the toolchain's, whose pages other
        // processes map too the kernel leaves alone — and the heap it freed. From here on, what
        // serving runs is what stays resident.
        StartupLeftovers.giveBackCode(StartupLeftovers.codeSegments { _ in true })
        StartupLeftovers.giveBackFreedHeap()
        return (server, background)
    }

    /// The enabled plugins the host refused or could not start, said in one line; `nil` when
    /// every enabled plugin serves. A host that serves without a module the operator enabled
    /// looks healthy to its supervisor while that module's users get errors (issue 46), so
    /// `serve` ends instead, unless told to keep going.
    static func refusedAtStart(_ host: any HostAPI) -> String? {
        let refused = host.statuses().filter { [.rejected, .failed].contains($0.state) }
        guard !refused.isEmpty else { return nil }
        return refused.map { "\($0.id) is \($0.state.rawValue): \($0.reason ?? "see tessera plugins why \($0.id)")" }.joined(separator: "; ")
    }

    /// Stops what ``start(_:http:)`` started, the listener first.
    static func stop(_ host: any HostAPI, server: HTTPServer, background: [Task<Void, Never>]) async {
        await server.stop()
        for task in background { task.cancel() }
        await host.stop()
        RunningHostFile(dataDirectory: host.options.dataDirectory).withdraw()
        say("stopped")
    }

    /// The deployment's listener, with this command's overrides.
    func httpConfiguration(_ deployment: Deployment) -> HTTPConfiguration {
        HTTPConfiguration(host: deployment.httpHost, port: port ?? deployment.httpPort, maxBodyBytes: maxBodyBytes,
                          rateLimits: .init(deployment.httpRateLimits, callsPerSecond: rateLimit, callsBurst: rateBurst))
    }

    /// `http://host:port/`, with an IPv6 address in brackets.
    static func url(_ host: String, _ port: Int) -> String {
        "http://\(host.contains(":") ? "[\(host)]" : host):\(port)/"
    }
}

let tesseraVersionText = Tessera.configuration.version

/// Catches SIGINT and SIGTERM from the moment it is made; ``wait()`` returns once one arrived
/// (at once if one already did).
///
/// A host that must stop, stops (issue 43): the clean stop waits for calls in flight, and an
/// in-process plugin that spins never ends its call. So once a signal arrived, a thread of its own
/// (not Swift's pool, which such plugins may hold) gives the clean stop ``grace`` seconds and then
/// ends the process, saying so; a second signal ends it at once. What plugins had committed is on
/// disk either way (SQLite's journal); what they were still doing is lost, as in a crash.
final class TerminationSignal: @unchecked Sendable {
    /// How long a clean stop may take after the signal.
    static let grace: TimeInterval = 2
    private let lock = NSLock()
    private var arrived = false
    private var waiter: CheckedContinuation<Void, Never>?
    private var sources: [any DispatchSourceSignal] = []

    /// The queue the signal handlers run on: a serial queue of its own, which libdispatch serves
    /// from its overcommitting threads. `.global()` shares Swift concurrency's threads, one per
    /// core: with in-process plugins spinning on all of them, a SIGTERM was never handled
    /// (`SpinningPluginTests`).
    static let queue = DispatchQueue(label: "tessera-signals")

    init() {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: Self.queue)
            source.setEventHandler { [weak self] in self?.fire() }
            source.resume()
            sources.append(source)
        }
    }

    private func fire() {
        lock.lock()
        let again = arrived
        arrived = true
        let waiter = self.waiter
        self.waiter = nil
        lock.unlock()
        if again { Self.exitNow("a second signal arrived") }
        waiter?.resume()
        let deadline = Thread {
            Thread.sleep(forTimeInterval: Self.grace)
            Self.exitNow("the clean stop took longer than \(Int(Self.grace)) s (a plugin's call is still running)")
        }
        deadline.name = "tessera-stop-deadline"
        deadline.start()
    }

    /// Ends the process at once, saying why where the host says that it stopped (standard output).
    static func exitNow(_ why: String) -> Never {
        FileHandle.standardOutput.write(Data("tessera: stopping now: \(why)\n".utf8))
        fflush(nil)  // every output stream: what the host said before is not lost in a buffer
        HostLog.flush()  // and the log's lines not yet written
        _exit(0)
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if arrived {
                lock.unlock()
                continuation.resume()
            } else {
                waiter = continuation
                lock.unlock()
            }
        }
    }
}
