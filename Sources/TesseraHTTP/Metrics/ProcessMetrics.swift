import Foundation
import Prometheus
import Synchronization
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
final class ProcessMetrics: Sendable {
    private let cpu: Counter
    private let resident, virtual, openFDs, maxFDs, startTime: Gauge
    /// The CPU seconds the counter has been moved to (a counter only goes up by increments).
    private let cpuCounted = Mutex<Double>(0)

    init(registry: PrometheusCollectorRegistry) {
        let identity = HostIdentity.current
        registry.makeGauge(name: "tessera_build_info", labels: [("version", identity.hostVersion), ("swift", identity.swiftVersion),
                                                                ("sdk_abi", "\(identity.sdkABIMajor).\(identity.sdkABIMinor)")],
                           help: "The host's build: its version, Swift toolchain and SDK ABI.").set(1.0)
        cpu = registry.makeCounter(name: "process_cpu_seconds_total", help: "Total user and system CPU time spent in seconds.")
        resident = registry.makeGauge(name: "process_resident_memory_bytes", help: "Resident memory size in bytes.")
        virtual = registry.makeGauge(name: "process_virtual_memory_bytes", help: "Virtual memory size in bytes.")
        openFDs = registry.makeGauge(name: "process_open_fds", help: "Number of open file descriptors.")
        maxFDs = registry.makeGauge(name: "process_max_fds", help: "Maximum number of open file descriptors.")
        startTime = registry.makeGauge(name: "process_start_time_seconds", help: "Start time of the process since unix epoch in seconds.")
    }

    /// Reads the figures now.
    func update() {
        if let stat = Self.statFields() {
            let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
            let page = Double(sysconf(Int32(_SC_PAGESIZE)))
            // Fields after the command: state is 3; utime 14, stime 15, starttime 22, vsize 23, rss 24.
            func field(_ n: Int) -> Double { n - 3 < stat.count ? Double(stat[n - 3]) ?? 0 : 0 }
            let seconds = (field(14) + field(15)) / ticks
            let step = cpuCounted.withLock { counted -> Double in
                defer { counted = max(counted, seconds) }
                return max(0, seconds - counted)
            }
            if step > 0 { cpu.increment(by: step) }
            resident.set(field(24) * page)
            virtual.set(field(23))
            if let boot = Self.bootTime() { startTime.set(boot + field(22) / ticks) }
        }
        openFDs.set(Double((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0))
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 { maxFDs.set(Double(limit.rlim_cur)) }
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
