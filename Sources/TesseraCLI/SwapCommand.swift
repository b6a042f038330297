import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TesseraManifest
import TesseraSDK

/// `tessera plugins swap ID PATH`: asks a running host to swap a plugin's code.
struct Swap: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Swap a running plugin's code for a new build, without stopping the host.",
        discussion: """
            Talks to the host serving the deployment (`tessera serve`) over its HTTP API, with an admin token \
            (--token, or $TESSERA_TOKEN). The host checks the build with the three gates, starts it beside the \
            running one, holds new calls, moves the in-memory state across and lets the calls through; on any \
            failure the running generation keeps serving and the reason is printed.
            """)
    @Argument(help: "The plugin's id.") var id: String
    @Argument(help: "The new build (.so).") var path: String
    @Option(name: .long, help: "The host's base URL (default: the deployment's http host and port).") var url: String?
    @Option(name: .long, help: "An admin token (default: $TESSERA_TOKEN).") var token: String?
    @OptionGroup var host: HostArguments
    @Flag(name: .long, help: "Print JSON.") var json = false

    func run() async throws {
        try await reportingErrors {
            guard let token = token ?? ProcessInfo.processInfo.environment["TESSERA_TOKEN"], !token.isEmpty else {
                throw CLIError(code: .forbidden, message: "an admin token is needed: pass --token or set TESSERA_TOKEN (tessera token rotate makes one)")
            }
            let library = URL(fileURLWithPath: path).standardizedFileURL.path
            guard FileManager.default.fileExists(atPath: library) else { throw CLIError(code: .notFound, message: "\(library): no such file") }
            let base = try url ?? defaultURL()
            let reply = try await Self.post(base + "/v1/plugins/\(id)/swap", body: ["library": .string(library)], token: token)
            if json { say(reply.serialized()); return }
            let pause = reply["pauseMilliseconds"]?.doubleValue ?? 0
            say(String(format: "%@: generation %lld serving (calls held %.2f ms, %lld bytes of state moved)", id,
                       reply["generation"]?.integerValue ?? 0, pause, reply["stateBytes"]?.integerValue ?? 0))
            if reply["restartRecommended"] == true {
                say("retired generations are over the deployment's hotSwap.retiredBudgetMB: restart the host when convenient")
            }
        }
    }

    func defaultURL() throws -> String {
        do {
            let deployment = try DeploymentReader.read(file: host.deploymentFile)
            let address = deployment.httpHost == "0.0.0.0" ? "127.0.0.1" : deployment.httpHost
            return "http://\(address):\(deployment.httpPort)"
        } catch {
            throw CLIError(code: .invalidDeployment, message: "deployment: \(error)")
        }
    }

    /// POSTs JSON with the token; the JSON reply, or the API's error as a CLI error.
    static func post(_ address: String, body: JSONValue, token: String) async throws -> JSONValue {
        guard let url = URL(string: address) else { throw CLIError(code: .invalidInput, message: "'\(address)' is not a URL") }
        var request = URLRequest(url: url, timeoutInterval: 60)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.httpBody = Data(body.serialized().utf8)
        let data: Data, response: URLResponse
        do { (data, response) = try await URLSession.shared.data(for: request) } catch {
            throw CLIError(code: .unavailable, message: "no host answers at \(address): \(error.localizedDescription) (is `tessera serve` running?)")
        }
        let reply = (try? JSONValue(parsing: Array(data))) ?? .null
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            let message = reply["error"]?["message"]?.stringValue ?? "HTTP \(status)"
            let code: CLIError.Code = switch status {
            case 400, 413, 415, 422: .invalidInput
            case 401, 403: .forbidden
            case 404: .notFound
            case 503: .unavailable
            default: .failure
            }
            throw CLIError(code: code, message: message)
        }
        return reply
    }
}
