import Foundation
import NIOCore
import NIOPosix
import TesseraHubPostgres
import TesseraLoader
import TesseraTestFixtures

// tessera-bench: the benchmarks of the runtime foundation. Prints medians (never asserts on time).
// Run it in release: `swift build -c release && .build/release/tessera-bench [load|cli [runs]|dispatch|isolation [N]|c-abi [N]|storage|location|notifications [N]|swap|http [S]|memory|files [MiB]|sync [N]|hub [N]|hub-postgresql [N]|hub-load [devices]|travel [N [D]]|hub-files [photos] [runs]|codable [N]|all]`
// `hub-postgresql` needs a database: TESSERA_BENCH_POSTGRES=host:port/database, PGUSER (default tessera), PGPASSWORD.
// (the load benchmark needs libTesseraExample.so beside it, which `swift build` makes).

let which = CommandLine.arguments.dropFirst().first ?? "all"

// An experiment, not how the host runs: TESSERA_BENCH_NIO_EXECUTOR=1 makes NIO's event loops Swift
// concurrency's global executor for this process (before any task starts), so a request's handler
// runs on the thread that reads its socket. `tessera-bench http` with and without it compares the
// thread hops it saves with what it costs (docs/benchmarks.md, "Handlers on the event loops").
if ProcessInfo.processInfo.environment["TESSERA_BENCH_NIO_EXECUTOR"] != nil {
    print("NIO's event loops are Swift concurrency's global executor:",
          NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor())
}

// The child of the load benchmark: `tessera-bench load-child LIBRARY SCRATCH COUNT [PLUGIN-ID [BUILDS-FOLDER]]`.
if which == "load-child" {
    let a = CommandLine.arguments
    try await loadChild(library: a[2], scratch: a[3], count: Int(a[4]) ?? 10, pluginID: a.count > 5 ? a[5] : "dev.tessera.example",
                        builds: a.count > 6 ? a[6] : nil)
    exit(0)
}
if which == "c-load-child" {
    let a = CommandLine.arguments
    try cLoadChild(library: a[2], scratch: a[3], count: Int(a[4]) ?? 10)
    exit(0)
}
if which == "host-child" {
    let a = CommandLine.arguments
    try await hostChild(library: a[2], manifest: a[3], scratch: a[4], count: Int(a[5]) ?? 10)
    exit(0)
}
// Before anything starts a thread: pieces run alone under valgrind (CodableBenchmark.swift,
// StorageBenchmark.swift).
if which == "codable-only" { runAloneForValgrind(which, defaultCount: 1_000) { try codableOnly($0, count: $1) } }
if which == "storage-only" { runAloneForValgrind(which, defaultCount: 10_000) { try storageOnly($0, rows: $1) } }
if which == "codable" {
    try reportCodableBenchmark(rounds: Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 200)
    exit(0)
}
let buildDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
let scratch = NSTemporaryDirectory() + "tessera-bench-\(getpid())"
try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: scratch) }

print("tessera-bench — Swift \(pinnedSwiftVersion), \(ProcessInfo.processInfo.activeProcessorCount) cores, build \(buildDirectory)")

