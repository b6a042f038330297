import CSQLite
import Foundation
import TesseraClock
import TesseraLoader
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraStorage

/// The phases of one plugin load, in order.
let loadPhases = [
    "stage (read, sha256, copy)", "gate 1 (ELF stamp, lint)", "gate 2 (dlopen)", "gate 3 (handshake)",
    "storage ready (task started, opened alongside, migrated)", "plugin start(context:)",
]

/// Loads of the example plugin, measured the way a host starts: each in a fresh process that loads
/// `loadsPerProcess` distinct builds (copies with different trailing bytes, so each gets a new
/// content address and a real dlopen), like a host starting that many plugins. Returns the total and
/// each phase over all loads.
///
/// Fresh processes matter: the Swift runtime rescans the conformance records of every loaded image
/// after each dlopen, so the hundredth plugin in one process loads slower than the fifth
/// (research/anchors-plugin-runtimes.md §B4).
func loadBenchmark(library: String, pluginID: String, processes: Int, loadsPerProcess: Int, scratch: String, stripped: Bool) throws
    -> (load: LoadFigures, bytes: Int)
{
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    var source = library
    if stripped {
        source = scratch + "/" + ((library as NSString).lastPathComponent as NSString).deletingPathExtension + "-stripped.so"
        try runTool("/usr/bin/strip", ["--strip-debug", "-o", source, library])
    }
    var samples: [[Double]] = []
    for p in 0..<processes {
        let output = try runTool(CommandLine.arguments[0], ["load-child", source, scratch + "/p\(p)", String(loadsPerProcess), pluginID])
        for line in output.split(separator: "\n") {
            samples.append(line.split(separator: " ").compactMap { Double($0) })
        }
    }
    let bytes = (try FileManager.default.attributesOfItem(atPath: source)[.size] as? Int) ?? 0
    return (LoadFigures(samples), bytes)
}

/// One series of loads, from the child's lines (nanoseconds per phase, ``loadPhases`` in order).
struct LoadFigures {
    /// Every phase: the load until the plugin has started with its storage ready.
    let total: Summary
    /// The library's load alone: staging, gate 1, `dlopen`, the handshake. What the C anchor
    /// (`dlopen` + `dlsym` + a call) measures for a C library; the database's open, which runs
    /// alongside, and the plugin's `start` are left out.
    let library: Summary
    /// Each phase.
    let phases: [(String, Summary)]
    /// How many of ``loadPhases``, from the first, are the library's load (stage, gates 1 to 3).
    static let libraryPhases = 4

    init(_ samples: [[Double]]) {
        total = Summary(samples.map { $0.reduce(0, +) })
        library = Summary(samples.map { $0.prefix(Self.libraryPhases).reduce(0, +) })
        phases = loadPhases.enumerated().map { i, name in (name, Summary(samples.map { $0[i] })) }
    }
}

/// Writes `count` distinct builds of `library` into `folder` (copies with different trailing bytes:
/// each a new content address) and returns their paths.
@discardableResult
func writeDistinctBuilds(of library: String, count: Int, into folder: String, salt: UInt64) throws -> [String] {
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let original = try Data(contentsOf: URL(fileURLWithPath: library))
    return try (0..<count).map { i in
        var bytes = original
        withUnsafeBytes(of: salt << 16 | UInt64(i)) { bytes.append(contentsOf: $0) }
        let path = folder + "/\(((library as NSString).lastPathComponent as NSString).deletingPathExtension)-\(i).so"
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }
}

