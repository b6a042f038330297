import Foundation
import TesseraLoader

/// The standard `process_*` metrics every Prometheus client exports, read from `/proc/self` at
/// scrape time, and `tessera_build_info` (issue 46): what an operator's dashboards expect of any
/// service before they look at its own metrics.
///
/// | metric | type | what |
/// | --- | --- | --- |
/// | `process_cpu_seconds_total` | counter | user and system CPU time of the host process |
/// | `process_resident_memory_bytes` | gauge | resident set size |
/// | `process_virtual_memory_bytes` | gauge | virtual memory size |
/// | `process_open_fds` | gauge | open file descriptors |
/// | `process_max_fds` | gauge | the descriptor limit |
/// | `process_start_time_seconds` | gauge | start, in seconds since the Unix epoch |
/// | `tessera_build_info` | gauge | 1, labelled `version`, `swift`, `sdk_abi` |
enum ProcessMetrics {
    static func write(to out: inout PrometheusText) {
        let identity = HostIdentity.current
        out.family("tessera_build_info", type: "gauge", help: "The host's build: its version, Swift toolchain and SDK ABI.")
        out.sample("tessera_build_info", ["version": identity.hostVersion, "swift": identity.swiftVersion,
                                          "sdk_abi": "\(identity.sdkABIMajor).\(identity.sdkABIMinor)"], 1)
        guard let stat = statFields() else { return }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let page = Double(sysconf(Int32(_SC_PAGESIZE)))
        // Fields after the command: state is 3; utime 14, stime 15, starttime 22, vsize 23, rss 24.
        func field(_ n: Int) -> Double { n - 3 < stat.count ? Double(stat[n - 3]) ?? 0 : 0 }
        out.family("process_cpu_seconds_total", type: "counter", help: "Total user and system CPU time spent in seconds.")
        out.sample("process_cpu_seconds_total", [:], (field(14) + field(15)) / ticks)
        out.family("process_resident_memory_bytes", type: "gauge", help: "Resident memory size in bytes.")
        out.sample("process_resident_memory_bytes", [:], field(24) * page)
        out.family("process_virtual_memory_bytes", type: "gauge", help: "Virtual memory size in bytes.")
        out.sample("process_virtual_memory_bytes", [:], field(23))
        if let boot = bootTime() {
            out.family("process_start_time_seconds", type: "gauge", help: "Start time of the process since unix epoch in seconds.")
            out.sample("process_start_time_seconds", [:], boot + field(22) / ticks)
        }
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        out.family("process_open_fds", type: "gauge", help: "Number of open file descriptors.")
        out.sample("process_open_fds", [:], Double(fds))
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            out.family("process_max_fds", type: "gauge", help: "Maximum number of open file descriptors.")
            out.sample("process_max_fds", [:], Double(limit.rlim_cur))
        }
    }

    /// `/proc/self/stat` from the field after the command name (which may hold spaces), split.
    static func statFields() -> [Substring]? {
        guard let text = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8), let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }

    /// The boot time, seconds since the epoch (`btime` in /proc/stat).
    static func bootTime() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first { $0.hasPrefix("btime ") }.flatMap { Double($0.dropFirst(6)) }
    }
}
