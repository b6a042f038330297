import Foundation
import TesseraClock
import TesseraLoader
import TesseraSDK
import TesseraStorage

/// Gates + staging + dlopen + handshake + start of the example plugin, each load a distinct build
/// (a copy with different trailing bytes, so a new content address and a real dlopen).
func loadBenchmark(library: String, loads: Int, scratch: String) async throws -> (total: Summary, phases: [(String, Summary)]) {
    let fm = FileManager.default
    let copies = scratch + "/copies"
    try fm.createDirectory(atPath: copies, withIntermediateDirectories: true)
    let original = try Data(contentsOf: URL(fileURLWithPath: library))
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
        let verified = try FileGate.verify(path: path, manifest: nil, host: .current)
        lap("gate 1 (sha256, stamp, lint)")
        let staged = try generations.stage(verified)
        lap("stage (content-addressed copy)")
        let (_, entry) = try LibraryLoader.open(stagedPath: staged)
        lap("gate 2 (dlopen)")
        let handshake = try LibraryLoader.handshake(entry: entry, expectedID: "dev.tessera.example", host: .current)
        lap("gate 3 (handshake)")
        let plugin = handshake.factory.makePlugin()
        let storage = try SQLitePluginStorage(pluginID: "dev.tessera.example", path: databasePath, now: { clockSource.now() })
        try storage.migrate(plugin.migrations)
        let context = PluginContext(
            pluginID: "dev.tessera.example", config: .object([:]),
            capabilities: ["storage": storage, "clock": PluginClock(pluginID: "dev.tessera.example", source: clockSource, store: timers, permissions: [:])],
            log: .discarding)
        try await plugin.start(context: context)
        lap("start (open storage, start())")
        totals.append(Double(monotonicNanoseconds() - start))
    }
    let order = ["gate 1 (sha256, stamp, lint)", "stage (content-addressed copy)", "gate 2 (dlopen)", "gate 3 (handshake)", "start (open storage, start())"]
    return (Summary(totals), order.map { ($0, Summary(phases[$0] ?? [])) })
}