if which == "load" || which == "all" {
    // The small plugin (Plugins/Hello: one operation, storage, no Foundation) and the example
    // (notes, reminders, notifications, Foundation), as built and without debug info.
    // The builds of the restart series are written first: the stage trusts a build's identity
    // only once it is 2 s old, and the series before take longer than that.
    let builtBefore = Date()
    for name in ["hello", "example"] {
        try writeDistinctBuilds(of: buildDirectory + "/libTessera\(name.prefix(1).uppercased() + name.dropFirst()).so", count: 10,
                                into: scratch + "/staged-\(name)/builds", salt: UInt64(getpid()))
    }
    let anchor = try cDlopenAnchor(processes: 10, loadsPerProcess: 10, scratch: scratch + "/load-c")
    report("anchor: C dlopen+dlsym+call", anchor, unit: micros, target: "")
    // The same, linked against the hello plugin's libraries: what any library with a Swift
    // plugin's dependencies costs to load here, before any of its code runs.
    let dependencies = try cDlopenAnchor(withDependenciesOf: buildDirectory + "/libTesseraHello.so", processes: 10, loadsPerProcess: 10,
                                         scratch: scratch + "/load-c-deps")
    report("anchor: the same, with hello's libraries", dependencies, unit: micros, target: "")
    print(String(format: "    ÷ the C anchor's median: %.1f×", dependencies.median / anchor.median))
    let subjects = [("hello", "dev.tessera.hello", false), ("example", "dev.tessera.example", false), ("example", "dev.tessera.example", true)]
    for (name, id, stripped) in subjects {
        let library = buildDirectory + "/libTessera\(name.prefix(1).uppercased() + name.dropFirst()).so"
        let (result, bytes) = try loadBenchmark(library: library, pluginID: id, processes: 10, loadsPerProcess: 10,
                                                scratch: scratch + "/load-\(name)" + (stripped ? "-stripped" : ""), stripped: stripped)
        print("load of the \(name) plugin, \(stripped ? "debug info stripped" : "as built"), \(bytes / 1024) KiB, 10 processes × 10 plugins:")
        printLoad(result, anchor: anchor, target: name == "hello" ? 5 : 6)
    }
    // Never measured as a first staging by mistake: the settle time is waited out if the runs
    // above were quicker than it.
    let settle = 2.1 - Date().timeIntervalSince(builtBefore)
    if settle > 0 { usleep(UInt32(settle * 1_000_000)) }
    for (name, id) in [("hello", "dev.tessera.hello"), ("example", "dev.tessera.example")] {
        let library = buildDirectory + "/libTessera\(name.prefix(1).uppercased() + name.dropFirst()).so"
        let result = try stagedLoadBenchmark(library: library, pluginID: id, builds: scratch + "/staged-\(name)/builds",
                                             processes: 10, scratch: scratch + "/staged-\(name)")
        print("load of the \(name) plugin, staged before (every start after a build's first), 10 processes × 10 plugins:")
        printLoad(result, anchor: anchor, target: name == "hello" ? 5 : 6)
        if name == "hello" {
            // What a load that takes its build from the stage waits for: the database, opened
            // alongside the gates. Its floor is SQLite's own open of the same file.
            let open = try storageOpenBenchmark(path: scratch + "/staged-hello/storage.sqlite", pluginID: id, rounds: 100)
            report("  its database, opened alone", open.host, unit: micros, target: "")
            report("    raw SQLite, same file", open.raw, unit: micros, target: "")
            print(String(format: "    ÷ the anchor's median: %.2f×", open.host.median / open.raw.median))
        }
    }
    print("load through the host (PluginHost.start(): manifest, deployment checks, gates, storage opened alongside, start):")
    let root = FileManager.default.currentDirectoryPath
    for (name, manifest) in [("hello", root + "/Plugins/Hello/manifest.json"), ("example", root + "/manifests/example.json")] {
        let library = buildDirectory + "/libTessera\(name.prefix(1).uppercased() + name.dropFirst()).so"
        let host = try hostStartBenchmark(library: library, manifest: manifest, processes: 10, loadsPerProcess: 10, scratch: scratch + "/host-\(name)")
        report("  the \(name) plugin, rebuilt, restarted", host, unit: micros, target: "")
        print(String(format: "    ÷ the C anchor's median: %.1f×", host.median / anchor.median))
        // 40 processes: the median of 10 moved from 600 to 780 µs between runs of one build.
        let restart = try hostRestartBenchmark(library: library, manifest: manifest, processes: 40, scratch: scratch + "/restart-\(name)")
        report("  the \(name) plugin, unchanged, restarted", restart, unit: micros, target: "")
        print(String(format: "    ÷ the C anchor's median: %.1f×; ÷ the anchor with hello's libraries: %.1f×",
                     restart.median / anchor.median, restart.median / dependencies.median))
        let again = try hostRestartInProcessBenchmark(library: library, manifest: manifest, starts: 40, scratch: scratch + "/again-\(name)")
        // Started again in the same process, build and manifest unchanged: the manifest read,
        // checked and compiled anew (as before the manifest cache), then taken from the cache.
        report("  \(name), again, manifest read", again.read, unit: micros, target: "")
        report("  \(name), again, manifest cached", again.cached, unit: micros, target: "")
        print(String(format: "    the cache saves %.1f µs of %.1f (%.0f %%)", (again.read.median - again.cached.median) / 1000,
                     again.read.median / 1000, (1 - again.cached.median / again.read.median) * 100))
    }
}

// Only the host starts (`tessera-bench host-start`): the load benchmark's last part.
if which == "host-start" {
    let root = FileManager.default.currentDirectoryPath
    for (name, manifest) in [("hello", root + "/Plugins/Hello/manifest.json"), ("example", root + "/manifests/example.json")] {
        let library = buildDirectory + "/libTessera\(name.prefix(1).uppercased() + name.dropFirst()).so"
        let again = try hostRestartInProcessBenchmark(library: library, manifest: manifest, starts: 40, scratch: scratch + "/again-\(name)")
        // Started again in the same process, build and manifest unchanged: the manifest read,
        // checked and compiled anew (as before the manifest cache), then taken from the cache.
        report("  \(name), again, manifest read", again.read, unit: micros, target: "")
        report("  \(name), again, manifest cached", again.cached, unit: micros, target: "")
        print(String(format: "    the cache saves %.1f µs of %.1f (%.0f %%)", (again.read.median - again.cached.median) / 1000,
                     again.read.median / 1000, (1 - again.cached.median / again.read.median) * 100))
    }
}

if which == "cli" || which == "all" {
    let runs = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 20
    let r = try cliBenchmark(buildDirectory: buildDirectory, scratch: scratch + "/cli", runs: runs)
    let ms = { (ns: Double) in String(format: "%.1f ms", ns / 1e6) }
    print("cli: `tessera call dev.tessera.example list-notes` as a whole process, \(runs) runs of each in turns")
    report("  anchor: tessera --version", r.version, unit: ms, target: "")
    report("  call, the shipped manifests", r.callAllManifests, unit: ms, target: "")
    print(String(format: "    ÷ the anchor's median: %.2f×", r.callAllManifests.median / r.version.median))
    report("  call, only the example's manifest", r.callOneManifest, unit: ms, target: "")
    print(String(format: "    the other manifests in the folder add %.1f ms", (r.callAllManifests.median - r.callOneManifest.median) / 1e6))
}

/// A deployment of the example plugin alone (storage, the virtual clock), as the dispatch, edge and
/// HTTP benchmarks serve it.
func writeExampleDeployment(_ path: String, libraries: String) throws {
    try Data("""
        {"name": "bench", "role": "device", "manifestDirectories": ["\(FileManager.default.currentDirectoryPath)/manifests"],
         "libraryPaths": ["\(libraries)"], "providers": {"clock": {"kind": "virtual"}},
         "plugins": [{"id": "dev.tessera.example", "grants": {"storage": {}, "clock": {}}}]}
        """.utf8).write(to: URL(fileURLWithPath: path))
}

if which == "dispatch" || which == "all" {
    let deployment = scratch + "/deployment.json"
    try writeExampleDeployment(deployment, libraries: buildDirectory)
    let result = try await dispatchBenchmark(deploymentFile: deployment, scratch: scratch, calls: 20_000)
    report("dispatch: echo, \(result.inputBytes)-byte input", result.summary, unit: micros, target: "≤ 20 µs")
}

