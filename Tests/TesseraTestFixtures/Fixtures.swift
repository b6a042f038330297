import CTestScratch
// `withCleanup`, the async `defer` every test that starts a server or a host ends with.
@_exported import TesseraSystem
import Foundation
import Synchronization

/// Paths and plugin libraries for tests: the package's own build products, and small plugins built
/// on demand with the same compiler against the same SDK (or deliberately against a static copy of
/// it), so each gate can be shown to refuse a real library.
public enum Fixtures {
    /// The repository root (this file is Tests/TesseraTestFixtures/Fixtures.swift).
    public static let repositoryRoot: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// The build folder: where the running test binary, `tessera`, and the plugin libraries are.
    public static let buildDirectory: String = {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        var dir = (exe as NSString).deletingLastPathComponent
        // On Linux the test binary is `<build>/TesseraPackageTests.xctest`.
        while !dir.isEmpty, dir != "/", !FileManager.default.fileExists(atPath: dir + "/libTesseraSDK.so") {
            dir = (dir as NSString).deletingLastPathComponent
        }
        return dir
    }()

    /// The shipped example plugin, as `swift build` made it.
    public static var exampleLibrary: String { buildDirectory + "/libTesseraExample.so" }
    /// The example plugin's manifest.
    public static var exampleManifest: String { repositoryRoot + "/manifests/example.json" }
    /// The `tessera` executable.
    public static var tesseraExecutable: String { buildDirectory + "/tessera" }

    /// The test process's scratch folder, which is also its `TMPDIR`: every temporary file of a
    /// test run, and of the programs it starts, is in it, and it is removed when the run ends
    /// (Tests/CTestScratch/scratch.c). `nil` if it could not be made.
    public static let scratchRoot: String? = tessera_test_scratch_root().map { String(cString: $0) }

    /// A new empty temporary folder.
    public static func temporaryDirectory(_ label: String = "test") -> String {
        let path = NSTemporaryDirectory() + "tessera-\(label)-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Writes `text` to `path`, making folders.
    public static func write(_ text: String, to path: String) {
        try! FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try! Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }
}

/// Runs a program and returns its exit status and output.
public struct ProcessResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
}

/// ``run(_:_:input:environment:directory:)`` on a thread of its own, for async tests: waiting for a
/// program must not hold one of the few threads Swift concurrency runs every task on (two on two
/// cores), or every other test in the process stalls meanwhile.
@discardableResult
public func runDetached(_ executable: String, _ arguments: [String], input: String? = nil, environment: [String: String]? = nil,
                        directory: String? = nil) async throws -> ProcessResult {
    try await onOwnThread { try run(executable, arguments, input: input, environment: environment, directory: directory) }
}

/// Runs blocking `work` on a new thread and resumes with its result.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

/// Runs a program to its end and returns its status and output, blocking the calling thread until
/// then: a test calls ``runDetached(_:_:input:environment:directory:)`` instead (docs/testing.md).
@discardableResult
public func run(_ executable: String, _ arguments: [String], input: String? = nil, environment: [String: String]? = nil,
                directory: String? = nil) throws -> ProcessResult {
    let process = try ChildProcess(executable, arguments, environment: environment, directory: directory,
                                   stdin: .pipe, stdout: .pipe, stderr: .pipe)
    let inp = process.standardInput!, out = process.standardOutput!, err = process.standardError!
    if let input { inp.write(Data(input.utf8)) }
    try inp.close()
    // Read both pipes to the end before waiting, so a chatty child never blocks on a full pipe.
    let errData = Mutex(Data())
    let errDone = DispatchSemaphore(value: 0)
    Thread {
        errData.withLock { $0 = err.readDataToEndOfFile() }
        errDone.signal()
    }.start()
    let outData = out.readDataToEndOfFile()
    process.waitUntilExit()
    errDone.wait()
    return ProcessResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: errData.withLock { String(decoding: $0, as: UTF8.self) })
}
