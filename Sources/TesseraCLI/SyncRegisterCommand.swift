import ArgumentParser
import Foundation
import TesseraHTTP
import TesseraRuntime
import TesseraSyncClient

extension Sync {
    /// `tessera sync register EMAIL`: UC1 from the device — the hub's open registration and this
    /// device's login in one command.
    struct Register: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "register",
            abstract: "Create an account at the hub and log this device in as it; the password is read from the first line of stdin.",
            discussion: "The hub must have open registration (hub.registration \"open\"). The account's name is the e-mail address, lowercased: log in with it later (tessera sync login EMAIL). Exit 2 for a refused field (weak password, bad address, terms not accepted), 4 for registration closed or an address already taken, 5 when the hub cannot be reached.")
        @Argument(help: "The e-mail address: the account's name.") var email: String
        @Option(name: .long, help: "The person's first name.") var firstName: String
        @Option(name: .long, help: "The person's surname.") var surname: String
        @Flag(name: .long, help: "Accept the hub's terms (required to register).") var acceptTerms = false
        @Option(name: .long, help: "A name for this device (default: the host name).") var device: String?
        @OptionGroup var host: HostArguments

        func run() async throws {
            try await reportingErrors {
                let password = try Sync.passwordFromStandardInput()
                let host = try self.host.makeHost(onlyPlugins: [])
                let registration = HubRegistration(firstName: firstName, surname: surname, email: email, password: password,
                                                   acceptTerms: acceptTerms, device: device ?? ProcessInfo.processInfo.hostName)
                let person = try await Sync.hubCall { try await host.syncRegister(registration) }
                do { try LocalAccounts(dataDirectory: host.options.dataDirectory).keepHubPassword(name: person.name, password: password) } catch {
                    warn("the console sign-in for \(person.name) could not be kept (\(error)): they cannot sign in to the console with that password")
                }
                say("registered at \(host.deployment.sync?.hub ?? "?") as \(person.name) (person \(person.id)); this device is logged in")
            }
        }
    }

    /// The password on the first line of standard input (never an argument, which `ps` shows).
    static func passwordFromStandardInput() throws -> String {
        guard let password = readLine(strippingNewline: true), !password.isEmpty else {
            throw CLIError(code: .invalidInput, message: "give the password on the first line of stdin")
        }
        return password
    }

    /// Runs a call to the hub's account routes, turning its refusal into the CLI's exit code: a
    /// refused field is invalid input (2), a refusal of the account itself forbidden (4), no
    /// answer unavailable (5). The message names the hub's code and field.
    static func hubCall<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as SyncClientError {
            let code: CLIError.Code = switch error.status {
            case 0, 500...: .unavailable
            case 400: .invalidInput
            default: .forbidden
            }
            throw CLIError(code: code, message: error.field.map { "\(error.code): \($0): \(error.message)" } ?? "\(error)")
        }
    }
}
