import Foundation
import Glibc
import Synchronization

/// A program the tests start, through `posix_spawn` directly.
///
/// Not Foundation's `Process`: on this toolchain its `run()` walks `/proc/self/fd` to close the
/// parent's descriptors in the child and over-reads its buffer once the test process holds more
/// than about 1,300 descriptors (swift-corelibs-foundation #5472), which crashed the whole test
/// binary now and then. Here the child gets exactly stdin, stdout and stderr (every other
/// descriptor is closed in the child by `closefrom`), with default signal handling.
public final class ChildProcess: Sendable {
    /// Where a standard stream goes.
    public enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// A pipe to this process (``standardInput``, ``standardOutput``, ``standardError``).
        case pipe
        /// The test process's own.
        case inherit
    }

    /// The child's process id.
    public let processIdentifier: pid_t
    /// The write end of the child's stdin, for `.pipe`.
    public let standardInput: FileHandle?
    /// The read end of the child's stdout, for `.pipe`.
    public let standardOutput: FileHandle?
    /// The read end of the child's stderr, for `.pipe`.
    public let standardError: FileHandle?
    private let status = Mutex<Int32?>(nil)

    /// Starts `executable` with `arguments` (without the program name).
    ///
    /// - Parameters:
    ///   - environment: the child's whole environment; `nil` passes the test process's own.
    ///   - directory: the child's working directory; `nil` keeps the test process's.
    /// - Throws: ``SpawnFailure`` naming the `errno` when the program cannot be started.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
                stdin: Stream = .null, stdout: Stream = .pipe, stderr: Stream = .null) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var childEnds: [Int32] = []
        defer { childEnds.forEach { close($0) } }
        var handles: [FileHandle?] = []
        for (fd, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            switch stream {
            case .inherit: handles.append(nil)
            case .null:
                posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
                handles.append(nil)
            case .pipe:
                var ends: [Int32] = [0, 0]
                guard GNU.pipe2(&ends, O_CLOEXEC) == 0 else { throw SpawnFailure("pipe2: errno \(errno)") }
                let (childEnd, parentEnd) = fd == 0 ? (ends[0], ends[1]) : (ends[1], ends[0])
                posix_spawn_file_actions_adddup2(&actions, childEnd, fd)  // dup2 clears close-on-exec on fd
                childEnds.append(childEnd)
                handles.append(FileHandle(fileDescriptor: parentEnd, closeOnDealloc: true))
            }
        }
        _ = GNU.addClosefrom(&actions, 3)
        if let directory { _ = GNU.addChdir(&actions, directory) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)  // e.g. SIGPIPE ignored here is default there
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let pairs = environment.map { $0.map { "\($0.key)=\($0.value)" } } ?? ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
        let envp = pairs.map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw SpawnFailure("cannot start \(executable): errno \(result)") }
        processIdentifier = pid
        standardInput = handles[0]
        standardOutput = handles[1]
        standardError = handles[2]
    }

    /// Whether the child has not exited yet.
    public var isRunning: Bool { reap(blocking: false) == nil }

    /// Sends SIGTERM.
    public func terminate() { kill(processIdentifier, SIGTERM) }

    /// Sends SIGKILL: the child dies at once, without cleaning up.
    public func killNow() { kill(processIdentifier, SIGKILL) }

    /// Waits for the child to exit.
    public func waitUntilExit() { _ = reap(blocking: true) }

    /// Sends SIGTERM and waits for the exit on a thread of its own: a `tessera serve` takes a
    /// moment to stop its plugins, and a blocking wait on one of the two cooperative threads
    /// stalls every in-process server the other tests run meanwhile.
    public func terminateAndWait() async {
        terminate()
        _ = try? await onOwnThread { [self] in reap(blocking: true) }
    }

    /// The exit code, or the number of the signal that ended it (as Foundation's `Process`).
    /// Waits for the exit first: in an async test, await ``exitStatus()`` instead.
    public var terminationStatus: Int32 { reap(blocking: true) ?? -1 }

    /// Waits for the exit on a thread of its own and returns ``terminationStatus``: a child that
    /// runs for seconds must not hold one of Swift concurrency's two threads meanwhile.
    public func exitStatus() async -> Int32 {
        (try? await onOwnThread { [self] in reap(blocking: true) ?? -1 }) ?? -1
    }

    /// Reads the child's stdout (`.pipe`) on a thread of its own until it has printed `marker`, or
    /// to its end when `marker` is `nil` (or the child closes it first), and returns what it read:
    /// a `tessera serve` says it listens only after seconds under load, and a blocking read on a
    /// cooperative thread stalls every in-process server of the other tests until then.
    public func output(until marker: String? = nil) async -> String {
        guard let handle = standardOutput else { return "" }
        return (try? await onOwnThread {
            var text = ""
            while marker.map({ !text.contains($0) }) ?? true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }  // end of file: it exited or closed its stdout
                text += String(decoding: chunk, as: UTF8.self)
            }
            return text
        }) ?? ""
    }

    private func reap(blocking: Bool) -> Int32? {
        status.withLock { status in
            if let status { return status }
            var raw: Int32 = 0
            var result: pid_t
            repeat { result = waitpid(processIdentifier, &raw, blocking ? 0 : WNOHANG) } while result == -1 && errno == EINTR
            guard result == processIdentifier else { return nil }
            let signal = raw & 0x7f
            status = signal == 0 ? (raw >> 8) & 0xff : signal
            return status
        }
    }

    deinit {
        if reap(blocking: false) == nil { killNow(); waitUntilExit() }  // never leave a child behind
    }
}

/// A program that could not be started.
public struct SpawnFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// glibc's GNU extensions that Swift's Glibc module does not import (they sit behind
/// `_GNU_SOURCE`), looked up once by name: glibc 2.34+ has all three (Debian 12 has 2.36).
private enum GNU {
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    typealias Closefrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias Chdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    static let pipe2: Pipe2 = symbol("pipe2")
    static let addClosefrom: Closefrom = symbol("posix_spawn_file_actions_addclosefrom_np")
    static let addChdir: Chdir = symbol("posix_spawn_file_actions_addchdir_np")

    private static func symbol<T>(_ name: String) -> T {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { fatalError("glibc has no \(name)") }
        return unsafeBitCast(address, to: T.self)
    }
}

/// A TCP port nothing listens on on 127.0.0.1 right now, below the ephemeral range (else the
/// kernel's pick for port 0), tried and closed. Another test may still pick it before the caller
/// binds, so callers that can retry do.
public func freeLoopbackPort() throws -> Int {
    // Below Linux's ephemeral range (32768–60999 by default): the kernel never hands such a port
    // to another socket bound to port 0 or to an outgoing connection, so it stays free until
    // the test listens on it. A port from the ephemeral range was taken in between under load,
    // once (HubMailTests: "the SMTP test server exited before it listened").
    for _ in 0..<200 {
        let port = Int.random(in: 20_000..<32_000)
        if try canBind(port) { return port }
    }
    return try boundPort(0)
}

/// Whether nothing listens on loopback `port` now.
private func canBind(_ port: Int) throws -> Bool {
    do { return try boundPort(port) == port } catch { return false }
}

/// Binds a socket to loopback `port` (0: any), closes it, and answers the port it had.
private func boundPort(_ port: Int) throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw SpawnFailure("socket: errno \(errno)") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(port)).bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw SpawnFailure("bind: errno \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
}
