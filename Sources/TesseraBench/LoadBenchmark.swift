import Foundation
import TesseraClock
import TesseraLoader
import TesseraSDK
import TesseraStorage

/// Gates + staging + dlopen + handshake + start of the example plugin, each load a distinct build
/// (a copy with different trailing bytes, so a new content address and a real dlopen).
///
/// With `stripped`, each copy has its debug sections removed first (`strip --strip-debug`), as a
/// shipped plugin would: the file to read and hash shrinks, the code does not.
func loadBenchmark(library: String, loads: Int, scratch: String, stripped: Bool) async throws -> (total: Summary, phases: [(String, Summary)], bytes: Int) {
    let fm = FileManager.default
    let copies = scratch + "/copies"
    try fm.createDirectory(atPath: copies, withIntermediateDirectories: true)
    var source = library
    if stripped {
        source = scratch + "/libTesseraExample-stripped.so"
        let strip = Process()
        strip.executableURL = URL(fileURLWithPath: "/usr/bin/strip")
        strip.arguments = ["--strip-debug", "-o", source, library]
        try strip.run()
        strip.waitUntilExit()
        guard strip.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
    }
    let original = try Data(contentsOf: URL(fileURLWithPath: source))
    var paths: [String] = []
    for i in 0..<loads {
        var bytes = original
        withUnsafeBytes(of: UInt64(i).littleEndian) { bytes.append(contentsOf: $0) }
        let path = copies + "/libTesseraExample-\(i).so"
        try bytes.write(to: URL(fileURLWithPath: path))
        paths.append(path)
    }
    let generations = GenerationStore(root: scratch + "/generations")
    let clockSource = VirtualClockSource(start: Date(timeIntervalSince1970: 1_767_225_600))
    let timers = try SQLiteTimerStore(path: scratch + "/host.sqlite")
    let databasePath = scratch + "/storage.sqlite"
    // The database exists and is migrated, as on every start after the first.
    let prototype = try LibraryLoader.load(path: library, manifest: nil, generations: generations)
    try SQLitePluginStorage(pluginID: "dev.tessera.example", path: databasePath, now: { clockSource.now() })
        .migrate(prototype.factory.makePlugin().migrations)

    var phases: [String: [Double]] = [:]
    var totals: [Double] = []
    for path in paths {
        var t = monotonicNanoseconds()
        func lap(_ name: String) {
            let now = monotonicNanoseconds()
            phases[name, default: []].append(Double(now - t))
            t = now
        }
        let start = t
        let staged = try generations.stage(path)
        lap("stage (read, sha256, copy)")
        let verified = try FileGate.verify(path: staged.path, knownSHA256: staged.sha256, manifest: nil, host: .current)
        lap("gate 1 (ELF stamp, lint)")
        let (_, entry) = try LibraryLoader.open(stagedPath: verified.path)
        lap("gate 2 (dlopen)")
        let handshake = try LibraryLoader.handshake(entry: entry, expectedID: "dev.tessera.example", host: .current)
        lap("gate 3 (handshake)")
        let plugin = handshake.factory.makePlugin()
        let storage = try SQLitePluginStorage(pluginID: "dev.tessera.example", path: databasePath, now: { clockSource.now() })
        try storage.migrate(plugin.migrations)
        lap("open storage (migrations applied)")
        let context = PluginContext(
            pluginID: "dev.tessera.example", config: .object([:]),
            capabilities: ["storage": storage, "clock": PluginClock(pluginID: "dev.tessera.example", source: clockSource, store: timers, permissions: [:])],
            log: .discarding)
        try await plugin.start(context: context)
        lap("plugin start(context:)")
        totals.append(Double(monotonicNanoseconds() - start))
    }
    let order = ["stage (read, sha256, copy)", "gate 1 (ELF stamp, lint)", "gate 2 (dlopen)", "gate 3 (handshake)", "open storage (migrations applied)", "plugin start(context:)"]
    return (Summary(totals), order.map { ($0, Summary(phases[$0] ?? [])) }, original.count)
}
