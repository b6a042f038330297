import Foundation
import TesseraIsolation
import TesseraManifest
import TesseraRuntime
import TesseraSDK

/// What `tessera-bench isolation` measured: each operation in the host's process and in the process
/// tier (as the host runs it: lanes, polling before sleeping), and the echo through the process
/// tier with each of those turned off, taken in turns with it.
struct IsolationFigures {
    var rows: [(name: String, inProcess: Summary, process: Summary)]
    /// The echo as the host runs it, and with parts of its path turned off, in alternating blocks.
    var echoAsRun: Summary
    /// On lanes, but each end sleeps at once (``IsolationPolicy/busyPollMicroseconds`` 0).
    var echoOnLanesWithoutPolling: Summary
    /// Without lanes (and without polling): every answer is read by the host's reader thread.
    var echoWithoutLanes: Summary
    /// The host as run, called as the edge calls it (``PluginHost/answer(_:_:json:as:)``): the
    /// child's answer handed back as its text, not read into a value, ready for the response.
    var echoAsRunAnsweredAsText: Summary
    /// The host as run, called as the edge called it before: the answer read into a value and
    /// written out as the response's text.
    var echoAsRunValueWrittenOut: Summary
    /// CPU per echo in each of those five (as run, lanes without polling, no lanes, as run answered
    /// as text, as run's value written out): the host process's and the child's, in nanoseconds.
    var cpuPerEcho: [(host: Double, child: Double)]
    /// The Go anchor's direct round trips, a block in each turn after the three hosts' (`nil`
    /// without `go`).
    var goDirectInTurns: Summary?
    /// How many echoes on lanes outlasted the brief wait and were handed to the reader thread, on
    /// the host as run and on the one without polling (docs/isolation.md, "Lanes").
    var handedToReader: (asRun: Int, withoutPolling: Int)
    /// The as-run host's polls for the echoes' answers: paid (the answer came while it polled) and
    /// missed (``PollingPayoff``).
    var callersPolls: (paid: Int, missed: Int)
    /// The window the hosts as run polled for (``BusyPolling/measured``).
    var pollingWindowMicroseconds: Int
    /// A larger answer, the example's `list-notes` (50 notes), on the host as run, taken in turns as
    /// the edge takes it (text) and as it took it before (a value written out); and its size.
    var listAsText: Summary
    var listValueWrittenOut: Summary
    var listAnswerBytes: Int
}