if which == "c-abi" || which == "all" {
    // Plugins in any language (docs/c-abi.md): the C and Rust plugins beside the Swift example.
    print("c-abi: echo through the Swift example, the C plugin and the Rust plugin, in each tier, same run; then each library's load")
    let calls = which == "c-abi" ? Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 20_000 : 20_000
    let figures = try await cABIBenchmark(buildDirectory: buildDirectory, scratch: scratch + "/c-abi", calls: calls)
    for tier in ["inProcess", "process"] {
        let rows = figures.echo.filter { $0.tier == tier }
        for row in rows { report("  echo, \(row.plugin), \(tier)", row.summary, unit: micros, target: "") }
        if let swift = rows.first?.summary.median {
            print("  \(tier): median ÷ the Swift example's: " + rows.dropFirst().map { String(format: "%@ %.2f", $0.plugin, $0.summary.median / swift) }.joined(separator: ", "))
        }
    }
    for row in figures.load { report("  load (gates 1-3), \(row.plugin)", row.summary, unit: micros, target: "") }
}

if which == "isolation" || which == "all" {
    // The process tier against in-process, same plugin, same run (docs/isolation.md).
    print("isolation: the example plugin in the host's process and in the process tier (tessera-plugin-runner), same run")
    let calls = which == "isolation" ? Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 20_000 : 20_000
    let sockets = try socketRoundTripAnchors(scratch: scratch + "/socket-anchor", roundTrips: calls)
    report("  anchor: C socket, direct", sockets.direct, unit: micros, target: "")
    report("  anchor: C socket, hand-offs", sockets.handOff, unit: micros, target: "")
    report("  anchor: C socket, polling", sockets.polling, unit: micros, target: "")
    let go = try GoAnchor.build(scratch: scratch + "/go-anchor")
    let goAnchors = try go.map { (direct: Summary(try $0.roundTrips("direct", calls)), rpc: Summary(try $0.roundTrips("rpc", calls))) }
    if let goAnchors {
        report("  anchor: Go JSON, direct", goAnchors.direct, unit: micros, target: "")
        report("  anchor: Go JSON, net/rpc", goAnchors.rpc, unit: micros, target: "")
    } else {
        print("  anchor: Go JSON: skipped, no `go` on the PATH (scripts/setup.sh bench installs it)")
    }
    // The JSON work of an echo's two messages (the call and its answer), each written and read once,
    // and the input decoded and the answer encoded by the handler between them.
    let messageWork = try await messageWorkBenchmark(rounds: calls * 5)
    report("  echo's messages, whole trees", messageWork.tree, unit: micros, target: "")
    report("  echo's messages, envelope bytes", messageWork.bytes, unit: micros, target: "")
    report("  echo's messages, input as text", messageWork.text, unit: micros, target: "")
    let figures = try await isolationBenchmark(buildDirectory: buildDirectory, scratch: scratch, calls: calls, go: go)
    for row in figures.rows {
        report("  \(row.name), in-process", row.inProcess, unit: micros, target: "")
        report("  \(row.name), process tier", row.process, unit: micros, target: row.name == "echo" ? "≤ 50 µs" : "")
        print(String(format: "  \(row.name): process tier / in-process median ratio %.1f", row.process.median / row.inProcess.median))
        if row.name == "echo" {
            print(String(format: "  echo: process tier / C hand-off anchor median ratio %.1f", row.process.median / sockets.handOff.median))
            print(String(format: "  echo: process tier / C polling anchor median ratio %.1f", row.process.median / sockets.polling.median))
            if let goAnchors {
                print(String(format: "  echo: process tier / Go JSON direct median ratio %.2f (target ≤ 1.2)", row.process.median / goAnchors.direct.median))
            }
            if let inTurns = figures.goDirectInTurns {
                report("  anchor: Go JSON, direct, in turns with the hosts", inTurns, unit: micros, target: "")
                print(String(format: "  echo: as run / Go JSON direct in the same turns, median ratio %.2f (target ≤ 1.2)",
                             figures.echoAsRun.median / inTurns.median))
            }
            // The same echo with parts of its path turned off, taken in turns with the one above.
            report("  echo, lanes without polling", figures.echoOnLanesWithoutPolling, unit: micros, target: "")
            report("  echo, process tier, no lanes", figures.echoWithoutLanes, unit: micros, target: "")
            print(String(format: "  echo: as run / lanes without polling / no lanes, median ratios %.2f / %.2f / 1",
                         figures.echoAsRun.median / figures.echoWithoutLanes.median,
                         figures.echoOnLanesWithoutPolling.median / figures.echoWithoutLanes.median))
            // The as-run host twice more, as the edge takes an answer for its response: the child's
            // text handed on (now), and the answer read into a value and written out (before).
            report("  echo, as the edge takes it: text", figures.echoAsRunAnsweredAsText, unit: micros, target: "")
            report("  echo, as the edge took it: value, written", figures.echoAsRunValueWrittenOut, unit: micros, target: "")
            print(String(format: "  echo for a response: text / value written out, the same host in the same turns, median ratio %.2f",
                         figures.echoAsRunAnsweredAsText.median / figures.echoAsRunValueWrittenOut.median))
            if let inTurns = figures.goDirectInTurns {
                print(String(format: "  echo for a response, as text / Go JSON direct in the same turns, median ratio %.2f (target ≤ 1.2)",
                             figures.echoAsRunAnsweredAsText.median / inTurns.median))
            }
            report("  50 notes listed, as text", figures.listAsText, unit: micros, target: "")
            report("  50 notes listed, value, written", figures.listValueWrittenOut, unit: micros, target: "")
            print(String(format: "  50 notes (%d B) for a response: text / value written out, in turns, median ratio %.2f",
                         figures.listAnswerBytes, figures.listAsText.median / figures.listValueWrittenOut.median))
            // What polling costs: the CPU each echo took, host process and child, in the same turns.
            for (name, cpu) in zip(["as run", "lanes without polling", "no lanes", "as run, text for a response", "as run, value written out"], figures.cpuPerEcho) {
                print(String(format: "  echo CPU per call, %@: host %.1f µs + child %.1f µs", name, cpu.host / 1_000, cpu.child / 1_000))
            }
            print("  echoes that outlasted the brief wait on their lane (handed to the reader thread): as run \(figures.handedToReader.asRun), "
                  + "lanes without polling \(figures.handedToReader.withoutPolling), of \(figures.echoAsRun.count + calls / 10) each")
            print("  the as-run host's polls for an echo's answer: \(figures.callersPolls.paid) paid, \(figures.callersPolls.missed) ran out")
            print("  the host's polling window: \(figures.pollingWindowMicroseconds) µs (a wake-up's cost here, measured before the hosts started)")
        }
    }
    let crashes = try await crashRecoveryBenchmark(buildDirectory: buildDirectory, scratch: scratch, rounds: 20)
    // SIGKILL to the child, until a new child answers; the backoff is skipped on the virtual clock.
    report("  crash to serving again", crashes.restart, unit: micros, target: "")
    print("  the host's open descriptors: \(crashes.descriptorsAfterFirst) after the first restart, \(crashes.descriptorsAfterLast) after the last")
}

