#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TesseraSDK

/// A child process with its stdout on a pipe (read it with ``LineReader``) and its stderr in a file,
/// started with posix_spawn: the crash tests read what it acknowledged, then kill it. Its reads and
/// ``wait()`` block: the tests call them through ``onOwnThread(_:)``.
public struct PipedProcess: Sendable {
    public let pid: pid_t
    public let stdout: Int32
    /// The test's end of the child's stdin, when asked for (``write(_:)``); otherwise the child
    /// shares the test's.
    public let stdin: Int32?

    public struct Status: Sendable, CustomStringConvertible {
        public let raw: Int32
        public var signal: Int32? { raw & 0x7f == 0 ? nil : raw & 0x7f }
        public var exitCode: Int32? { raw & 0x7f == 0 ? (raw >> 8) & 0xff : nil }
        public var description: String { signal.map { "killed by signal \($0)" } ?? "exited with \(exitCode ?? -1)" }
    }

    /// Starts `executable`; with `writableStdin`, its stdin is a socket whose other end is
    /// ``stdin`` (a socket, not a pipe: a write after the child died fails instead of raising
    /// SIGPIPE in the test process).
    public init(_ executable: String, _ arguments: [String], stderrPath: String, writableStdin: Bool = false) throws {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw PluginError(.internal, "pipe failed: \(errno)") }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)  // dup2 onto stdout clears it in the child
        var input: [Int32] = [-1, -1]
        if writableStdin {
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &input) == 0 else {
                throw PluginError(.internal, "socketpair failed: \(errno)")
            }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO)
        if writableStdin { posix_spawn_file_actions_adddup2(&actions, input[1], STDIN_FILENO) }
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        close(fds[1])
        if writableStdin { close(input[1]) }
        guard rc == 0 else {
            close(fds[0])
            if writableStdin { close(input[0]) }
            throw PluginError(.internal, "posix_spawn \(executable) failed: \(rc)")
        }
        self.pid = pid
        self.stdout = fds[0]
        self.stdin = writableStdin ? input[0] : nil
    }

    /// Writes `text` to the child's stdin (``init(_:_:stderrPath:writableStdin:)``); a child that
    /// is gone is not an error.
    public func write(_ text: String) {
        guard let stdin else { return }
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { send(stdin, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    public func kill() { _ = Glibc.kill(pid, SIGKILL) }

    public func wait() -> Status {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return Status(raw: status)
    }

    /// Closes the test's ends of the child's stdout and, if it has one, stdin.
    public func closeOutput() {
        close(stdout)
        if let stdin { close(stdin) }
    }
}

/// Reads lines from a file descriptor with blocking reads; `nil` at end of file.
public struct LineReader {
    public let fd: Int32
    private var buffer: [UInt8] = []
    private var eof = false

    public init(fd: Int32) { self.fd = fd }

    /// From now on, end of the data available now counts as end of file.
    public func stopBlocking() { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }

    public mutating func nextLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            if eof { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                buffer.append(contentsOf: chunk[..<n])
            } else if n == 0 || errno != EINTR {
                eof = true
            }
        }
    }
}

extension Fixtures {
    /// `tessera-storage-torture` beside the test binary (the crash tests kill it with SIGKILL).
    public static var storageTortureExecutable: String? {
        guard let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        var directory = (exe as NSString).deletingLastPathComponent
        // On some layouts the test binary sits inside a bundle directory; look a level up too.
        for _ in 0..<3 {
            let candidate = (directory as NSString).appendingPathComponent("tessera-storage-torture")
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = (directory as NSString).deletingLastPathComponent
        }
        return nil
    }
}
