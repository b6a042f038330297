import ArgumentParser
import Foundation
import TesseraSDK

/// `tessera reload`: asks a running host to read its deployment file again and apply what
/// changed in its plugins (docs/operating.md, "Reloading").
struct Reload: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract: "Apply the deployment file's changes to a running host, without a restart.",
        discussion: """
            Talks to the host serving the deployment (`tessera serve`) over its HTTP API, with an admin token \
            (--token, or $TESSERA_TOKEN): POST /v1/deployment/reload. The host reads the file again; plugins newly \
            enabled start, plugins disabled stop, plugins whose grants or config changed move to the new entry \
            through a hot swap, and the others serve on untouched. A file that does not check, or that changes a \
            setting only a restart applies (providers, http, dataDirectory…), is refused (exit 6) and the host \
            keeps the deployment in force. SIGHUP to the host (systemctl reload tessera) does the same.
            """)
    @OptionGroup var running: RunningHostArguments
    @OptionGroup var host: HostArguments
    @Flag(name: .long, help: "Print JSON.") var json = false

    func run() async throws {
        try await reportingErrors {
            let client = try running.client(deployment: host)
            let reply: JSONValue
            do { reply = try await client.request("POST", "/v1/deployment/reload") } catch let error as CLIError where [.failure, .invalidInput].contains(error.code) {
                // 409 and 422: the file was refused; the host serves on with the deployment in force.
                throw CLIError(code: .invalidDeployment, message: error.message)
            }
            if json { say(reply.serialized()); return }
            say(Self.describe(reply))
        }
    }

    /// The report in sentences, one line a kind of change.
    static func describe(_ reply: JSONValue) -> String {
        func ids(_ key: String) -> [String] { reply[key]?.arrayValue?.compactMap(\.stringValue) ?? [] }
        var lines: [String] = []
        for (key, verb) in [("started", "started"), ("stopped", "stopped"), ("reconfigured", "now serving with its new entry"),
                            ("retried", "tried again")] where !ids(key).isEmpty {
            lines.append("\(verb): \(ids(key).joined(separator: ", "))")
        }
        for (id, why) in (reply["notServing"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            lines.append("not serving: \(id): \(why.stringValue ?? "")")
        }
        let file = reply["deployment"]?.stringValue ?? "the deployment"
        return lines.isEmpty ? "\(file): nothing changed in its plugins" : "\(file) applied\n  " + lines.joined(separator: "\n  ")
    }
}
