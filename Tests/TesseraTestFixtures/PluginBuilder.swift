import Foundation
import Synchronization

/// Builds small plugin libraries for tests with the toolchain's `swiftc` and `clang`, against the
/// SDK module in the build folder, exactly as a third party outside SwiftPM would.
public enum PluginBuilder {
    /// A plugin to build.
    public enum Kind: String, Sendable, CaseIterable {
        /// A well-formed plugin (id `fixture.good`) with one operation, `hello`.
        case good
        /// A plugin whose `start` throws.
        case startThrows
        /// A plugin that exports no `tessera_plugin_entry`.
        case noEntry
        /// A plugin linked against a static copy of the SDK instead of libTesseraSDK.so.
        case staticSDK
        /// A plugin whose stamp says SDK 1.0 but whose handshake reports a minor version newer than the host's.
        case handshakeNewerMinor
        /// A plugin whose handshake reports another id than its manifest.
        case wrongID
        /// Two builds of one stateful plugin (id `fixture.counter`) for hot swap: `count` adds one
        /// to an in-memory counter and answers it with the build's letter; the counter moves across
        /// a swap as state (schema 1).
        case counterA, counterB
        /// The process tier's test plugin (id `fixture.isolated`, `IsolatedPluginSource`): its C
        /// constructor writes its process id to `$TESSERA_FIXTURE_CONSTRUCTOR_FILE`; it crashes,
        /// spins or echoes on request, and uses storage, clock, notifications and events.
        case isolated
    }

    /// The id each fixture reports at the handshake (lowercase, as manifest ids are).
    public static func pluginID(_ kind: Kind) -> String {
        switch kind {
        case .good: return "fixture.good"
        case .startThrows: return "fixture.start-throws"
        case .noEntry: return "fixture.no-entry"
        case .staticSDK: return "fixture.static-sdk"
        case .handshakeNewerMinor: return "fixture.newer-minor"
        case .wrongID: return "fixture.somebody-else"
        case .counterA, .counterB: return "fixture.counter"
        case .isolated: return "fixture.isolated"
        }
    }

    private static let built = Mutex<[Kind: String]>([:])
    private static let root = Fixtures.temporaryDirectory("plugins")

    /// The path of the built library (built once per test process).
    ///
    /// The build (seconds of `swiftc`) and the wait for another test's build of the same library
    /// happen on a thread of their own: held on one of Swift concurrency's two threads, they
    /// stalled every in-process server of the tests running meanwhile.
    public static func library(_ kind: Kind) async throws -> String {
        if let path = built.withLock({ $0[kind] }) { return path }
        return try await onOwnThread {
            try built.withLock { cache in
                if let path = cache[kind] { return path }
                let path = try build(kind)
                cache[kind] = path
                return path
            }
        }
    }

    static func build(_ kind: Kind) throws -> String {
        let dir = root + "/" + kind.rawValue
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let source = dir + "/Plugin.swift"
        Fixtures.write(PluginSources.source(for: kind), to: source)
        let stamp = try stampObject()
        let output = dir + "/libFixture\(kind.rawValue.capitalized).so"
        var arguments = ["-emit-library", "-parse-as-library", "-module-name", "Fixture\(kind.rawValue.capitalized)",
                         "-Xcc", "-fmodule-map-file=\(try moduleMap())", source, stamp, "-o", output]
        if kind == .isolated { arguments.append(try constructorObject()) }
        if kind == .staticSDK {
            arguments += ["-I", try staticSDK() + "/include", try staticSDK() + "/libTesseraSDK.a"]
        } else {
            arguments += ["-I", Fixtures.buildDirectory + "/Modules", "-L", Fixtures.buildDirectory, "-lTesseraSDK"]
        }
        try tool("swiftc", arguments)
        return output
    }

    /// The module map that lets swiftc find the SDK's C header modules (the ABI's, and SHA-256's
    /// for the static copy, which compiles the SDK's sources itself).
    static func moduleMap() throws -> String {
        let path = root + "/CTesseraABI.modulemap"
        if !FileManager.default.fileExists(atPath: path) {
            let sdk = Fixtures.repositoryRoot + "/sdk/Sources"
            Fixtures.write("""
                module CTesseraABI { header "\(sdk)/CTesseraABI/include/tessera_abi.h" export * }
                module CTesseraSHA256 { header "\(sdk)/CTesseraSHA256/include/CTesseraSHA256.h" export * }

                """, to: path)
        }
        return path
    }

    /// The stamp object every plugin links, compiled from the SDK's own stamp.c.
    static func stampObject() throws -> String {
        let path = root + "/stamp.o"
        if !FileManager.default.fileExists(atPath: path) {
            let sdk = Fixtures.repositoryRoot + "/sdk/Sources"
            try tool("clang", ["-c", "-fPIC", "-I", sdk + "/CTesseraABI/include", "-I", sdk + "/TesseraPluginStamp/include",
                               sdk + "/TesseraPluginStamp/stamp.c", "-o", path])
        }
        return path
    }

    /// A C constructor, run by `dlopen` before any Swift code of the library: it writes the
    /// loading process's id to the file `$TESSERA_FIXTURE_CONSTRUCTOR_FILE` names (if set).
    static func constructorObject() throws -> String {
        let path = root + "/constructor.o"
        if !FileManager.default.fileExists(atPath: path) {
            let source = root + "/constructor.c"
            Fixtures.write(IsolatedPluginSource.constructor, to: source)
            try tool("clang", ["-c", "-fPIC", source, "-o", path])
        }
        return path
    }

    /// A static build of the SDK: the mistake the loader's lint must catch.
    static func staticSDK() throws -> String {
        let dir = root + "/static-sdk"
        if !FileManager.default.fileExists(atPath: dir + "/libTesseraSDK.a") {
            try FileManager.default.createDirectory(atPath: dir + "/include", withIntermediateDirectories: true)
            let sources = try FileManager.default.contentsOfDirectory(atPath: Fixtures.repositoryRoot + "/sdk/Sources/TesseraSDK")
                .filter { $0.hasSuffix(".swift") }.map { Fixtures.repositoryRoot + "/sdk/Sources/TesseraSDK/" + $0 }
            try tool("swiftc", ["-static", "-emit-library", "-parse-as-library", "-module-name", "TesseraSDK",
                                "-enable-library-evolution", "-Xcc", "-fmodule-map-file=\(try moduleMap())",
                                "-emit-module", "-emit-module-path", dir + "/include/TesseraSDK.swiftmodule",
                                "-o", dir + "/libTesseraSDK.a"] + sources)
            // SHA-256's C, as the SDK's package builds it, into the same archive.
            let sha = Fixtures.repositoryRoot + "/sdk/Sources/CTesseraSHA256"
            var objects: [String] = []
            for file in ["sha256.c", "sha256_ni.c"] {
                let object = dir + "/" + file + ".o"
                try tool("clang", ["-c", "-O2", "-fPIC", "-I", sha + "/include", sha + "/" + file, "-o", object])
                objects.append(object)
            }
            try tool("ar", ["rcs", dir + "/libTesseraSDK.a"] + objects)
        }
        return dir
    }

    /// Runs a toolchain program; throws with its stderr if it fails.
    static func tool(_ name: String, _ arguments: [String]) throws {
        let result = try run("/usr/bin/env", [name] + arguments)
        guard result.status == 0 else {
            throw FixtureError(message: "\(name) failed (\(result.status)): \(result.stderr.suffix(2000))")
        }
    }
}

public struct FixtureError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