if which == "storage" || which == "all" {
    for batch in [1, 100] {
        // 31 rounds (each variant writes 5,000 rows in about 50 ms): each batch's fsync varies more
        // between the variants of one round than the record API's own layer costs, and five rounds
        // left the ratio moving by ±0.1 from run to run.
        let result = try await storageBenchmark(rows: batch == 1 ? 200 : 5_000, batchSize: batch, rounds: 31)
        let ratio = result.recordAPIRowsPerSecondMedian / result.rawRowsPerSecondMedian
        print(String(format: "storage: batch %3d, synchronous=FULL  record API %.0f rows/s, raw sqlite3_step %.0f rows/s, ratio %.2f  target ≥ 0.80",
                     batch, result.recordAPIRowsPerSecondMedian, result.rawRowsPerSecondMedian, ratio))
        // Where the gap goes: raw → raw with the log rows is the log's share, the rest the record API's layer.
        let perRow = { (rate: Double) in 1e6 / rate }
        print(String(format: "  gap per row %.2f µs: the change log %.2f µs (raw + log %.0f rows/s), the record API's own layer %.2f µs",
                     perRow(result.recordAPIRowsPerSecondMedian) - perRow(result.rawRowsPerSecondMedian),
                     perRow(result.rawWithLogRowsPerSecondMedian) - perRow(result.rawRowsPerSecondMedian),
                     result.rawWithLogRowsPerSecondMedian,
                     perRow(result.recordAPIRowsPerSecondMedian) - perRow(result.rawWithLogRowsPerSecondMedian)))
        // The issue's target: the record API against raw SQLite that writes the same log row, and
        // against the same with the record API's own statement for a put (an upsert).
        print(String(format: "  record API ÷ raw + log %.2f  target ≥ 0.95; ÷ raw + log with the put's upsert (%.0f rows/s) %.2f",
                     result.recordAPIRowsPerSecondMedian / result.rawWithLogRowsPerSecondMedian,
                     result.rawUpsertWithLogRowsPerSecondMedian,
                     result.recordAPIRowsPerSecondMedian / result.rawUpsertWithLogRowsPerSecondMedian))
        // The same with the hop to a write queue in the anchor too: what is left is the record API's
        // own layer (validation, Swift values, the log's encoding), on both sides of the hop.
        print(String(format: "  record API ÷ raw + log with the upsert, each batch on a queue and awaited as the record API does (%.0f rows/s) %.2f  (the hop alone: %.2f µs per row)",
                     result.rawOnQueueRowsPerSecondMedian,
                     result.recordAPIRowsPerSecondMedian / result.rawOnQueueRowsPerSecondMedian,
                     perRow(result.rawOnQueueRowsPerSecondMedian) - perRow(result.rawUpsertWithLogRowsPerSecondMedian)))
        // CPU rather than wall time: the fsync's wait is not in it, so it moves far less between runs.
        let cpu = result.cpuMicrosPerRow
        print(String(format: "  CPU per row (user + system, all threads): record API %.2f µs (on this thread %.2f); raw + log with the upsert %.2f, the same on a queue %.2f; record API ÷ the anchor on a queue %.2f",
                     cpu.record, cpu.blocking, cpu.rawUpsertWithLog, cpu.rawOnQueue, cpu.record / cpu.rawOnQueue))
        print(String(format: "  record API per row %.2f µs (on this thread: %.2f; the write queue's hop %.2f): validation %.2f, the rows %.2f, the log %.2f, BEGIN/COMMIT/fsync %.2f; raw sqlite3_step %.2f",
                     perRow(result.recordAPIRowsPerSecondMedian), perRow(result.blockingRowsPerSecondMedian),
                     perRow(result.recordAPIRowsPerSecondMedian) - perRow(result.blockingRowsPerSecondMedian),
                     result.validateMicrosPerRow, result.rowsMicrosPerRow, result.logMicrosPerRow, result.commitMicrosPerRow,
                     perRow(result.rawRowsPerSecondMedian)))
    }
}