/// Loads of builds staged before, as on every host start after the first: `writeDistinctBuilds`
/// wrote them into `builds` (at least the stage's settle time ago, 2 s, or the index does not
/// trust them yet); one uncounted process stages them, then each of `processes` fresh processes
/// loads them all from the stage. Throws if a counted process staged a build again (a staged
/// copy's inode changed), so the figures are of loads that took the stage index's answer.
func stagedLoadBenchmark(library: String, pluginID: String, builds: String, processes: Int, scratch: String) throws -> LoadFigures {
    let generations = scratch + "/generations"
    func stagedCopies() -> [String: UInt64] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: generations)) ?? []
        return Dictionary(uniqueKeysWithValues: names.filter { !$0.hasPrefix(".") }.map { name in
            var info = stat()
            _ = stat(generations + "/" + name, &info)
            return (name, UInt64(info.st_ino))
        })
    }
    var samples: [[Double]] = []
    var first: [String: UInt64] = [:]
    for p in 0...processes {
        let output = try runTool(CommandLine.arguments[0], ["load-child", library, scratch, "0", pluginID, builds])
        if p == 0 { first = stagedCopies(); continue }
        for line in output.split(separator: "\n") {
            samples.append(line.split(separator: " ").compactMap { Double($0) })
        }
    }
    guard !first.isEmpty, stagedCopies() == first else {
        throw PluginError(.internal, "the builds in \(builds) were staged again by a counted load: the stage index did not vouch for them")
    }
    return LoadFigures(samples)
}

/// The child side: loads `count` distinct copies of `library` (or, with `builds`, every build in
/// that folder, as they are) and prints, per load, the nanoseconds of each phase on one line.
func loadChild(library: String, scratch: String, count: Int, pluginID: String, builds: String? = nil) async throws {
    let fm = FileManager.default
    let paths: [String]
    if let builds {
        paths = try fm.contentsOfDirectory(atPath: builds).sorted().map { builds + "/" + $0 }
    } else {
        paths = try writeDistinctBuilds(of: library, count: count, into: scratch + "/copies", salt: UInt64(getpid()))
    }
    let generations = GenerationStore(root: scratch + "/generations")
    let clockSource = VirtualClockSource(start: Date(timeIntervalSince1970: 1_767_225_600))
    let timers = try SQLiteTimerStore(path: scratch + "/host.sqlite")
    let databasePath = scratch + "/storage.sqlite"
    // The database exists and is migrated, as on every start after the first; the migrations are
    // read from a plugin instance of an unmeasured load.
    let prototype = try LibraryLoader.load(path: library, manifest: nil, generations: GenerationStore(root: scratch + "/prototype"))
    try SQLitePluginStorage(pluginID: pluginID, path: databasePath, now: { clockSource.now() })
        .migrate(prototype.handshake.swiftFactory!.makePlugin().migrations)

    for path in paths {
        var laps: [UInt64] = []
        var t = monotonicNanoseconds()
        func lap() {
            let now = monotonicNanoseconds()
            laps.append(now - t)
            t = now
        }
        // As the host does for a plugin whose database exists: open it on another thread while the
        // library is staged, checked and mapped. Starting that task (it wakes a thread) is the
        // storage's cost, counted in its phase, not the stage's.
        let opening = Task.detached { try SQLitePluginStorage(pluginID: pluginID, path: databasePath, now: { clockSource.now() }) }
        let spawned = monotonicNanoseconds()
        let spawning = spawned - t
        t = spawned
        let staged = try generations.stage(path)
        lap()
        let verified = try FileGate.verify(staged, manifest: nil, host: .current)
        lap()
        let (_, entry) = try LibraryLoader.open(stagedPath: verified.path)  // the Swift plugins hello and example
        lap()
        let handshake = try LibraryLoader.handshake(entry: entry, expectedID: pluginID, host: .current)
        lap()
        let plugin = handshake.swiftFactory!.makePlugin()
        let storage = try await opening.value
        try storage.migrate(plugin.migrations)
        lap()
        laps[laps.count - 1] += spawning
        let context = PluginContext(
            pluginID: pluginID, config: .object([:]),
            capabilities: [
                GrantedCapability(.storage, storage as any PluginStorage),
                GrantedCapability(.clock, PluginClock(pluginID: pluginID, source: clockSource, store: timers, permissions: [:]) as any HostClock),
            ],
            log: .discarding)
        try await plugin.start(context: context)
        lap()
        print(laps.map(String.init).joined(separator: " "))
    }
}

/// Runs a program, returning its stdout; throws if it fails.
@discardableResult
func runTool(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "\(executable) \(arguments.joined(separator: " ")) failed"])
    }
    return String(decoding: data, as: UTF8.self)
}

