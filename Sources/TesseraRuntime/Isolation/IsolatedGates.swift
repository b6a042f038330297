import Foundation
import TesseraIsolation
import TesseraLoader
import TesseraSDK

/// Gates 2 and 3 in a throwaway child (`tessera-plugin-runner verify`): `dlopen` runs a library's
/// constructors and the handshake runs its entry symbol, so a library that is only being checked
/// never runs code in the checking process (docs/plugin-boundary.md, docs/isolation.md).
public enum IsolatedGates {
    /// What the child found.
    public struct Answer: Sendable {
        /// The id the plugin reported at the handshake.
        public let pluginID: String
        /// The SDK ABI it reported, `major.minor`.
        public let abi: String
        /// The child's process id (it has exited by now).
        public let childPID: Int32
    }

    /// Runs gates 2 and 3 on `stagedPath` in a child and waits for it.
    public static func verify(stagedPath: String, expectedID: String?) throws -> Answer {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: PluginRunnerExecutable.path)
        process.arguments = ["verify", stagedPath] + (expectedID.map { ["--id", $0] } ?? [])
        let output = Pipe()
        process.standardOutput = output
        do { try process.run() } catch {
            throw GateRefusal(gate: 2, field: "runner", expected: "the plugin runner at \(PluginRunnerExecutable.path)",
                              found: "\(error)", hint: "build it with `swift build` (product tessera-plugin-runner), or set TESSERA_PLUGIN_RUNNER")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
        guard let answer = try? JSONValue(parsing: line) else {
            throw GateRefusal(gate: 2, field: "dlopen", expected: "the library loaded in a child process",
                              found: "the child \(ChildExit(process: process)) before it answered")
        }
        if let refused = answer["refused"] { throw GateRefusal(wire: refused) }
        return Answer(pluginID: answer["pluginID"]?.stringValue ?? "", abi: answer["abi"]?.stringValue ?? "",
                      childPID: Int32(answer["pid"]?.integerValue ?? Int64(process.processIdentifier)))
    }
}
