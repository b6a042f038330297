import ArgumentParser
import Foundation
import TesseraSDK

/// `tessera plugins restart ID`: asks a running host to restart a process-tier plugin now,
/// clearing its crash record (how an operator lifts a quarantine; docs/isolation.md).
struct Restart: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restart",
        abstract: "Restart a process-tier plugin in a running host, lifting its quarantine.",
        discussion: """
            Talks to the host serving the deployment (`tessera serve`) over its HTTP API, with an admin token \
            (--token, or $TESSERA_TOKEN): POST /v1/plugins/ID/restart. The host forgets the plugin's recent \
            crashes and starts a new child at once. A plugin in the host's own process cannot be restarted \
            this way (exit 1, HTTP 409).
            """)
    @Argument(help: "The plugin's id.") var id: String
    @OptionGroup var running: RunningHostArguments
    @OptionGroup var host: HostArguments
    @Flag(name: .long, help: "Print JSON.") var json = false

    func run() async throws {
        try await reportingErrors {
            let client = try running.client(deployment: host)
            let reply = try await client.request("POST", "/v1/plugins/\(id)/restart")
            if json { say(reply.serialized()); return }
            let pid = reply["pid"]?.integerValue.map { ", process \($0)" } ?? ""
            say("\(id): \(reply["state"]?.stringValue ?? "unknown")\(pid)")
        }
    }
}