/// The same loads through the host itself: `PluginHost.start()` with a deployment of the example
/// plugin, whose manifest points at a new build each time, on a data directory where the plugin ran
/// before (a restart after a rebuild). Includes reading the manifest, the deployment checks, and the
/// host opening the existing database while it verifies and maps the library. Fresh processes, as above.
func hostStartBenchmark(library: String, manifest: String, processes: Int, loadsPerProcess: Int, scratch: String) throws -> Summary {
    var samples: [Double] = []
    for p in 0..<processes {
        let output = try runTool(CommandLine.arguments[0], ["host-child", library, manifest, scratch + "/h\(p)", String(loadsPerProcess)])
        samples += output.split(separator: "\n").compactMap { Double($0) }
    }
    return Summary(samples)
}

/// A host restarted with its plugin's build unchanged: `PluginHost.start()` in a new process on the
/// data directory and stage of the one before, the manifest pointing at the same library file. The
/// first process stages the build and creates the database and is not counted; each of the next
/// `processes` starts once (a real `dlopen`: a new process).
func hostRestartBenchmark(library: String, manifest: String, processes: Int, scratch: String) throws -> Summary {
    var samples: [Double] = []
    for p in 0...processes {
        let output = try runTool(CommandLine.arguments[0], ["host-child", library, manifest, scratch, "0"])
        if p > 0 { samples += output.split(separator: "\n").compactMap { Double($0) } }
    }
    return Summary(samples)
}

/// A plugin started again in the same process, its build and manifest unchanged (the host
/// stopped and a new one started, as after a restart of the plugin or a swap back): `starts`
/// starts, alternately with the manifest cache emptied first (the manifest read, checked and its
/// schemas compiled anew, as before the cache) and with it kept. Returns both series.
func hostRestartInProcessBenchmark(library: String, manifest: String, starts: Int, scratch: String) throws
    -> (read: Summary, cached: Summary)
{
    let output = try runTool(CommandLine.arguments[0], ["host-child", library, manifest, scratch, String(-starts)])
    var read: [Double] = [], cached: [Double] = []
    for line in output.split(separator: "\n") {
        let parts = line.split(separator: " ")
        guard parts.count == 2, let value = Double(parts[1]) else { continue }
        if parts[0] == "read" { read.append(value) } else { cached.append(value) }
    }
    return (Summary(read), Summary(cached))
}

