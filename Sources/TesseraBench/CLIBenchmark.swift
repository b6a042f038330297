import Foundation
import TesseraSDK
import TesseraSystem

/// What one `tessera call` costs an end user, as a whole process: `tessera call dev.tessera.example
/// list-notes` on a data directory where the plugin ran before, with the shipped modules'
/// manifests in the deployment's folder, and again with only the example's manifest there (what
/// reading the others adds), each on a data directory where the plugins were listed first. The
/// anchor is the same executable started for `tessera --version`: the dynamic linker, the Swift
/// runtime and the argument parser, and nothing of the host.
/// Runs `runs` of each in turns; returns their wall-clock times in nanoseconds.
func cliBenchmark(buildDirectory: String, scratch: String, runs: Int) throws
    -> (version: Summary, callAllManifests: Summary, callOneManifest: Summary)
{
    let tessera = buildDirectory + "/tessera"
    let shipped = FileManager.default.currentDirectoryPath + "/manifests"
    let onlyExample = scratch + "/only-example"
    try FileManager.default.createDirectory(atPath: onlyExample, withIntermediateDirectories: true)
    try? FileManager.default.removeItem(atPath: onlyExample + "/example.json")
    try FileManager.default.copyItem(atPath: shipped + "/example.json", toPath: onlyExample + "/example.json")
    // The example's `ui` folder is relative to its manifest: the copy's is not there, and a call
    // does not serve it.
    func deployment(_ name: String, manifests: String) throws -> String {
        let file = scratch + "/\(name).json"
        try Data("""
            {"name": "\(name)", "role": "device", "manifestDirectories": ["\(manifests)"], "libraryPaths": ["\(buildDirectory)"],
             "providers": {"clock": {"kind": "virtual", "start": "2026-03-02T08:00:00Z"}},
             "plugins": [{"id": "dev.tessera.example", "grants": {"storage": {}, "clock": {}, "notifications": {}}}]}
            """.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }
    let all = try deployment("all", manifests: shipped), one = try deployment("one", manifests: onlyExample)
    let callAll = ["call", "dev.tessera.example", "list-notes", "{}", "--deployment", all, "--data", scratch + "/data-all"]
    let callOne = ["call", "dev.tessera.example", "list-notes", "{}", "--deployment", one, "--data", scratch + "/data-one"]
    // The first call creates the database and stages the build, and a list of the plugins reads
    // every manifest in the folder, as a host that served them has (its records of the manifests
    // that passed: docs/plugin-boundary.md); neither is counted.
    for (call, list) in [(callAll, all), (callOne, one)] {
        try runTool(tessera, call)
        try runTool(tessera, ["plugins", "list", "--deployment", list, "--data", call[call.count - 1]])
    }
    var version: [Double] = [], callAllTimes: [Double] = [], callOneTimes: [Double] = []
    for _ in 0..<runs {
        for (arguments, into) in [(["--version"], 0), (callAll, 1), (callOne, 2)] {
            let t = monotonicNanoseconds()
            try spawnAndWait(tessera, arguments)
            let elapsed = Double(monotonicNanoseconds() - t)
            switch into {
            case 0: version.append(elapsed)
            case 1: callAllTimes.append(elapsed)
            default: callOneTimes.append(elapsed)
            }
        }
    }
    return (Summary(version), Summary(callAllTimes), Summary(callOneTimes))
}

/// Runs a program with its output thrown away and waits for it with `waitpid`, throwing if it
/// fails. Foundation's `Process` is not used to time a process: on Linux its `waitUntilExit`
/// polls its run loop, which adds tens of milliseconds to a short process.
func spawnAndWait(_ executable: String, _ arguments: [String]) throws {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
    guard spawned == 0 else { throw PluginError(.internal, "cannot start \(executable): \(String(cString: strerror(spawned)))") }
    var status: Int32 = 0
    _ = SystemCall.retryingInterrupted { waitpid(pid, &status, 0) }
    // Exited (the low seven bits are 0) with status 0.
    guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
        throw PluginError(.internal, "\(executable) \(arguments.joined(separator: " ")) failed (wait status \(status))")
    }
}
