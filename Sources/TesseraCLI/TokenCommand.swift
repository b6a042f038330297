import ArgumentParser
import Foundation
import TesseraHTTP
import TesseraManifest
import TesseraSDK

/// `tessera token rotate|create|list|revoke`: the HTTP API's bearer tokens, kept as SHA-256 hashes
/// in `<data>/http-tokens.json`. A new token's secret is printed once, alone on stdout (so
/// `TOKEN=$(tessera token rotate)` works), and stored nowhere.
struct Token: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Manage the HTTP API's bearer tokens (only their SHA-256 is stored).",
        discussion: "A device host makes its admin token on first `serve` and prints it once. A running server sees changes at once.",
        subcommands: [Rotate.self, Create.self, List.self, Revoke.self])

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate",
            abstract: "Replace a token's secret (the admin token by default) and print the new one; the old one stops working.")
        @Argument(help: "The token's name.") var name: String = "admin"
        @OptionGroup var host: HostArguments

        func run() async throws {
            try await reportingErrors { say(try tokenAction { try host.tokenStore().rotate(name: name) }) }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "create", abstract: "Make a new token and print its secret.")
        @Argument(help: "The token's name: calls made with it run as the principal with this id.") var name: String
        @Option(name: .long, help: "user, admin, or metrics (reads GET /metrics and nothing else).") var role: String = "user"
        @OptionGroup var host: HostArguments

        func run() async throws {
            try await reportingErrors {
                say(try tokenAction { try host.tokenStore().create(name: name, role: Principal.Role(rawValue: role)) })
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the tokens: name, role, when made (never a secret).")
        @OptionGroup var host: HostArguments
        @Flag(name: .long, help: "Print JSON.") var json = false

        func run() async throws {
            try await reportingErrors {
                let records = try tokenAction { try host.tokenStore().list() }
                if json {
                    let rows = records.map { JSONValue.object(["name": .string($0.name), "role": .string($0.role.rawValue), "created": .string($0.created)]) }
                    say(JSONValue.array(rows).prettySerialized())
                } else {
                    say("NAME".padding(toLength: 24, withPad: " ", startingAt: 0) + "ROLE   CREATED")
                    for r in records {
                        say(r.name.padding(toLength: 24, withPad: " ", startingAt: 0) + r.role.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0) + r.created)
                    }
                }
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Delete a token; requests with it get 401 from then on.")
        @Argument(help: "The token's name.") var name: String
        @OptionGroup var host: HostArguments

        func run() async throws {
            try await reportingErrors { try tokenAction { try host.tokenStore().revoke(name: name) } }
        }
    }
}

/// Runs a token-file action, reporting its failure with the CLI's exit codes.
func tokenAction<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as TokenStoreError {
        switch error {
        case .invalidName, .invalidRole: throw CLIError(code: .invalidInput, message: error.description)
        case .notFound: throw CLIError(code: .notFound, message: error.description)
        default: throw CLIError(code: .failure, message: error.description)
        }
    }
}

extension HostArguments {
    /// The token store of the data directory the host would use, without opening the host: the
    /// same rule as ``makeHost(onlyPlugins:)`` (`--data`, else the deployment's, else `.tessera/<name>`).
    func tokenStore() throws -> TokenStore {
        let deployment: Deployment
        do { deployment = try DeploymentReader.read(file: deploymentFile) } catch {
            throw CLIError(code: .invalidDeployment, message: "deployment: \(error)")
        }
        return TokenStore(dataDirectory: data ?? deployment.dataDirectory ?? ".tessera/\(deployment.name)")
    }
}
