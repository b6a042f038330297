import ArgumentParser
import Foundation
import TesseraOnDemand
import TesseraManifest
import TesseraSDK

/// How to reach the host that `tessera serve` runs: its URL and an admin token.
struct RunningHostArguments: ParsableArguments {
    @Option(name: .long, help: "The running host's base URL (default: the deployment's http host and port).") var url: String?
    @Option(name: .long, help: "An admin token (default: $TESSERA_TOKEN).") var token: String?

    /// Whether a token was given (`--token` or `TESSERA_TOKEN`).
    var hasToken: Bool { !(token ?? ProcessInfo.processInfo.environment["TESSERA_TOKEN"] ?? "").isEmpty }

    /// The client for the host serving `deployment`.
    func client(deployment: HostArguments) throws -> RunningHost {
        guard let token = token ?? ProcessInfo.processInfo.environment["TESSERA_TOKEN"], !token.isEmpty else {
            throw CLIError(code: .forbidden, message: "an admin token is needed: pass --token or set TESSERA_TOKEN (tessera token rotate makes one)")
        }
        if let url { return RunningHost(base: url, token: token) }
        // The host serving the deployment's data says where it listens, `--port` or not.
        if let running = deployment.runningHost(), !running.url.isEmpty {
            return RunningHost(base: running.url.hasSuffix("/") ? String(running.url.dropLast()) : running.url, token: token)
        }
        do {
            let deployment = try DeploymentReader.read(file: deployment.deploymentFile)
            let address = deployment.httpHost == "0.0.0.0" ? "127.0.0.1" : deployment.httpHost
            return RunningHost(base: "http://\(address):\(deployment.httpPort)", token: token)
        } catch {
            throw CLIError(code: .invalidDeployment, message: "deployment: \(error)")
        }
    }
}

/// A running host's HTTP API, as the CLI uses it.
struct RunningHost {
    let base: String
    let token: String

    /// Sends a request with the token; the JSON reply, or the API's error as a CLI error.
    func request(_ method: String, _ path: String, body: JSONValue? = nil) async throws -> JSONValue {
        guard let url = URL(string: base + path) else { throw CLIError(code: .invalidInput, message: "'\(base)' is not a URL") }
        var headers: [(name: String, value: String)] = [(name: "Authorization", value: "Bearer \(token)")]
        if body != nil { headers.append((name: "Content-Type", value: "application/json")) }
        let response: HTTPExchange.Response
        do {
            response = try await HTTPExchange(method, url, headers: headers, body: body.map { Array($0.serialized().utf8) } ?? [], timeout: 60).send()
        } catch {
            throw CLIError(code: .noHostAnswers, message: "no host answers at \(base): \(error.localizedDescription) (is `tessera serve` running?)")
        }
        let reply = (try? JSONValue(parsing: response.body)) ?? .null
        let status = response.status
        guard (200..<300).contains(status) else {
            throw CLIError(code: Self.code(forStatus: status), message: reply["error"]?["message"]?.stringValue ?? "HTTP \(status)")
        }
        return reply
    }

    static func code(forStatus status: Int) -> CLIError.Code {
        switch status {
        case 400, 413, 415, 422: .invalidInput
        case 401, 403: .forbidden
        case 404: .notFound
        case 503: .unavailable
        default: .failure
        }
    }
}

/// `tessera plugins swap ID PATH`: asks a running host to swap a plugin's code.
struct Swap: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swap",
        abstract: "Swap a running plugin's code for a new build, without stopping the host.",
        discussion: """
            Talks to the host serving the deployment (`tessera serve`) over its HTTP API, with an admin token \
            (--token, or $TESSERA_TOKEN). The host checks the build with the three gates, starts it beside the \
            running one, holds new calls, moves the in-memory state across and lets the calls through; on any \
            failure the running generation keeps serving and the reason is printed.
            """)
    @Argument(help: "The plugin's id.") var id: String
    @Argument(help: "The new build (.so).") var path: String
    @OptionGroup var running: RunningHostArguments
    @OptionGroup var host: HostArguments
    @Flag(name: .long, help: "Print JSON.") var json = false

    func run() async throws {
        try await reportingErrors {
            let client = try running.client(deployment: host)
            let library = URL(fileURLWithPath: path).standardizedFileURL.path
            guard FileManager.default.fileExists(atPath: library) else { throw CLIError(code: .notFound, message: "\(library): no such file") }
            let reply = try await client.request("POST", "/v1/plugins/\(id)/swap", body: ["library": .string(library)])
            if json { say(reply.serialized()); return }
            let pause = reply["pauseMilliseconds"]?.doubleValue ?? 0
            say(String(format: "%@: generation %lld serving (calls held %.2f ms, %lld bytes of state moved)", id,
                       reply["generation"]?.integerValue ?? 0, pause, reply["stateBytes"]?.integerValue ?? 0))
            if reply["restartRecommended"] == true {
                say("retired generations are over the deployment's hotSwap.retiredBudgetMB: restart the host when convenient")
            }
        }
    }
}