/// The child side of ``hostStartBenchmark``: prints the nanoseconds of each `start()`; with
/// `count` 0, of one start of `library` itself after an uncounted one (``hostRestartBenchmark``).
func hostChild(library: String, manifest: String, scratch: String, count: Int) async throws {
    let fm = FileManager.default
    try fm.createDirectory(atPath: scratch + "/manifests/deployments", withIntermediateDirectories: true)
    let original = try Data(contentsOf: URL(fileURLWithPath: library))
    guard case .object(var manifestObject) = try JSONValue(parsing: try Data(contentsOf: URL(fileURLWithPath: manifest))),
          let id = manifestObject["id"]?.stringValue else { return }
    // Every capability the manifest asks for, granted as asked.
    let requires = manifestObject["requires"]?.arrayValue?.compactMap { $0["capability"]?.stringValue } ?? []
    let grants = JSONValue.object(Dictionary(uniqueKeysWithValues: requires.map { ($0, JSONValue.object([:])) }))
    let deployment = scratch + "/manifests/deployments/bench.json"
    try Data(#"{"name": "bench", "role": "device", "manifestDirectories": [".."], "providers": {"clock": {"kind": "virtual"}}, "plugins": [{"id": "\#(id)", "grants": \#(grants.serialized())}]}"#.utf8)
        .write(to: URL(fileURLWithPath: deployment))
    let fileName = ((library as NSString).lastPathComponent as NSString).deletingPathExtension
    // A restart series starts a distinct build first, uncounted, as the rebuilt series does: the
    // first start in a process pays one-time costs (runtime metadata, SQLite, Foundation).
    let restart = count == 0
    // With a negative count: -count starts of the same build and manifest in this one process
    // (``hostRestartInProcessBenchmark``), every other one with the manifest cache emptied first.
    let inProcess = count < 0
    for i in 0...(restart ? 1 : abs(count)) {
        let measuresUnchanged = (restart && i == 1) || (inProcess && i > 0)
        var copy = library
        if !measuresUnchanged {
            var bytes = original
            withUnsafeBytes(of: UInt64(getpid()) << 16 | UInt64(i)) { bytes.append(contentsOf: $0) }
            copy = scratch + "/\(fileName)-\(i).so"
            try bytes.write(to: URL(fileURLWithPath: copy))
        }
        if !(inProcess && i > 0) {
            manifestObject["library"] = ["path": .string(inProcess ? library : copy)]
            try Data(JSONValue.object(manifestObject).serialized().utf8).write(to: URL(fileURLWithPath: scratch + "/manifests/plugin.json"))
        }
        let cold = inProcess && i % 2 == 1
        if cold { ManifestCache.removeAll() }
        let host = try PluginHost(deployment: try DeploymentReader.read(file: deployment),
                                  options: HostOptions(dataDirectory: scratch + "/data"))
        // A profiler can be confined to the measured starts (ProfilerWindow, phase "host-start";
        // start 0 is not measured).
        let elapsed = await ProfilerWindow.around(i > 0 ? "host-start" : "") {
            let t = monotonicNanoseconds()
            await host.start()
            return monotonicNanoseconds() - t
        }
        guard host.status(of: id)?.state == .active else {
            throw PluginError(.unavailable, "not active: \(host.status(of: id)?.reason ?? "?")")
        }
        await host.stop()
        // Load 0 creates and migrates the database, or warms the process up.
        if i > 0 { print(inProcess ? "\(cold ? "read" : "cached") \(elapsed)" : "\(elapsed)") }
    }
}

/// Opening an existing plugin database, alone, in this process: the host's
/// `SQLitePluginStorage` (the connection's settings, the host's tables checked, the schema
/// version read), against its anchor, raw SQLite opening the same file with the same settings and
/// reading one row (`sqlite3_open_v2`, the first statement reading the schema and the WAL index),
/// its `-wal` file kept and emptied on close as the host's are.
/// Each is closed before the next open, as between two host starts. In turns, `rounds` each.
func storageOpenBenchmark(path: String, pluginID: String, rounds: Int) throws -> (host: Summary, raw: Summary) {
    var host: [Double] = [], raw: [Double] = []
    for _ in 0..<rounds {
        var t = monotonicNanoseconds()
        do { _ = try SQLitePluginStorage(pluginID: pluginID, path: path, now: { Date() }) }
        host.append(Double(monotonicNanoseconds() - t))
        t = monotonicNanoseconds()
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
              sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON; PRAGMA trusted_schema=OFF",
                           nil, nil, nil) == SQLITE_OK,
              sqlite3_exec(db, "SELECT MAX(version) FROM _tessera_migrations", nil, nil, nil) == SQLITE_OK else {
            throw PluginError(.internal, "raw SQLite could not open \(path): \(String(cString: sqlite3_errmsg(db)))")
        }
        // Kept and emptied on close, as the host's connections leave them.
        var persist: Int32 = 1
        _ = sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
        _ = sqlite3_exec(db, "PRAGMA journal_size_limit=8388608", nil, nil, nil)
        sqlite3_close(db)
        raw.append(Double(monotonicNanoseconds() - t))
    }
    return (Summary(host), Summary(raw))
}

/// Prints a series of loads beside the C anchor: the library's load first (what the anchor
/// measures of a C library), then the load until the plugin has started with its database ready,
/// then each phase.
func printLoad(_ load: LoadFigures, anchor: Summary, target: Int) {
    report("  library: stage, gates, handshake", load.library, unit: micros, target: "")
    print(String(format: "    ÷ the C anchor's median: %.1f×  target ≤ %d×", load.library.median / anchor.median, target))
    report("  + database ready, start", load.total, unit: micros, target: "")
    print(String(format: "    ÷ the C anchor's median: %.1f×", load.total.median / anchor.median))
    for (name, summary) in load.phases { report("    \(name)", summary, unit: micros, target: "") }
}
