import Foundation
import TesseraSDK

/// A plugin under test in the real Tessera host, driven by the host's own command, `tessera`.
///
/// Each test gets a deployment of this plugin alone — its manifest, its built library, the
/// capabilities the manifest requires granted, a virtual clock — and a data directory of its own,
/// in a temporary folder. Every call runs `tessera call` on them, so the plugin is loaded, gated,
/// migrated and called exactly as a deployed host does it, and the clock moves only when the test
/// moves it:
///
/// ```swift
/// import Testing
/// import TesseraPluginTesting
///
/// @Test func anItemKeepsTheHostsTime() async throws {
///     let host = try await HostedPlugin(manifest: "manifest.json")
///     let item = try await host.call("add-item", ["text": "buy milk"])
///     #expect(item["createdAt"] == "2026-01-01T00:00:00Z")
///     try await host.advanceClock(by: "1h")
///     host.stop()
/// }
/// ```
///
/// The library is `lib<library.name>.so` beside the test executable, where `swift test` builds it.
/// The host is `$TESSERA` if set, else the `tessera` given to ``init(manifest:grants:config:start:library:isolation:tessera:)``,
/// else the first on `PATH`. `TESSERA_TEST_ISOLATION=process` runs the plugin in the host's
/// process tier (a child process; the host finds its runner beside itself).
///
/// This library builds nothing of the host, so a plugin's first test build takes seconds. For
/// tests of a plugin's code in the test's own process (breakpoints, `@testable` internals, events
/// and location fed in), the Tessera repository's `TesseraTesting` builds the host's runtime
/// into the package instead.
public final class HostedPlugin: Sendable {
    /// The plugin's id, from its manifest.
    public let id: String
    /// The temporary folder holding the deployment (`deployment.json`) and the data directory
    /// (`data/`); ``stop()`` removes it.
    public let directory: String
    /// The `tessera` executable the calls run.
    public let tessera: String

    private var deployment: String { directory + "/deployment.json" }
    private var data: String { directory + "/data" }

