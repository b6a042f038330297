import Foundation

/// How a child process ended, in words for a reason line: `exited with status 3`,
/// `was killed by SIGSEGV (signal 11)`.
struct ChildExit: CustomStringConvertible, Sendable {
    let description: String

    /// From a `waitpid` status.
    init(waitStatus status: Int32) {
        let signal = status & 0x7f
        if signal == 0 {
            description = "exited with status \((status >> 8) & 0xff)"
        } else {
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
        default: return "signal \(signal)"
        }
    }
}
