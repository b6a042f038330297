import Foundation
import Synchronization
import TesseraIsolation
import TesseraSDK
import TesseraSystem

/// One `tessera-plugin-runner` process and the socket to it.
///
/// The socket is one end of a `socketpair` the child inherits as fd 3: nothing on disk, so a host
/// that dies leaves no stale socket file, and the child sees the end of the socket when the host
/// goes (it also asks the kernel to kill it then, `PR_SET_PDEATHSIG`).
final class PluginChild: Sendable {
    let pid: pid_t
    let peer: PeerConnection
    /// Happens once the child is reaped; those waiting in ``reaped()`` are resumed then.
    private let reaping = OneTimeEvent()
    /// Happens once the child's output (if the host relays it) has been read to its end and logged.
    private let outputEnded: OneTimeEvent
    /// Whether the host's end of the socket is closed yet (the reader closes it once the child is
    /// reaped; the death watcher shuts it down first, only while it is still open).
    private let socketClosed = Mutex(false)

    private init(pid: pid_t, outputEnded: OneTimeEvent, peer: PeerConnection) {
        self.pid = pid
        self.peer = peer
        self.outputEnded = outputEnded
    }

    /// Starts a child. `handler` answers its capability calls; `exited` is told, on the reader
    /// thread, how the child ended once its socket closed (it is reaped there), and names the
    /// error that calls still waiting for it fail with. `lanes` more socket pairs carry the host's
    /// calls whose caller reads the answer itself (``CallLanes``); `busyPolling` is how long both
    /// ends of a lane poll before sleeping (``BusyPolling``).
    static func spawn(runner: String, sandbox: ChildSandbox, lanes laneCount: Int = 0, busyPolling: BusyPolling = .off,
                      maxCallsInFlight: Int? = nil, output: (@Sendable (String) -> Void)? = nil,
                      handler: @escaping PeerConnection.Handler,
                      exited: @escaping @Sendable (PluginChild, ChildExit) -> any Error) throws -> PluginChild {
        var pairs: [(host: Int32, child: Int32)] = []
        for _ in 0...laneCount {
            var fds: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
                let why = String(cString: strerror(errno))
                for pair in pairs { close(pair.host); close(pair.child) }
                throw PluginError(.unavailable, "socketpair: \(why)")
            }
            pairs.append((fds[0], Self.aboveTargets(fds[1])))
        }
        let made = pairs
        // What the child writes to stdout and stderr comes to the host through a pipe, line by
        // line, into its log under the plugin's id (issue 43: raw, it could forge the host's lines).
        var outputPipe: [Int32] = [-1, -1]
        if output != nil {
            if pipe(&outputPipe) == 0 {
                for fd in outputPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            } else {
                outputPipe = [-1, -1]
            }
        }
        let outputWrite = outputPipe[1] >= 0 ? Self.aboveTargets(outputPipe[1]) : -1
        defer { if outputWrite >= 0 { close(outputWrite) } }
        let (hostEnd, childEnd) = made[0]
        let hostLanes = made.dropFirst().map(\.host)
        defer { for pair in made { close(pair.child) } }
        let arguments = [runner, "serve", "--parent", String(getpid()), "--lanes", String(laneCount),
                         "--busy-poll-us", String(busyPolling.microseconds)] + sandbox.arguments
        _ = ChildSandbox.hostMadeNonDumpable
        // From the spawn thread: the child dies with the thread that spawned it (SpawnThread).
        let (status, pid) = SpawnThread.shared.perform { () -> (Int32, pid_t) in
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            // dup2 onto fd 3 clears close-on-exec there; every other descriptor of the host closes on exec
            // or is closed here, so the child inherits nothing else of the host's.
            posix_spawn_file_actions_adddup2(&actions, childEnd, PluginRunner.socketDescriptor)
            let laneDescriptors = PluginRunner.laneDescriptors(laneCount)
            for (pair, target) in zip(made.dropFirst(), laneDescriptors) {
                posix_spawn_file_actions_adddup2(&actions, pair.child, target)
            }
            if outputWrite >= 0 {
                posix_spawn_file_actions_adddup2(&actions, outputWrite, STDOUT_FILENO)
                posix_spawn_file_actions_adddup2(&actions, outputWrite, STDERR_FILENO)
            }
            closeFrom(PluginRunner.socketDescriptor + 1 + Int32(laneCount), in: &actions)
            var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
            defer { for p in argv { free(p) } }
            // Its own process group, so that the group is killed whole should anything of it escape.
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
            posix_spawnattr_setpgroup(&attributes, 0)
            var pid: pid_t = 0
            let status = posix_spawn(&pid, runner, &actions, &attributes, &argv, environ)
            return (status, pid)
        }
        let outputEnded = OneTimeEvent()
        if let output, outputPipe[0] >= 0 {
            Self.relayOutput(outputPipe[0], pid: pid, to: output, then: outputEnded)
        } else {
            outputEnded.signal()
        }
        guard status == 0 else {
            close(hostEnd)
            for lane in hostLanes { close(lane) }
            throw PluginError(.unavailable, "cannot start the plugin runner \(runner): \(String(cString: strerror(status)))"
                + (status == ENOENT ? PluginRunnerExecutable.howToBuild : ""))
        }
        let child = PluginChild(pid: pid, outputEnded: outputEnded, peer: PeerConnection(fd: hostEnd, lanes: hostLanes, busyPolling: busyPolling,
                                                           maxCallsInFlight: maxCallsInFlight, handler: handler))
        child.watchForDeath(hostEnd: hostEnd)
        child.peer.start { [child] in
            var raw: Int32 = 0
            var usage = rusage()
            _ = SystemCall.retryingInterrupted { wait4(child.pid, &raw, 0, &usage) }
            child.socketClosed.withLock { closed in
                close(hostEnd)
                closed = true
            }
            child.markReaped()
            let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
            return exited(child, ChildExit(waitStatus: raw, cpuSeconds: cpu))
        }
        return child
    }

    /// Reads the child's output from `fd` on a thread of its own until the child (and anything
    /// holding the pipe) is gone, and hands each line to `output`: control characters shown as
    /// U+FFFD so a line can neither end early nor colour or move the host's own, and at most 4,000
    /// characters each. `done` happens once the last line is handed over.
    private static func relayOutput(_ fd: Int32, pid: pid_t, to output: @escaping @Sendable (String) -> Void, then done: OneTimeEvent) {
        let thread = Thread {
            defer { close(fd); done.signal() }
            var pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            func emit(_ bytes: ArraySlice<UInt8>) {
                let text = String(decoding: bytes, as: UTF8.self).unicodeScalars
                    .map { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F || (0x80...0x9F).contains($0.value) ? "\u{FFFD}" : String($0) }
                    .joined()
                output(String(text.prefix(4000)))
            }
            while true {
                let n = SystemCall.retryingInterrupted { read(fd, &chunk, chunk.count) }
                if n <= 0 { break }
                pending += chunk[0..<n]
                while let newline = pending.firstIndex(of: 0x0A) {
                    emit(pending[..<newline])
                    pending.removeSubrange(...newline)
                }
                if pending.count > 16_384 { emit(pending[...]); pending.removeAll() }
            }
            if !pending.isEmpty { emit(pending[...]) }
        }
        thread.name = "tessera-output-\(pid)"
        thread.start()
    }

    /// Issue 43: the moment the child dies — whether or not its socket closed, which a process it
    /// left behind could keep open — its process group is killed (the child is not reaped yet, so
    /// its id names no other group) and the host's end of the socket is shut down: calls in flight
    /// fail at once as a crash, and nothing more is read from the socket. A thread of its own waits
    /// for the death without reaping it (`WNOWAIT`); the reader reaps.
    private func watchForDeath(hostEnd: Int32) {
        let thread = Thread { [self] in
            var info = siginfo_t()
            _ = SystemCall.retryingInterrupted { waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) }
            _ = Glibc.kill(-pid, SIGKILL)
            socketClosed.withLock { closed in
                if !closed { _ = shutdown(hostEnd, Int32(SHUT_RDWR)) }
            }
        }
        thread.name = "tessera-child-\(pid)"
        thread.start()
    }

    /// The child's end of a pair, moved above the descriptors it is dup2'ed onto in the child (3, then
    /// the lanes), so that no dup2 overwrites an end still to be moved.
    private static func aboveTargets(_ fd: Int32) -> Int32 {
        let floor: Int32 = 64
        guard fd < floor else { return fd }
        let moved = fcntl(fd, F_DUPFD_CLOEXEC, floor)
        guard moved >= 0 else { return fd }
        close(fd)
        return moved
    }

    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34+), looked up by name: Swift's Glibc
    /// module declares it only under _GNU_SOURCE. Without it, the host's descriptors still close
    /// on exec (they are opened close-on-exec).
    private static func closeFrom(_ fd: Int32, in actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, fd)
    }

    /// Waits until the child has exited and been reaped.
    func reaped() async { await reaping.wait() }

    /// Waits until the child's output has been read to its end, at most `limit`: a process the
    /// child left outside its group could hold the pipe open for ever.
    func outputRelayed(atMost limit: Duration) async { _ = await outputEnded.wait(atMost: limit) }

    private func markReaped() { reaping.signal() }

    /// Kills the child at once (a call past its deadline): its socket closes and it is reaped.
    /// Once reaped, the pid may be another process's: then nothing is sent.
    func kill() {
        guard !reaping.happened else { return }
        _ = Glibc.kill(-pid, SIGKILL)  // its process group: the child and anything it made
        _ = Glibc.kill(pid, SIGKILL)
    }

    /// Closes the socket: the child sees the end and exits; it is reaped on the reader thread.
    func shutDown() { peer.shutDown() }
}