if which == "location" || which == "all" {
    let result = await locationBenchmark(fixes: 200_000, batchSize: 100, rounds: 5)
    let feed = Summary(result.feed), alone = Summary(result.geodesyOnly)
    print(String(format: "location: 200000 fixes in batches of 100 through LocationFeed.ingest, distance to a 500-point route: median %.0f fixes/s (p10 %.0f, p90 %.0f, n=%d)  target ≥ 50000",
                 feed.median, feed.p10, feed.p90, feed.count))
    print(String(format: "location: the same distance queries alone: median %.0f fixes/s", alone.median))
}

if which == "notifications" || which == "all" {
    let count = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 1_000_000
    let r = try await notificationsBenchmark(pending: count, scratch: scratch + "/notifications")
    print(String(format: "notifications: %d pending, filled at %.0f/s (transactions of 10,000)", r.pending, r.fillPerSecond))
    print(String(format: "  memory per pending: %.1f bytes resident, %.0f bytes on disk", r.residentBytesPerPending, r.databaseBytesPerPending))
    report("  schedule (one durable call each)", r.schedulePerSecond, unit: { String(format: "%.0f/s", $0) }, target: "")
    report("  cancel (one durable call each)", r.cancelPerSecond, unit: { String(format: "%.0f/s", $0) }, target: "")
    report("  lateness on the system clock", r.lateness, unit: { String(format: "%.2f ms", $0 / 1e6) }, target: "≤ 5 ms median")
}

if which == "swap" || which == "all" {
    let r = try await swapBenchmark(library: buildDirectory + "/libTesseraExample.so",
                                    manifest: FileManager.default.currentDirectoryPath + "/manifests/example.json",
                                    scratch: scratch + "/swap", swaps: 30)
    print("hot swap of the example plugin, 30 swaps to distinct builds under 4 callers: \(r.calls) calls, \(r.failedCalls) failed")
    report("  admission pause per swap", r.pause, unit: { String(format: "%.2f ms", $0 / 1e6) }, target: "≤ 10 ms median")
    print(String(format: "  memory per retired generation: %.0f KiB resident (library file %d KiB)", r.residentBytesPerRetired / 1024, r.libraryBytes / 1024))
}

if which == "edge" || which == "all" {
    let calls = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 20_000
    let side = CommandLine.arguments.dropFirst(3).first.flatMap(EdgeBenchmarkSide.init(rawValue:)) ?? .both
    let deployment = scratch + "/edge-deployment.json"
    try writeExampleDeployment(deployment, libraries: buildDirectory)
    let r = try await edgeInProcessBenchmark(deploymentFile: deployment, scratch: scratch, calls: calls, side: side)
    print("edge, in process (no sockets): the echo of the example plugin through the edge's responder (its log discarded, then at info as `tessera serve` writes it, to a pipe another thread reads) and through the kept-work route's, \(r.edge.count) calls each, in turns")
    if side == .both || side == .edge { report("  edge", r.edge, unit: micros, target: "") }
    if side == .both || side == .served { report("  edge as served (access line)", r.served, unit: micros, target: "") }
    if side == .both || side == .kept { report("  kept work", r.kept, unit: micros, target: "") }
    if side == .both {
        print(String(format: "  kept ÷ edge, median time %.2f, CPU %.2f (%.1f against %.1f µs per call)  target ≥ 0.95; the runtime's share above the kept work %.1f µs per call",
                     r.kept.median / r.edge.median, r.keptCPU / r.edgeCPU, r.edgeCPU, r.keptCPU, (r.edge.median - r.kept.median) / 1000))
        print(String(format: "  kept ÷ edge as served, median time %.2f, CPU %.2f (%.1f µs per call); the access line %.1f µs per call (median), %.1f µs CPU; %d bytes of log read",
                     r.kept.median / r.served.median, r.keptCPU / r.servedCPU, r.servedCPU, (r.served.median - r.edge.median) / 1000,
                     r.servedCPU - r.edgeCPU, r.logBytes))
    } else {
        print(String(format: "  CPU per call: %.1f µs", side == .edge ? r.edgeCPU : side == .served ? r.servedCPU : r.keptCPU))
    }
}

