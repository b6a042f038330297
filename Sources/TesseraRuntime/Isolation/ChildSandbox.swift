import Foundation
import TesseraIsolation
import TesseraManifest

/// What the host asks of a process-tier child's sandbox, as `tessera-plugin-runner serve`
/// arguments: the runner's constructor (CTesseraSandbox) applies them before the plugin loads
/// (docs/isolation.md, "The sandbox", "Limits").
struct ChildSandbox: Sendable {
    /// The staged library, the one file of the host's data directory the child may read.
    let library: String
    /// The host's data directory: no folder that holds it is opened to the child.
    let dataDirectory: String
    let limits: PluginLimits?

    var arguments: [String] {
        var args = ["--library", library, "--data", (dataDirectory as NSString).standardizingPath]
        if let mib = limits?.memoryMiB { args += ["--memory-limit", String(UInt64(mib) << 20)] }
        if let seconds = limits?.cpuSeconds { args += ["--cpu-limit", String(seconds)] }
        return args
    }

    /// A crash's reason with the limit that caused it named, when one did.
    func describe(_ exit: ChildExit) -> String {
        if exit.status == ChildExit.memoryLimitStatus, let mib = limits?.memoryMiB {
            return "reached its memory limit of \(mib) MiB (an allocation failed) and exited"
        }
        if exit.signal == SIGXCPU || exit.signal == SIGKILL && exit.cpuSeconds >= Double(limits?.cpuSeconds ?? .max),
           let seconds = limits?.cpuSeconds {
            return "reached its CPU limit of \(seconds) s and \(exit)"
        }
        return exit.description
    }

    /// Makes the host's process non-dumpable (`PR_SET_DUMPABLE` 0), once, before its first child:
    /// then its `/proc/<pid>/environ`, `mem`, `maps` and `fd/` need `CAP_SYS_PTRACE`, which the
    /// children drop, so a plugin cannot read the host's environment (where tokens may be).
    /// Swift's Glibc module leaves out <sys/prctl.h>: looked up by name, as in PluginRunner.
    static let hostMadeNonDumpable: Bool = {
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        let PR_SET_DUMPABLE: Int32 = 4
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "prctl") else { return false }
        return unsafeBitCast(symbol, to: Prctl.self)(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0
    }()

    /// The report's warnings, as the host logs them: each mechanism the kernel did not allow.
    static func logWarnings(_ report: SandboxReport, pluginID: String, log: HostLog) {
        for line in report.warnings { log(.warning, pluginID, "process tier sandbox: \(line) (falling back without it)") }
    }
}
