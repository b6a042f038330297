import ArgumentParser
import Foundation
import TesseraLoader
import TesseraManifest
import TesseraRuntime
import TesseraSDK

/// `tessera plugins list|why|verify`
struct Plugins: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List plugins, explain a plugin's state, verify plugin libraries.",
        subcommands: [List.self, Why.self, Verify.self, Check.self, Swap.self, Restart.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the deployment's plugins with state, reason, version and grants.",
            discussion: "By default only the checks that run no plugin code (manifest, deployment, grants, gate 1); --start loads and starts each plugin as `serve` would; --running asks the host that `tessera serve` runs, with its generations and the retired ones it keeps mapped.")
        @OptionGroup var host: HostArguments
        @Flag(name: .long, help: "Print JSON.") var json = false
        @Flag(name: .long, help: "Load and start the plugins, to show the states that needs (active, failed).") var start = false
        @Flag(name: .long, help: "Ask the running host (tessera serve) instead, over its HTTP API.") var running = false
        @OptionGroup var runningHost: RunningHostArguments

        func run() async throws {
            try await reportingErrors {
                if running { return try await listRunning() }
                // A host serving this data: its states are the true ones (issue 46).
                if let serving = self.host.runningHost() {
                    guard runningHost.hasToken else { throw Plugins.askTheRunningHost(serving, command: "plugins list --running") }
                    return try await listRunning()
                }
                let host = try self.host.makeHost()
                await host.start(until: start ? .active : .validated)
                let statuses = host.statuses()
                await host.stop()
                if json {
                    say(JSONValue.array(statuses.map(\.json)).prettySerialized())
                } else {
                    say(PluginTable.render(statuses))
                }
                // A module the deployment enables and the host refused is the operator's to fix:
                // said, and the exit code says it to a script (issue 46).
                let refused = statuses.filter { [.rejected, .failed].contains($0.state) }
                if !refused.isEmpty {
                    throw CLIError(code: .invalidDeployment, message: refused.map { "\($0.id) is \($0.state.rawValue): \($0.reason ?? "see tessera plugins why \($0.id)")" }
                        .joined(separator: "; "))
                }
            }
        }

        /// The running host's view: `GET /v1/plugins`, and whether a restart is recommended.
        func listRunning() async throws {
            let reply = try await runningHost.client(deployment: host).request("GET", "/v1/plugins")
            if json { say(reply.prettySerialized()); return }
            let statuses = (reply["plugins"]?.arrayValue ?? []).compactMap(PluginStatus.init(json:))
            say(PluginTable.render(statuses))
            if reply["restartRecommended"] == true {
                say("retired generations keep more code mapped than the deployment's hotSwap.retiredBudgetMB: restart the host when convenient")
            }
        }
    }

    struct Why: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "why",
            abstract: "Explain one plugin's state: every step it went through and what each found.",
            discussion: "Loads and starts the plugin (only that one) to find out.")
        @Argument(help: "The plugin id.") var plugin: String
        @OptionGroup var host: HostArguments
        @Flag(name: .long, help: "Print JSON.") var json = false
        @OptionGroup var runningHost: RunningHostArguments

        func run() async throws {
            try await reportingErrors {
                // Never a second copy of the plugin against a running host's live data (issue 46).
                if let serving = self.host.runningHost() {
                    guard runningHost.hasToken else { throw Plugins.askTheRunningHost(serving, command: "plugins why \(plugin) --token …") }
                    return try await explainRunning()
                }
                let host = try self.host.makeHost(onlyPlugins: [plugin])
                await host.start()
                let status = host.status(of: plugin)
                await host.stop()
                guard let status else {
                    throw CLIError(code: .notFound, message: "no plugin '\(plugin)': it is neither in the deployment nor in any manifest")
                }
                explain(status)
            }
        }

        /// The running host's view of the plugin, from `GET /v1/plugins`.
        func explainRunning() async throws {
            let reply = try await runningHost.client(deployment: host).request("GET", "/v1/plugins")
            guard let status = (reply["plugins"]?.arrayValue ?? []).compactMap(PluginStatus.init(json:)).first(where: { $0.id == plugin }) else {
                throw CLIError(code: .notFound, message: "no plugin '\(plugin)' in the running host")
            }
            explain(status)
        }

        func explain(_ status: PluginStatus) {
            if json { say(status.json.prettySerialized()); return }
            say("\(status.id) \(status.version ?? "") — \(status.state.rawValue)")
            if let reason = status.reason { say("reason: \(reason)") }
            for (i, step) in status.history.enumerated() { say("  \(i + 1). \(step)") }
        }
    }

    /// Said instead of loading plugins against the live data of a host that serves it.
    static func askTheRunningHost(_ serving: RunningHostFile.Announcement, command: String) -> CLIError {
        let who = serving.pid > 0 ? "a host (pid \(serving.pid)\(serving.url.isEmpty ? "" : ", \(serving.url)"))" : "a host"
        return CLIError(code: .hostRunning, message: "\(who) serves this data directory, and its plugins' states are its own: "
                        + "ask it with `tessera \(command)`, with --token or TESSERA_TOKEN (an admin token)")
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Check plugin libraries: gate 1 (file: sha256, stamp, link lint), which runs no plugin code; gates 2 (dlopen) and 3 (handshake) with --load, in a throwaway child process.",
            discussion: "Exits 0 when every library passes, 1 otherwise.")
        @Argument(help: "Plugin library files (.so).") var paths: [String]
        @Option(name: .long, help: "A manifest to check the library against (its sha256 pin, sdk fields and id).") var manifest: String?
        @Flag(name: .long, help: "Also load the library and shake hands with it (runs its constructors and entry symbol, in a child process).") var load = false
        @Flag(name: .long, help: "Print JSON.") var json = false

        func run() async throws {
            try await reportingErrors {
                var parsed: PluginManifest?
                if let manifest {
                    do { parsed = try ManifestReader.read(file: manifest) } catch {
                        throw CLIError(code: .invalidDeployment, message: "manifest: \(error)")
                    }
                }
                var results: [JSONValue] = []
                var failures = 0
                for path in paths {
                    let result = verify(path, manifest: parsed)
                    if result["ok"] != .bool(true) { failures += 1 }
                    results.append(result)
                }
                if json { say(JSONValue.array(results).prettySerialized()) }
                if failures > 0 { throw ExitCode(1) }
            }
        }

        func verify(_ path: String, manifest: PluginManifest?) -> JSONValue {
            var out: [String: JSONValue] = ["path": .string(path)]
            do {
                let library = try FileGate.verify(path: path, manifest: manifest, host: .current)
                out["sha256"] = .string(library.sha256)
                out["stampedABI"] = .string("\(library.stamp.sdkABIMajor).\(library.stamp.sdkABIMinor)")
                out["toolchain"] = .string(library.stamp.toolchain)
                report("\(path): gate 1 ok (sha256 \(library.sha256.prefix(12)), \(library.stamp.abiDescription))")
                if load {
                    // Load a content-addressed copy, as the host would, in a folder removed afterwards,
                    // and in a child process: loading runs the library's code (its constructors, then
                    // its entry symbol), which must not run in this command's process.
                    let staging = NSTemporaryDirectory() + "tessera-verify-\(getpid())"
                    defer { try? FileManager.default.removeItem(atPath: staging) }
                    let staged = try GenerationStore(root: staging).stage(path)
                    let answer = try IsolatedGates.verify(stagedPath: staged.path, expectedID: manifest?.id)
                    out["pluginID"] = .string(answer.pluginID)
                    out["childPID"] = .integer(Int64(answer.childPID))
                    report("\(path): gate 2 ok (dlopen, in child process \(answer.childPID))")
                    report("\(path): gate 3 ok (handshake: \(answer.pluginID), ABI \(answer.abi), in child process \(answer.childPID))")
                }
                out["ok"] = true
            } catch {
                out["ok"] = false
                out["error"] = .string("\(error)")
                FileHandle.standardError.write(Data("tessera: \(path): \(error)\n".utf8))
            }
            return .object(out)
        }

        func report(_ line: String) { if !json { say(line) } }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Put a plugin through what a host will do with it: gate 1, a start with every capability it asks for, each operation called with an input made from its schema, a day of its timers on a virtual clock, and a hot swap onto itself.",
            discussion: "It runs in a throwaway host, with the plugin in the process tier, and prints each step. Exits 0 when nothing failed, 1 otherwise. An operation that refuses a made-up input with its own rule (invalid_input, not_found, …), or answers that its service is out of reach, is a note, not a failure. HTTP requests go out for real, to the hosts the manifest names; sync is not granted (it needs a hub).")
        @Argument(help: "The plugin's library (.so).") var library: String
        @Option(name: .long, help: "The plugin's manifest.") var manifest: String
        @Flag(name: .long, help: "Print the findings as JSON.") var json = false

        func run() async throws {
            try await reportingErrors {
                let parsed: PluginManifest
                do { parsed = try ManifestReader.read(file: manifest) } catch {
                    throw CLIError(code: .invalidDeployment, message: "manifest: \(error)")
                }
                let findings = try await PluginCheck(library: library, manifest: parsed, say: { if !json { say($0) } }).run()
                let failed = findings.filter { $0.kind == .failed }.count
                if json {
                    say(JSONValue.array(findings.map { ["result": .string($0.kind.rawValue), "step": .string($0.step), "text": .string($0.text)] })
                        .prettySerialized())
                } else {
                    say(failed == 0 ? "\(parsed.id): every check passed (\(findings.count) steps)"
                                    : "\(parsed.id): \(failed) of \(findings.count) steps failed")
                }
                if failed > 0 { throw ExitCode(1) }
            }
        }
    }
}

/// Plugin statuses as a table for people.
enum PluginTable {
    static func render(_ statuses: [PluginStatus]) -> String {
        guard !statuses.isEmpty else { return "no plugins" }
        var rows = [["ID", "VERSION", "STATE", "GEN", "GRANTS", "REASON"]]
        for s in statuses {
            rows.append([s.id, s.version ?? "-", s.state.rawValue, s.generation > 0 ? "\(s.generation) (+\(s.retiredGenerations) retired\(s.retiredBytes > 0 ? ", \(s.retiredBytes / 1024) KiB mapped" : ""))" : "-",
                         s.grants.keys.sorted().joined(separator: ",").ifEmpty("-"), s.reason ?? ""])
        }
        let widths = (0..<rows[0].count - 1).map { c in rows.map { $0[c].count }.max() ?? 0 }
        return rows.map { row in
            (0..<row.count).map { c in c < widths.count ? row[c].padding(toLength: widths[c], withPad: " ", startingAt: 0) : row[c] }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }
}

extension String {
    func ifEmpty(_ replacement: String) -> String { isEmpty ? replacement : self }
}