    /// Writes the deployment and starts the plugin once, to check that it becomes active.
    ///
    /// - Parameters:
    ///   - manifest: the plugin's `manifest.json`.
    ///   - grants: the capabilities granted, as in a deployment's `grants`; by default every
    ///     capability the manifest requires, with the permissions it requests.
    ///   - config: the plugin's config, as an operator writes it in the deployment.
    ///   - start: where the virtual clock starts (ISO 8601).
    ///   - library: the folder holding the plugin's built library (default: the test executable's).
    ///   - isolation: `"process"` for the process tier; `nil` reads `$TESSERA_TEST_ISOLATION`.
    ///   - tessera: the host's command, when `$TESSERA` is not set (default: `tessera` on `PATH`).
    /// - Throws: ``HostedPluginError`` when the manifest cannot be read, the host cannot be found or
    ///   run, or the plugin does not become active (with the host's reason).
    public init(manifest: String, grants: [String: JSONValue]? = nil, config: JSONValue = [:],
                start: String = "2026-01-01T00:00:00Z", library: String? = nil, isolation: String? = nil,
                tessera: String? = nil) async throws {
        let declared = try Self.readManifest(manifest)
        guard let id = declared["id"]?.stringValue else {
            throw HostedPluginError("\(manifest) has no \"id\"")
        }
        self.id = id
        self.tessera = try Self.findHost(given: tessera)
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("tessera-plugin-test-\(UUID().uuidString.lowercased())").path
        let tier = isolation ?? ProcessInfo.processInfo.environment["TESSERA_TEST_ISOLATION"]
        let requested = (declared["requires"]?.arrayValue ?? []).compactMap { $0["capability"]?.stringValue }
        var plugin: [String: JSONValue] = [
            "id": .string(id), "config": config,
            "grants": .object(grants ?? Dictionary(requested.map { ($0, [:] as JSONValue) }) { first, _ in first }),
        ]
        if tier == "process" { plugin["isolation"] = "process" }
        let document: JSONValue = [
            "name": "plugin-test", "role": "device",
            // A copy of the manifest alone in its folder: no other JSON file beside it is read.
            "manifestDirectories": [.string(directory + "/manifests")],
            "libraryPaths": [.string(library ?? Self.testExecutableFolder)],
            "providers": ["storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": .string(start)]],
            "plugins": [.object(plugin)],
        ]
        do {
            try FileManager.default.createDirectory(atPath: directory + "/manifests", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: manifest, toPath: directory + "/manifests/manifest.json")
            try Data(document.serialized().utf8).write(to: URL(fileURLWithPath: deployment))
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw HostedPluginError("cannot write the test's deployment in \(directory): \(error.localizedDescription)")
        }
        do {
            try await checkActive()
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// Calls one of the plugin's operations, as the local operator (`tessera call`).
    ///
    /// The host checks the operation is declared and that `input` satisfies its schema before the
    /// plugin sees it.
    /// - Returns: the operation's result.
    /// - Throws: the host's ``PluginError``, as a caller gets it (a schema violation is
    ///   `invalidInput` with the field, such as `$.text`); ``HostedPluginError`` when the command fails
    ///   without an answer.
    @discardableResult
    public func call(_ operation: String, _ input: JSONValue = [:]) async throws -> JSONValue {
        let run = try await host(["call", id, operation, input.serialized(), "--json"])
        let answer = try Self.lastJSONLine(of: run, command: "call \(operation)")
        if let error = answer["error"], case .object = error {
            throw PluginError(PluginError.Code(rawValue: error["code"]?.stringValue ?? "internal"),
                              error["message"]?.stringValue ?? "", field: error["field"]?.stringValue,
                              reason: error["reason"]?.stringValue.map { PluginError.Code(rawValue: $0) })
        }
        guard run.status == 0 else { throw HostedPluginError(command: "call \(operation)", run) }
        return answer
    }

    /// Moves the virtual clock on by `duration` (`30s`, `15m`, `2h30m`, `6d`, `1w`), firing every
    /// timer and notification that falls due, in time order (`tessera clock advance`).
    public func advanceClock(by duration: String) async throws {
        let run = try await host(["clock", "advance", duration])
        guard run.status == 0 else { throw HostedPluginError(command: "clock advance \(duration)", run) }
    }

    /// Moves the virtual clock on by whole `seconds`.
    public func advanceClock(bySeconds seconds: Int) async throws {
        try await advanceClock(by: "\(seconds)s")
    }

    /// The notifications delivered so far, newest first, as `tessera notifications list --json`
    /// lists them (each with its `title`, `body`, `plugin` and times).
    public func deliveredNotifications() async throws -> [JSONValue] {
        let run = try await host(["notifications", "list", "--json"])
        guard run.status == 0 else { throw HostedPluginError(command: "notifications list", run) }
        return try Self.lastJSONLine(of: run, command: "notifications list")["notifications"]?.arrayValue ?? []
    }

    /// Removes the deployment and the data directory. Calls after it fail.
    public func stop() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    // MARK: Running the host

    /// Starts the plugin once (`tessera plugins list --start`) and reads its state.
    private func checkActive() async throws {
        let run = try await host(["plugins", "list", "--start", "--json"])
        let statuses = (try? JSONValue(parsing: run.output))?.arrayValue ?? []
        guard let status = statuses.first(where: { $0["id"]?.stringValue == id }) else {
            throw HostedPluginError(command: "plugins list --start", run)
        }
        guard status["state"]?.stringValue == "active" else {
            throw HostedPluginError("\(id) did not become active: it is \(status["state"]?.stringValue ?? "unknown")"
                + (status["reason"]?.stringValue.map { ": \($0)" } ?? ""))
        }
    }

    /// Runs `tessera` with `arguments` and this test's deployment and data, on a thread of its own
    /// (a test's tasks share a few threads; a child's run must not hold one).
    private func host(_ arguments: [String]) async throws -> HostRun {
        let command = [tessera] + arguments + ["--deployment", deployment, "--data", data]
        let outputs = directory + "/last-run"
        return try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try HostRun(command, outputs: outputs) }) }.start()
        }
    }

    private static func readManifest(_ path: String) throws -> JSONValue {
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw HostedPluginError("cannot read the manifest \(path)")
        }
        do { return try JSONValue(parsing: Array(bytes)) } catch {
            throw HostedPluginError("\(path) is not JSON: \(error)")
        }
    }

    /// `$TESSERA`, else `given`, else `tessera` on `PATH`.
    private static func findHost(given: String?) throws -> String {
        if let set = ProcessInfo.processInfo.environment["TESSERA"], !set.isEmpty { return set }
        if let given { return given }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(folder)/tessera") {
            return "\(folder)/tessera"
        }
        throw HostedPluginError("cannot find the tessera command: put it on PATH, or set TESSERA=/path/to/tessera")
    }

    /// The folder of the running test executable, where `swift test` leaves the plugin's library.
    private static var testExecutableFolder: String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return (executable as NSString).deletingLastPathComponent
    }

    /// The last line of the output, which `--json` commands print as their answer.
    private static func lastJSONLine(of run: HostRun, command: String) throws -> JSONValue {
        let line = run.output.split(separator: "\n").last.map(String.init) ?? ""
        guard let answer = try? JSONValue(parsing: line) else { throw HostedPluginError(command: command, run) }
        return answer
    }
}

/// Why a ``HostedPlugin`` could not do what it was asked: a sentence, with what the host printed.
public struct HostedPluginError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public let description: String

    init(_ description: String) { self.description = description }

    init(command: String, _ run: HostRun) {
        let said = (run.errors.isEmpty ? run.output : run.errors).trimmingCharacters(in: .whitespacesAndNewlines)
        description = "tessera \(command) failed (exit \(run.status))" + (said.isEmpty ? "" : ": \(said)")
    }
}