/// The process tier's cost (docs/isolation.md): the example plugin's `echo` (the dispatch
/// benchmark's ~190-byte input) and `add-note` (one storage write, which crosses the socket twice
/// more: the plugin's write to the host and its answer), each in-process and in the process tier,
/// in the same run. The echo through the process tier is measured on three hosts at once (as run;
/// lanes without polling; no lanes), in alternating blocks of calls, so that the machine's drift
/// (other work, a slower minute) falls on all alike.
///
/// With `go`, the Go anchor's direct round trips run in the same turns, a block after the three
/// hosts' in each: beside a CPU burner, the anchor measured apart read 23.7–44.0 µs from one run to
/// the next (docs/benchmarks.md), more than the process tier moved.
func isolationBenchmark(buildDirectory: String, scratch: String, calls: Int, go: GoAnchor? = nil) async throws -> IsolationFigures {
    let echo = Array(echoInputJSON.utf8)
    let principal = Principal(id: "bench", role: .user)
    let callEcho = { (host: PluginHost) in _ = try await host.call("dev.tessera.example", "echo", json: echo, as: principal) }
    // As the edge takes an answer for its response, now (text) and before (a value written out).
    let answerEcho = { (host: PluginHost) in _ = try await host.answer("dev.tessera.example", "echo", json: echo, as: principal).text }
    let valueWrittenOut = { (host: PluginHost) in
        _ = OperationAnswer.value(try await host.call("dev.tessera.example", "echo", json: echo, as: principal)).text
    }
    let addNote = { (host: PluginHost, i: Int) in
        _ = try await host.call("dev.tessera.example", "add-note", input: ["text": .string("note \(i)")], as: principal)
    }

    let inProcess = try await startHost(tier: "inProcess", variant: "", scratch: scratch, buildDirectory: buildDirectory) { _ in }
    progress("isolation, inProcess: \(calls) echo calls, \(calls / 10) add-note calls")
    let inProcessEcho = try await ProfilerWindow.around("echo-inProcess") { try await measure(calls) { _ in try await callEcho(inProcess) } }
    let inProcessWrite = try await measure(calls / 10) { try await addNote(inProcess, $0) }
    await inProcess.stop()

    // A wake-up's cost measured before the hosts start, as a host that has run for a minute has
    // it (the measurement a host starts aside while it starts its children reads low).
    WakeUpCost.shared.refresh()
    let asRun = try await startHost(tier: "process", variant: "", scratch: scratch, buildDirectory: buildDirectory) { _ in }
    // TESSERA_BENCH_ISOLATION_TWICE=1 runs the second host as run as well: an A/A run, which shows
    // how far two identical hosts' figures differ in one run (the noise under the comparison).
    let twice = ProcessInfo.processInfo.environment["TESSERA_BENCH_ISOLATION_TWICE"] == "1"
    let withoutPolling = try await startHost(tier: "process", variant: twice ? "as run, again" : "lanes without polling",
                                             scratch: scratch + "/no-polling",
                                             buildDirectory: buildDirectory) { if !twice { $0.busyPollMicroseconds = 0 } }
    let withoutLanes = try await startHost(tier: "process", variant: "without lanes", scratch: scratch + "/no-lanes",
                                           buildDirectory: buildDirectory) { $0.callLanes = 0; $0.busyPollMicroseconds = 0 }
    let hosts = [asRun, withoutPolling, withoutLanes]
    // The series taken in turns: each host's echo as a value, and the host as run's twice more as
    // the edge takes it for a response: as text, and as a value written out.
    let series: [(host: PluginHost, echo: (PluginHost) async throws -> Void)] =
        hosts.map { ($0, callEcho) } + [(asRun, answerEcho), (asRun, valueWrittenOut)]
    progress("isolation, process: \(calls) echo calls in each of \(series.count) series on \(hosts.count) hosts, in turns of \(max(1, calls / 20))")
    for host in hosts { _ = try await measure(calls / 10) { _ in try await callEcho(host) } }
    var samples: [[Double]] = series.map { _ in [] }
    var cpu: [(host: Double, child: Double)] = series.map { _ in (0, 0) }
    let children = series.map { $0.host.isolatedProcessID("dev.tessera.example") }
    var goSamples: [Double] = []
    try await ProfilerWindow.around("echo-process") {
        for turn in 0..<20 {
            // Each turn starts with another host: in an A/A run (TESSERA_BENCH_ISOLATION_TWICE=1)
            // with a fixed order, the host that went first read 4–9 % faster than its twin.
            for i in series.indices.map({ ($0 + turn) % series.count }) {
                let (host, echo) = series[i]
                let (hostBefore, childBefore) = (processCPUNanoseconds(), children[i].map(childCPUNanoseconds) ?? 0)
                samples[i] += try await ProfilerWindow.around("echo-process-\(i)") {
                    try await timed(max(1, calls / 20)) { _ in try await echo(host) }
                }
                cpu[i].host += processCPUNanoseconds() - hostBefore
                cpu[i].child += (children[i].map(childCPUNanoseconds) ?? 0) - childBefore
            }
            if let go { goSamples += try go.roundTrips("direct", max(1, calls / 20)) }
        }
    }
    let handedToReader = (asRun: asRun.isolatedCallsHandedToReader("dev.tessera.example") ?? 0,
                          withoutPolling: withoutPolling.isolatedCallsHandedToReader("dev.tessera.example") ?? 0)
    let payoff = asRun.isolatedCallersPollingPayoff("dev.tessera.example")
    let callersPolls = payoff?.counts ?? (paid: 0, missed: 0)
    progress("isolation, process: \(calls / 10) add-note calls")
    let processWrite = try await measure(calls / 10) { try await addNote(asRun, $0) }
    let list = try await listInTurns(asRun, calls: calls / 10, principal: principal)
    for host in hosts { await host.stop() }

    return IsolationFigures(rows: [("echo", inProcessEcho, Summary(samples[0])), ("write (add-note)", inProcessWrite, processWrite)],
                            echoAsRun: Summary(samples[0]), echoOnLanesWithoutPolling: Summary(samples[1]),
                            echoWithoutLanes: Summary(samples[2]), echoAsRunAnsweredAsText: Summary(samples[3]),
                            echoAsRunValueWrittenOut: Summary(samples[4]),
                            cpuPerEcho: zip(cpu, samples).map { (host: $0.host / Double($1.count), child: $0.child / Double($1.count)) },
                            goDirectInTurns: go == nil ? nil : Summary(goSamples), handedToReader: handedToReader,
                            callersPolls: callersPolls, pollingWindowMicroseconds: BusyPolling.measured.microseconds,
                            listAsText: list.text, listValueWrittenOut: list.valueWrittenOut, listAnswerBytes: list.bytes)
}