if which == "http" || which == "all" {
    let seconds = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 5
    let deployment = scratch + "/http-deployment.json"
    try writeExampleDeployment(deployment, libraries: buildDirectory)
    print("http: wrk, 2 threads, \(seconds) s per run, median of 3 runs in turns; echo of the example plugin through the edge vs a plain Hummingbird route, same process")
    for r in try await httpBenchmark(deploymentFile: deployment, scratch: scratch, seconds: seconds) {
        let ratio = r.edge.requestsPerSecond / r.plain.requestsPerSecond
        let rate = { (x: Double) in String(format: "%.0f req/s", x) }
        print("  \(r.connections) connections: edge \(rate(r.edge.requestsPerSecond)) (p50 \(r.edge.p50), p99 \(r.edge.p99)); "
              + "plain \(rate(r.plain.requestsPerSecond)) (p50 \(r.plain.p50), p99 \(r.plain.p99)); "
              + String(format: "ratio %.2f  target ≥ 0.85", ratio))
        print(String(format: "    server CPU per request: edge %.1f µs, plain %.1f µs; plain ÷ edge %.2f (steadier than req/s when the machine is shared)",
                     r.edge.cpuMicrosPerRequest, r.plain.cpuMicrosPerRequest, r.plain.cpuMicrosPerRequest / r.edge.cpuMicrosPerRequest))
        print(String(format: "    context switches per request: edge %.2f, plain %.2f", r.edge.contextSwitchesPerRequest, r.plain.contextSwitchesPerRequest))
        print("    the edge with every request through the router: \(rate(r.routed.requestsPerSecond)), "
              + String(format: "server CPU per request %.1f µs; shortcut ÷ router, req/s %.2f, CPU %.2f", r.routed.cpuMicrosPerRequest,
                       r.edge.requestsPerSecond / r.routed.requestsPerSecond, r.edge.cpuMicrosPerRequest / r.routed.cpuMicrosPerRequest))
        print("    the edge on Hummingbird's plain HTTP/1 server (accepted on the pool, no endpoint answered on the loop): \(rate(r.pooled.requestsPerSecond)), "
              + String(format: "server CPU per request %.1f µs, context switches %.2f; as served ÷ this, req/s %.2f, CPU %.2f",
                       r.pooled.cpuMicrosPerRequest, r.pooled.contextSwitchesPerRequest,
                       r.edge.requestsPerSecond / r.pooled.requestsPerSecond, r.edge.cpuMicrosPerRequest / r.pooled.cpuMicrosPerRequest))
        print("    the plain route doing the kept work (token's SHA-256, body parsed, validated, decoded, answer encoded; no runtime): \(rate(r.kept.requestsPerSecond)), "
              + String(format: "server CPU per request %.1f µs; ÷ plain, req/s %.2f, CPU %.2f: the ceiling of the edge's ratio",
                       r.kept.cpuMicrosPerRequest, r.kept.requestsPerSecond / r.plain.requestsPerSecond,
                       r.plain.cpuMicrosPerRequest / r.kept.cpuMicrosPerRequest))
        print(String(format: "    edge ÷ the kept work: req/s %.2f  target ≥ 0.95; CPU per request, kept ÷ edge %.2f",
                     r.edge.requestsPerSecond / r.kept.requestsPerSecond, r.kept.cpuMicrosPerRequest / r.edge.cpuMicrosPerRequest))
        if r.edge.non2xx + r.routed.non2xx + r.pooled.non2xx + r.plain.non2xx + r.kept.non2xx > 0 {
            print("    non-2xx answers: edge \(r.edge.non2xx), through the router \(r.routed.non2xx), on the pool \(r.pooled.non2xx), "
                  + "plain \(r.plain.non2xx), kept work \(r.kept.non2xx) (the figures above are not valid)")
        }
    }
}

if which == "memory" || which == "all" {
    // What `tessera serve` holds with the shipped modules, beside a bare Hummingbird server.
    let r = try await serveMemoryBenchmark(buildDirectory: buildDirectory, scratch: scratch)
    let mb = { (bytes: Int) in String(format: "%.1f MB", Double(bytes) / 1_000_000) }
    print("memory: `tessera serve` with \(r.modules.count) modules (\(r.modules.joined(separator: ", "))) and a bare Hummingbird server, each its own process, after 200 requests each")
    for (name, m) in [("tessera serve", r.serve), ("bare Hummingbird", r.plain)] {
        print("  \(name.padding(toLength: 17, withPad: " ", startingAt: 0)) resident \(mb(m.rss)), proportional \(mb(m.pss)), anonymous \(mb(m.anonymous)), written (private dirty) \(mb(m.privateDirty))"
              + (name == "tessera serve" ? "  target ≤ 40 MB resident" : ""))
        print("    largest: " + m.byMapping.prefix(8).map { "\($0.name) \(mb($0.rss))" }.joined(separator: ", "))
    }
    print(String(format: "  tessera serve ÷ bare Hummingbird: resident %.2f, proportional %.2f, anonymous %.2f",
                 Double(r.serve.rss) / Double(r.plain.rss), Double(r.serve.pss) / Double(r.plain.pss), Double(r.serve.anonymous) / Double(r.plain.anonymous)))
    print("  tessera serve, restarted on the same data folder (its manifests checked before, its databases there): resident \(mb(r.restarted.rss)), "
          + "anonymous \(mb(r.restarted.anonymous))" + String(format: "; ÷ bare Hummingbird, resident %.2f", Double(r.restarted.rss) / Double(r.plain.rss)))
}

if which == "files" || which == "all" {
    let megabytes = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 50
    let r = try await filesBenchmark(scratch: scratch, megabytes: megabytes, runs: 5)
    let rate = { (seconds: Double) in String(format: "%.0f MiB/s", Double(r.bytes) / 1_048_576 / seconds) }
    print("files: one \(megabytes) MiB JPEG with curl over loopback, median of 5 in turns; upload/download operations vs Hummingbird alone (a route dropping the body, its static file middleware), same process")
    print("  upload:   edge \(rate(r.upload)), plain \(rate(r.plainUpload)); " + String(format: "ratio %.2f (the edge also hashes, sniffs and fsyncs)", r.plainUpload / r.upload))
    print("  download: edge \(rate(r.download)), static \(rate(r.staticDownload)); " + String(format: "ratio %.2f", r.staticDownload / r.download))
    print(String(format: "  resident memory: %.1f MiB before, %.1f MiB peak during the runs (the file is %d MiB)",
                 Double(r.residentBefore) / 1_048_576, Double(r.residentPeak) / 1_048_576, megabytes))
}

