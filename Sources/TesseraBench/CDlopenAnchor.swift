import Foundation
import TesseraLoader

/// The anchor the load figures are read against: `dlopen` of a small C library, in the same run.
///
/// A C shared library with one exported function (compiled here with the system's `cc -O2
/// -shared -fPIC`), loaded the same way the plugin loads are: in fresh processes, each loading
/// `loadsPerProcess` distinct copies (different trailing bytes, so every one is a new path and a
/// real `dlopen`), timing `dlopen` + `dlsym` + one call. A plugin load ÷ this median is how many
/// times a bare C load a plugin costs on this machine, now.
func cDlopenAnchor(processes: Int, loadsPerProcess: Int, scratch: String) throws -> Summary {
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    let source = scratch + "/anchor.c", library = scratch + "/libanchor.so"
    try Data("int tessera_anchor(int x) { return x * 2 + 1; }\n".utf8).write(to: URL(fileURLWithPath: source))
    try runTool("/usr/bin/cc", ["-O2", "-shared", "-fPIC", "-o", library, source])
    var samples: [Double] = []
    for p in 0..<processes {
        let output = try runTool(CommandLine.arguments[0], ["c-load-child", library, scratch + "/p\(p)", String(loadsPerProcess)])
        samples += output.split(separator: "\n").compactMap { Double($0) }
    }
    return Summary(samples)
}

/// The same C library, linked against every library `plugin` names in its `DT_NEEDED` (the Swift
/// runtime, Foundation, the SDK…), and loaded the same way: what `dlopen` costs for any library
/// with a Swift plugin's dependencies, before any of its own code or Tessera's runs. The loader
/// finds each of them loaded already, but walks their dependencies to build the new library's
/// search list, and binds nothing of them (the C function imports nothing).
func cDlopenAnchor(withDependenciesOf plugin: String, processes: Int, loadsPerProcess: Int, scratch: String) throws -> Summary {
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    let source = scratch + "/anchor.c", library = scratch + "/libanchor-deps.so"
    try Data("int tessera_anchor(int x) { return x * 2 + 1; }\n".utf8).write(to: URL(fileURLWithPath: source))
    // Where the loader finds each of the plugin's libraries (`ldd`: "name => path (address)").
    var found: [String: String] = [:]
    for line in try runTool("/usr/bin/ldd", [plugin]).split(separator: "\n") {
        let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        if parts.count >= 3, parts[1] == "=>", parts[2].hasPrefix("/") { found[String(parts[0])] = String(parts[2]) }
    }
    let needed = try ELFFile(path: plugin).neededLibraries
    let paths = needed.compactMap { found[$0] }
    guard paths.count == needed.count else {
        throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "ldd did not find all of \(needed) for \(plugin)"])
    }
    let folders = Array(Set(paths.map { ($0 as NSString).deletingLastPathComponent })).sorted()
    try runTool("/usr/bin/cc", ["-O2", "-shared", "-fPIC", "-o", library, source, "-Wl,--no-as-needed"] + paths
                + folders.map { "-Wl,-rpath," + $0 })
    var samples: [Double] = []
    for p in 0..<processes {
        let output = try runTool(CommandLine.arguments[0], ["c-load-child", library, scratch + "/p\(p)", String(loadsPerProcess)])
        samples += output.split(separator: "\n").compactMap { Double($0) }
    }
    return Summary(samples)
}

/// The child side: prints the nanoseconds of `dlopen` + `dlsym` + call of each of `count` copies.
func cLoadChild(library: String, scratch: String, count: Int) throws {
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    let original = try Data(contentsOf: URL(fileURLWithPath: library))
    var paths: [String] = []
    for i in 0..<count {
        var bytes = original
        withUnsafeBytes(of: UInt64(getpid()) << 16 | UInt64(i)) { bytes.append(contentsOf: $0) }
        let path = scratch + "/anchor-\(i).so"
        try bytes.write(to: URL(fileURLWithPath: path))
        paths.append(path)
    }
    typealias Anchor = @convention(c) (Int32) -> Int32
    for path in paths {
        let start = monotonicNanoseconds()
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL), let symbol = dlsym(handle, "tessera_anchor") else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "cannot load \(path)"])
        }
        let answer = unsafeBitCast(symbol, to: Anchor.self)(20)
        let elapsed = monotonicNanoseconds() - start
        precondition(answer == 41, "the anchor should answer")
        print(elapsed)
    }
}
