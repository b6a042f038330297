import Foundation

/// How a child process ended, in words for a reason line: `exited with status 3`,
/// `was killed by SIGSEGV (signal 11)`.
struct ChildExit: CustomStringConvertible, Sendable {
    let description: String
    /// The exit status, or the signal that ended it (the other is nil).
    var status: Int32? = nil
    var signal: Int32? = nil
    /// CPU time (user and system) the child used, from `wait4`.
    var cpuSeconds: Double = 0

    /// The runner's status when it died at its memory limit (CTesseraSandbox's TESSERA_EXIT_MEMORY_LIMIT).
    static let memoryLimitStatus: Int32 = 86

    /// From a `waitpid` status and, from `wait4`, the child's CPU time.
    init(waitStatus status: Int32, cpuSeconds: Double = 0) {
        let signal = status & 0x7f
        self.cpuSeconds = cpuSeconds
        if signal == 0 {
            self.status = (status >> 8) & 0xff
            description = "exited with status \((status >> 8) & 0xff)"
        } else {
            self.signal = signal
            description = "was killed by \(Self.signalName(signal)) (signal \(signal))"
        }
    }

    init(process: Process) {
        switch process.terminationReason {
        case .exit: description = "exited with status \(process.terminationStatus)"
        case .uncaughtSignal: description = "was killed by \(Self.signalName(process.terminationStatus)) (signal \(process.terminationStatus))"
        @unknown default: description = "ended"
        }
    }

    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGSEGV: return "SIGSEGV"
        case SIGABRT: return "SIGABRT"
        case SIGILL: return "SIGILL"
        case SIGTRAP: return "SIGTRAP"
        case SIGBUS: return "SIGBUS"
        case SIGFPE: return "SIGFPE"
        case SIGKILL: return "SIGKILL"
        case SIGTERM: return "SIGTERM"
        case SIGXCPU: return "SIGXCPU"
        default: return "signal \(signal)"
        }
    }
}