if which == "sync" || which == "all" {
    // One size or several (`sync 1000 10000 100000 1000000`): several also print how flat the
    // per-change cost stays as the log grows.
    let sizes = CommandLine.arguments.dropFirst(2).compactMap { Int($0) }
    /// Per size, µs per change: each workload's wall-clock and CPU time, and its SQLite anchor's.
    var perChange: [(cells: Int, figures: [String: Double])] = []
    for cells in sizes.isEmpty ? [100_000] : sizes {
        // TESSERA_BENCH_SYNC_ROUNDS overrides the rounds (1 for a profile of one transfer).
        let rounds = ProcessInfo.processInfo.environment["TESSERA_BENCH_SYNC_ROUNDS"].flatMap { Int($0) }
        // A small size's transfer is a few milliseconds, one or two commits: one slow fsync moves its
        // median, so it gets more rounds.
        let r = try syncBenchmark(cells: cells, rounds: rounds ?? (cells > 100_000 ? 1 : cells > 10_000 ? 3 : 9), scratch: scratch + "/sync")
        printSyncResult(r)
        var figures: [String: Double] = [:]
        for workload in ["inserts", "patches"] {
            guard let changes = r.sizes[workload]?.changes else { continue }
            figures[workload] = r.transfer(workload) / Double(changes) * 1e6
            figures[workload + ", CPU time"] = Summary(r.cpuSeconds[workload] ?? []).median / Double(changes) * 1e6
        }
        // The anchors, same run: SQLite alone running the apply's statements for the same workloads.
        let floor = try syncSQLiteFloor(cells: cells, path: scratch + "/sync/floor.sqlite")
        figures["the SQLite anchor, inserts"] = floor.wall * 1e6
        figures["the SQLite anchor, inserts, CPU time"] = floor.cpu * 1e6
        let inserts = Double(r.sizes["inserts"]?.changes ?? 1)
        print(String(format: "  anchor: SQLite alone, the apply's statements for the same inserts (C API): %.1f µs per change (CPU time %.1f µs); the inserts' A → B ÷ it %.2f (CPU time %.2f)",
                     floor.wall * 1e6, floor.cpu * 1e6, r.transfer("inserts") / inserts / floor.wall,
                     Summary(r.cpuSeconds["inserts"] ?? []).median / inserts / floor.cpu))
        if let patches = r.sizes["patches"]?.changes {
            let patchFloor = try syncSQLitePatchFloor(cells: cells, path: scratch + "/sync/floor.sqlite")
            figures["the SQLite anchor, patches"] = patchFloor.wall * 1e6
            figures["the SQLite anchor, patches, CPU time"] = patchFloor.cpu * 1e6
            print(String(format: "  anchor: SQLite alone, the apply's statements for the same patches (C API): %.1f µs per change (CPU time %.1f µs); the patches' A → B ÷ it %.2f (CPU time %.2f)",
                         patchFloor.wall * 1e6, patchFloor.cpu * 1e6, r.transfer("patches") / Double(patches) / patchFloor.wall,
                         Summary(r.cpuSeconds["patches"] ?? []).median / Double(patches) / patchFloor.cpu))
            let tableFloor = try syncSQLiteTableFloor(cells: cells, path: scratch + "/sync/floor.sqlite")
            figures["the plugin's table alone, patches"] = tableFloor.wall * 1e6
            figures["the plugin's table alone, patches, CPU time"] = tableFloor.cpu * 1e6
            print(String(format: "  floor: the plugin's table alone, each touched row updated once a page (no sync metadata, no log): %.1f µs per change (CPU time %.1f µs)",
                         tableFloor.wall * 1e6, tableFloor.cpu * 1e6))
        }
        perChange.append((cells, figures))
    }
    if perChange.count > 1 {
        for workload in ["inserts", "inserts, CPU time", "the SQLite anchor, inserts", "the SQLite anchor, inserts, CPU time",
                         "patches", "patches, CPU time", "the SQLite anchor, patches", "the SQLite anchor, patches, CPU time",
                         "the plugin's table alone, patches", "the plugin's table alone, patches, CPU time"] {
            let rows = perChange.compactMap { row in row.figures[workload].map { (row.cells, $0) } }
            guard rows.count > 1 else { continue }
            let listed = rows.map { String(format: "%d: %.1f µs", $0.0, $0.1) }.joined(separator: ", ")
            let values = rows.map(\.1)
            print(String(format: "sync, %@, A → B per change by cell changes: %@; largest ÷ smallest %.2f  target ≤ 1.5",
                         workload, listed, (values.max() ?? 0) / (values.min() ?? 1)))
        }
    }
}

if which == "travel" {
    // Not in `all`: it runs on the system clock, with a 15 s deadline per PIN-timeout sample.
    let samples = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 40
    let deadlines = Int(CommandLine.arguments.dropFirst(3).first ?? "") ?? 5
    let latencies = try await travelBenchmark(samples: samples, deadlines: deadlines, scratch: scratch + "/travel", buildDirectory: buildDirectory)
    print("travel: safe-travel alert, deadline → the guardian's inbox through a hub on loopback (\(samples) alert-now + \(deadlines) PIN timeouts)")
    print(String(format: "  p50 %.3f s, p95 %.3f s, p99 %.3f s, max %.3f s (n=%d)  target p50 ≤ 5 s, p95 ≤ 10 s, p99 ≤ 15 s (N4)",
                 quantile(latencies, 0.5), quantile(latencies, 0.95), quantile(latencies, 0.99), latencies.max() ?? .nan, latencies.count))
}

if which == "hub-files" || which == "all" {
    let photos = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 1000
    let runs = Int(CommandLine.arguments.dropFirst(3).first ?? "") ?? 3
    let r = try await hubFilesBenchmark(photos: photos, kilobytes: 200, runs: runs, scratch: scratch + "/hub-files")
    print("hub-files: \(photos) photos of 200 KiB device A → hub → device B over HTTP on loopback; A's round uploads then pushes, B's round pulls the records, then B fetches every photo (eager) and checks its SHA-256; median of \(runs) runs, a fresh hub each")
    print(String(format: "  A → hub %.2f s (%.1f MiB/s); hub → B %.2f s (%.1f MiB/s); both %.2f s (%.1f MiB/s), %.1f ms per photo",
                 r.up, r.megabytesPerSecond(r.up), r.down, r.megabytesPerSecond(r.down), r.total, r.megabytesPerSecond(r.total),
                 r.total / Double(photos) * 1000))
}