/// The example's `list-notes` (50 notes, written by the add-note calls before it) as the edge takes
/// the answer for its response, as text and as a value written out, in alternating blocks: an echo's
/// answer is 21 bytes, too small for the difference to show.
private func listInTurns(_ host: PluginHost, calls: Int, principal: Principal) async throws
    -> (text: Summary, valueWrittenOut: Summary, bytes: Int) {
    let input = Array(#"{"limit":50}"#.utf8)
    let asText = { _ = try await host.answer("dev.tessera.example", "list-notes", json: input, as: principal).text }
    let written = { _ = OperationAnswer.value(try await host.call("dev.tessera.example", "list-notes", json: input, as: principal)).text }
    let bytes = try await host.answer("dev.tessera.example", "list-notes", json: input, as: principal).text.count
    progress("isolation, process: \(calls) list-notes calls (\(bytes) bytes) as text and as a value, in turns")
    var text: [Double] = [], value: [Double] = []
    for turn in 0..<20 {
        let block = max(1, calls / 20)
        if turn % 2 == 0 {
            text += try await timed(block) { _ in try await asText() }
            value += try await timed(block) { _ in try await written() }
        } else {
            value += try await timed(block) { _ in try await written() }
            text += try await timed(block) { _ in try await asText() }
        }
    }
    return (Summary(text), Summary(value), bytes)
}

/// This process's CPU time so far (all its threads, user and system).
private func processCPUNanoseconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return Double(t.tv_sec) * 1e9 + Double(t.tv_nsec)
}

/// A child's CPU time so far, all its threads, user and system, in nanoseconds: the process's CPU
/// clock (`clock_getcpuclockid`), read from this process. (`/proc/PID/stat` counts clock ticks of
/// 10 ms: over a block of 250 echoes, about 7 ms, that read 0 or 10 ms, and the per-echo figure moved
/// by several microseconds from run to run.)
func childCPUNanoseconds(_ pid: Int32) -> Double {
    var clock = clockid_t()
    guard clock_getcpuclockid(pid, &clock) == 0 else { return 0 }
    var t = timespec()
    guard clock_gettime(clock, &t) == 0 else { return 0 }
    return Double(t.tv_sec) * 1e9 + Double(t.tv_nsec)
}

/// A host with the example plugin alone, in `tier`, its isolation policy changed by `adjust`;
/// `variant` names the change in the progress line.
private func startHost(tier: String, variant: String, scratch: String, buildDirectory: String,
                       adjust: (inout IsolationPolicy) -> Void) async throws -> PluginHost {
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    let deployment = try writeExampleDeployment(tier: tier, buildDirectory: buildDirectory, to: scratch + "/isolation-\(tier).json")
    var options = HostOptions(dataDirectory: scratch + "/isolation-\(tier)-data", onlyPlugins: ["dev.tessera.example"])
    adjust(&options.isolation)
    let host = try PluginHost(deployment: try DeploymentReader.read(file: deployment), options: options)
    progress("isolation, \(tier)\(variant.isEmpty ? "" : ", " + variant): starting the host")
    await host.start()
    guard host.status(of: "dev.tessera.example")?.state == .active else {
        throw PluginError(.unavailable, "example plugin not active (\(tier)): \(host.status(of: "dev.tessera.example")?.reason ?? "?")")
    }
    return host
}

/// Writes a deployment of the example plugin alone, in `tier` (`inProcess` or `process`), with
/// storage and the virtual clock, on the manifests of the working directory; returns its path.
func writeExampleDeployment(tier: String, buildDirectory: String, to path: String) throws -> String {
    try Data("""
        {"name": "bench", "role": "device", "manifestDirectories": ["\(FileManager.default.currentDirectoryPath)/manifests"],
         "libraryPaths": ["\(buildDirectory)"], "providers": {"clock": {"kind": "virtual"}},
         "plugins": [{"id": "dev.tessera.example", "isolation": "\(tier)", "grants": {"storage": {}, "clock": {}}}]}
        """.utf8).write(to: URL(fileURLWithPath: path))
    return path
}

/// Warms up with a tenth of `count` calls, then times `count`.
private func measure(_ count: Int, _ call: (Int) async throws -> Void) async throws -> Summary {
    for i in 0..<max(1, count / 10) { try await call(-1 - i) }
    return Summary(try await timed(count, call))
}

/// The nanoseconds of each of `count` calls.
private func timed(_ count: Int, _ call: (Int) async throws -> Void) async throws -> [Double] {
    var samples: [Double] = []
    samples.reserveCapacity(count)
    for i in 0..<count {
        let t = monotonicNanoseconds()
        try await call(i)
        samples.append(Double(monotonicNanoseconds() - t))
    }
    return samples
}
