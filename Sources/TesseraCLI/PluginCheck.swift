import Foundation
import TesseraClock
import TesseraLoader
import TesseraManifest
import TesseraRuntime
import TesseraSchema
import TesseraSDK

/// `tessera plugins check`: a plugin put through what a host will do with it, in a throwaway host
/// on a virtual clock, with the plugin in the process tier (its code never runs in this
/// command's process). Each step says what it did and what failed, so an author learns it before
/// an operator does:
///
/// 1. gate 1 on the file, against the manifest;
/// 2. a start with every capability the manifest asks for (the config made from its schema);
/// 3. each operation called with an input made from its input schema (``SchemaExample``), its
///    answer checked against its output schema;
/// 4. a day on the virtual clock, firing the timers the plugin scheduled;
/// 5. a hot swap onto its own build, carrying its state (when the manifest allows hot swap).
struct PluginCheck {
    let library: String
    let manifest: PluginManifest
    /// Says each step as it ends (a line for a person).
    let say: (String) -> Void

    /// One step's outcome.
    struct Finding {
        enum Kind: String { case passed, note, failed }
        let kind: Kind
        let step: String
        let text: String
    }

    /// Runs every step; the findings, in order.
    func run() async throws -> [Finding] {
        var findings: [Finding] = []
        func record(_ kind: Finding.Kind, _ step: String, _ text: String) {
            findings.append(Finding(kind: kind, step: step, text: text))
            say("\(kind == .failed ? "FAILED" : kind == .note ? "note" : "ok"): \(step): \(text)")
        }
        do {
            let verified = try FileGate.verify(path: library, manifest: manifest, host: .current)
            record(.passed, "gate 1", "sha256 \(verified.sha256.prefix(12)), \(verified.stamp.abiDescription)")
        } catch {
            // The refusal names its gate already ("gate 1 (file): …"): the step is the library's.
            record(.failed, "library", "\(error)")
            return findings
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-check-\(getpid())-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let (host, skipped) = try makeHost(in: scratch)
        for capability in skipped { record(.note, "start", "the \(capability) capability is not granted here: it needs a hub") }
        await host.start()
        let status = host.status(of: manifest.id)
        guard status?.state == .active else {
            record(.failed, "start", "the plugin is \(status?.state.rawValue ?? "missing"): \(status?.reason ?? "no reason given")")
            await host.stop()
            return findings
        }
        record(.passed, "start", "active in the process tier, with \(status?.grants.keys.sorted().joined(separator: ", ") ?? "no capabilities")")
        for operation in manifest.operations {
            let (kind, text) = await check(operation, on: host)
            record(kind, "operation \(operation.name)", text)
        }
        await checkTimers(on: host, record: record)
        if !manifest.hotSwap {
            record(.note, "hot swap", "not tried: the manifest says \"hotSwap\": false")
        } else {
            await checkSwap(on: host, record: record)
        }
        await host.stop()
        return findings
    }

    /// The plugin swapped onto its own build while the host runs, its state carried across.
    private func checkSwap(on host: PluginHost, record: (Finding.Kind, String, String) -> Void) async {
        do {
            let report = try await host.swap(manifest.id, to: .library(library))
            record(.passed, "hot swap", "onto its own build: generation \(report.generation), \(report.stateBytes) bytes of state carried")
        } catch {
            record(.failed, "hot swap", "\(error)")
        }
    }

    /// Calls `operation` with an input made from its schema, as a person of a role it allows.
    private func check(_ operation: OperationDeclaration, on host: PluginHost) async -> (Finding.Kind, String) {
        if operation.file != nil { return (.note, "not called: it sends or takes a file") }
        guard let input = SchemaExample.make(operation.inputSchemaDocument), operation.inputSchema.validate(input).isEmpty else {
            return (.note, "not called: no input can be made from its schema; give its patterned fields an \"examples\" value")
        }
        let principal = Principal(id: "check", role: operation.roles.contains(.user) ? .user : .admin)
        do {
            let answer = try await host.call(manifest.id, operation.name, input: input, as: principal)
            if let schema = try? JSONSchema(operation.outputSchemaDocument), let violation = schema.validate(answer).first {
                return (.failed, "the answer does not match the output schema: \(violation) (input \(input.serialized()))")
            }
            return (.passed, "answered (input \(input.serialized()))")
        } catch {
            // A refusal of an input the schema allows is the plugin's own rule, and a service out of
            // reach or a capability withheld here is the world's: worth knowing, not a fault.
            let refusals: Set<PluginError.Code> = [.invalidInput, .notFound, .conflict, .forbidden, .notLoggedIn, .notGranted,
                                                   .unavailable, .hubUnreachable]
            if refusals.contains(error.code) { return (.note, "refused \(error.code.rawValue): \(error.message) (input \(input.serialized()))") }
            return (.failed, "\(error.code.rawValue): \(error.message) (input \(input.serialized()))")
        }
    }

    /// A day on the virtual clock: every timer the plugin scheduled fires, and each must run.
    private func checkTimers(on host: PluginHost, record: (Finding.Kind, String, String) -> Void) async {
        let firings: [TimerScheduler.Firing]
        do { firings = try await host.advanceClock(by: 86_400) } catch {
            record(.failed, "timers", "the virtual clock could not be moved: \(error)")
            return
        }
        let mine = firings.filter { $0.timer.plugin == manifest.id }
        if mine.isEmpty { record(.note, "timers", "none fell due in a day on the virtual clock") }
        // One line a timer: a job that runs hourly fires 24 times.
        for name in Set(mine.map(\.timer.name)).sorted() {
            let fired = mine.filter { $0.timer.name == name }
            let problems = fired.compactMap { firing -> String? in
                switch firing.outcome {
                case .delivered: nil
                case .failed(let reason): "at \(firing.firedAt.formatted(.iso8601)): \(reason)"
                case .deferred: "at \(firing.firedAt.formatted(.iso8601)): the plugin could not take it"
                }
            }
            if let first = problems.first {
                record(.failed, "timer \(name)", "\(problems.count) of \(fired.count) firings failed; the first \(first)")
            } else {
                record(.passed, "timer \(name)", fired.count == 1 ? "fired at \(fired[0].firedAt.formatted(.iso8601)) and ran"
                                                                    : "fired \(fired.count) times in the day, and ran each time")
            }
        }
    }

    /// A host of its own in `folder`: the manifest (pointing at the library), and a deployment
    /// granting every capability the manifest asks for but sync, on a virtual clock. Returns the
    /// capabilities left out.
    private func makeHost(in folder: String) throws -> (PluginHost, [String]) {
        let manifests = folder + "/manifests"
        try FileManager.default.createDirectory(atPath: manifests, withIntermediateDirectories: true)
        var document = manifest.document.objectValue ?? [:]
        document["library"] = ["path": .string(URL(fileURLWithPath: library).standardizedFileURL.path)]
        document.removeValue(forKey: "$schema")
        try Data(JSONValue.object(document).prettySerialized().utf8).write(to: URL(fileURLWithPath: manifests + "/plugin.json"))
        var grants: [String: JSONValue] = [:]
        var skipped: [String] = []
        for requirement in manifest.requires {
            if requirement.capability == "sync" { skipped.append("sync"); continue }
            grants[requirement.capability] = [:]
        }
        var entry: [String: JSONValue] = ["id": .string(manifest.id), "grants": .object(grants), "isolation": "process"]
        if let schema = manifest.configSchema, let config = SchemaExample.make(schema.source) { entry["config"] = config }
        let deployment: JSONValue = [
            "name": "check", "role": "device", "dataDirectory": .string(folder + "/data"), "manifestDirectories": [.string(manifests)],
            "providers": ["storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": "2026-03-02T08:00:00Z"]],
            "plugins": [.object(entry)],
        ]
        let file = folder + "/deployment.json"
        try Data(deployment.prettySerialized().utf8).write(to: URL(fileURLWithPath: file))
        let host = try PluginHost(deployment: DeploymentReader.read(file: file), options: HostOptions(dataDirectory: folder + "/data"))
        return (host, skipped)
    }
}