if which == "hub-load" {
    // Many devices syncing through real hubs (HubLoadBenchmark.swift): `hub-load [devices]`, 1,000 by default.
    let largest = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 1_000
    let sizes = Array(Set([10, 100, 1_000].filter { $0 < largest } + [largest])).sorted()
    let tessera = buildDirectory + "/tessera"
    print("hub-load: \(sizes.map(String.init).joined(separator: ", ")) devices of 1-3 people each through tessera serve hubs on loopback; each device writes a row (one push), its person's other devices pull it; as many people at once at every size (at most \(peopleAtOnce), no more than the smallest size has)")
    let server = try await PostgresTestServer.shared()
    var rows: [HubLoadRow] = []
    for setup in ["sqlite", "postgresql-1", "postgresql-2"] {
        let hubs = setup == "sqlite" ? try HubProcesses.sqlite(tessera: tessera, scratch: scratch + "/hub-load")
            : try await HubProcesses.postgresql(tessera: tessera, scratch: scratch + "/hub-load", server: server, replicas: setup == "postgresql-1" ? 1 : 2)
        for row in try await hubLoadRuns(hubs: hubs, sizes: sizes, largest: largest, scratch: scratch + "/hub-load/\(setup)-devices") {
            rows.append(row)
            print(String(format: "  %@, %4d devices (%3d people, %d at once): %6d changes in %5.1f s = %6.0f changes/s; push to pull p50 %6.1f ms, p99 %6.1f ms (less the devices' own work: %5.1f, %5.1f); CPU per change: hubs %5.0f µs%@, devices %.0f µs; cores in use %.2f of %d",
                         row.hubs, row.devices, row.people, row.atOnce, row.changes, row.seconds, row.changesPerSecond, row.latency.median / 1e6,
                         row.latency.p99 / 1e6, row.hubLatency.median / 1e6, row.hubLatency.p99 / 1e6, row.hubCPUPerChange / 1e3,
                         row.postgresCPUPerChange.map { String(format: ", PostgreSQL %.0f µs", $0 / 1e3) } ?? "",
                         row.devicesCPUPerChange / 1e3, row.coresInUse, ProcessInfo.processInfo.activeProcessorCount))
        }
    }
    // The anchor in the same run: bare PostgreSQL inserts of as many rows, a push's worth to a transaction.
    let largestPostgres = rows.filter { $0.hubs.hasPrefix("PostgreSQL") }.map(\.changes).max() ?? 10_000
    let bare = PostgresHubDatabase(host: server.host, port: server.port, user: server.user, password: server.password,
                                   database: try await server.createDatabase(), tls: .disable)
    let bareRate = try await barePostgresInserts(database: bare, rows: largestPostgres, perTransaction: 6, atOnce: peopleAtOnce)
    bare.shutdown()
    print(String(format: "  anchor: bare PostgreSQL, %d rows in transactions of 6, %d at once: %.0f rows/s", largestPostgres, peopleAtOnce, bareRate))
    for setup in Set(rows.map(\.hubs)).sorted() {
        let runs = rows.filter { $0.hubs == setup }
        guard let first = runs.first, let last = runs.last else { continue }
        print(String(format: "  %@: p99 at %d devices / at %d devices %.2f (target < 2; less the devices' own work %.2f); changes/s at %d devices ÷ bare PostgreSQL %.2f",
                     setup, last.devices, first.devices, last.latency.p99 / first.latency.p99, last.hubLatency.p99 / first.hubLatency.p99,
                     last.devices, last.changesPerSecond / bareRate))
    }
    if let one = rows.last(where: { $0.hubs == "PostgreSQL, 1 replica" }), let two = rows.last(where: { $0.hubs == "PostgreSQL, 2 replicas" }) {
        print(String(format: "  two replicas ÷ one, changes/s at %d devices: %.2f (target ≥ 1.6); cores in use, one replica %.2f, two %.2f, of %d",
                     two.devices, two.changesPerSecond / one.changesPerSecond, one.coresInUse, two.coresInUse,
                     ProcessInfo.processInfo.activeProcessorCount))
    }
}

if which == "hub" || which == "hub-postgresql" || which == "all" {
    let cells = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 100_000
    let database = which == "hub-postgresql" ? try benchPostgresDatabase() : nil
    let r = try await hubBenchmark(cells: cells, scratch: scratch + "/hub", database: database)
    database?.shutdown()
    print("hub\(database == nil ? "" : " on PostgreSQL"): \(r.cells) cell changes (\(r.cells / 5) new rows × 5 columns, \(r.changes) changes) device A → hub → device B over HTTP on loopback, WAL + synchronous=FULL, one round")
    print(String(format: "  push A → hub (batches of 10000) %.3f s; pull hub → B and apply (pages of 10000) %.3f s; total %.3f s  target ≤ 5 s",
                 r.pushSeconds, r.pullSeconds, r.pushSeconds + r.pullSeconds))
    print(String(format: "    of which on the devices: A reads its log and encodes %.3f s, B decodes and applies %.3f s; the hub and HTTP the rest (%.3f s)",
                 r.deviceReadSeconds, r.deviceApplySeconds, r.pushSeconds + r.pullSeconds - r.deviceReadSeconds - r.deviceApplySeconds))
    print(String(format: "  wire: pushed %d bytes = %.1f per cell change; pulled %d bytes = %.1f per cell change  target ≤ 80",
                 r.pushedBytes, Double(r.pushedBytes) / Double(r.cells), r.pulledBytes, Double(r.pulledBytes) / Double(r.cells)))
    report("  in-sync check (root, no change)", r.check, unit: micros, target: "")
}
