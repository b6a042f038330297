import Foundation
import TesseraTestFixtures

/// docs/plugin-guide.md as its reader meets it: the fenced blocks of a step, and its shell commands
/// run as typed. `NewPluginTests` walks the guide with them, so a step the guide gets wrong fails.
///
/// The reader's `~/src` (and `/home/me/src` in the guide's JSON) is a temporary folder here, and
/// `tessera` is this build's executable; nothing else of a command is changed.
struct PluginGuide {
    let text: String
    /// The folder that stands for the reader's `~/src`.
    let source: String

    init(source: String) throws {
        text = try String(contentsOfFile: Fixtures.repositoryRoot + "/docs/plugin-guide.md", encoding: .utf8)
        self.source = source
    }

    /// The fenced blocks of `language` (`sh`, `json`) in the step whose heading starts with
    /// `heading` ("1. Generate"), in order, with the reader's folders put in.
    func blocks(_ language: String, inStep heading: String) -> [String] {
        var blocks: [String] = [], inStep = false, current: [Substring]? = nil
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.hasPrefix("## ") { inStep = line.dropFirst(3).hasPrefix(heading) }
            guard inStep else { continue }
            if current == nil, line == "```\(language)" {
                current = []
            } else if let block = current, line == "```" {
                blocks.append(located(block.joined(separator: "\n")))
                current = nil
            } else if current != nil {
                current?.append(line)
            }
        }
        return blocks
    }

    /// A shell block's commands: one per line, the guide's comments (`  # → …`) taken off.
    static func commands(_ block: String) -> [String] {
        block.split(separator: "\n").map { line in
            String(line.replacing(/\s+#\s.*$/, with: "")).trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
    }

    /// Runs one of the guide's commands with bash in `directory`, as the reader's shell would,
    /// `tessera` being this build's. A leading `cd DIR &&` moves `directory` for the commands after
    /// it, as it moves the reader's shell.
    func run(_ command: String, in directory: inout String) async throws -> ProcessResult {
        var command = command
        if let move = command.firstMatch(of: /^cd (\S+) && (.*)$/) {
            directory = String(move.1)
            command = String(move.2)
        }
        return try await runDetached("/bin/bash", ["-c", Self.shellPrelude + command], directory: directory)
    }

    /// A bash script that becomes the guide's `tessera …` command (`exec`), for a command that
    /// runs until it is stopped: a signal sent to the script's process then reaches `tessera`.
    static func replacingTheShell(with command: String) -> String {
        precondition(command.hasPrefix("tessera "), "not a tessera command: \(command)")
        return "exec '\(Fixtures.tesseraExecutable)' " + command.dropFirst("tessera ".count)
    }

    /// The reader's `tessera` on their PATH: this build's executable.
    static var shellPrelude: String { "set -e; tessera() { '\(Fixtures.tesseraExecutable)' \"$@\"; }; " }

    private func located(_ text: String) -> String {
        text.replacingOccurrences(of: "~/src", with: source).replacingOccurrences(of: "/home/me/src", with: source)
    }
}
