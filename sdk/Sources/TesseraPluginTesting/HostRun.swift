import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One finished run of the host's command: its exit status, what it printed, and its errors.
///
/// Started with `posix_spawn` rather than Foundation's `Process`: on this toolchain `Process.run()`
/// over-reads a buffer once the calling process holds more than about 1,300 descriptors
/// (swift-corelibs-foundation #5472) and crashed a test binary that ran many tests at once. The
/// child's stdout and stderr go to two files beside the test's data, read once it has exited, so
/// no pipe can fill and no reader thread is needed; it inherits no other descriptor.
struct HostRun: Sendable {
    let status: Int32
    let output: String
    let errors: String

    /// Runs `command` (the executable's path, then its arguments) to its end; its output goes to
    /// `outputs`.out and `outputs`.err.
    init(_ command: [String], outputs: String) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputs + ".out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, outputs + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        _ = Self.addClosefrom.map { $0(&actions, 3) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Default signal handling in the child, whatever the test process ignores or blocks.
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var environment = ProcessInfo.processInfo.environment
        environment["TESSERA_DEPLOYMENT"] = nil  // the command is given --deployment
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            throw HostedPluginError("cannot run \(command[0]): \(String(cString: strerror(spawned)))")
        }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
        // The exit code, or 128 + the signal that ended it, as a shell reports it.
        status = raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
        output = (try? String(contentsOfFile: outputs + ".out", encoding: .utf8)) ?? ""
        errors = (try? String(contentsOfFile: outputs + ".err", encoding: .utf8)) ?? ""
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which the C module does
    /// not declare; without it the child keeps what the test process left open without close-on-exec.
    private static let addClosefrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
            .map { unsafeBitCast($0, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self) }
    }()
}
