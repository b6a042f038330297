import ArgumentParser
import Foundation
import TesseraHTTP
import TesseraSDK

/// `tessera account create|list|password|remove`: the people who sign in to this device's console
/// with a name and a password (docs/console.md, "Signing in"). Passwords are read from the first
/// line of standard input, never from an argument (which `ps` shows), and kept as yescrypt hashes
/// in `<data>/accounts.json`. A running server sees a change at its next sign-in.
struct Account: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account",
        abstract: "Manage the console's accounts (name and password; only a hash is stored).",
        discussion: "A device without a hub makes its first account from the console's sign-in page; these commands add more, reset a password, or remove one.",
        subcommands: [Create.self, List.self, Password.self, Remove.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "create", abstract: "Make an account; the password is read from the first line of stdin.")
        @Argument(help: "The person's name (1 to 100 characters; signing in ignores case).") var name: String
        @Option(name: .long, help: "user (their modules) or admin (also the operator's view).") var role: String = "user"
        @OptionGroup var host: HostArguments

        func run() async throws {
            try await reportingErrors {
                guard role == "user" || role == "admin" else { throw CLIError(code: .invalidInput, message: "role: expected user or admin, found '\(role)'") }
                let password = try Sync.passwordFromStandardInput()
                _ = try accountAction { try host.accounts().create(name: name, password: password, role: Principal.Role(rawValue: role)) }
                say("made the \(role) account '\(name)'")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the accounts: name, role, where the password comes from (never a hash).")
        @OptionGroup var host: HostArguments

        func run() async throws {
            try await reportingErrors {
                say("NAME".padding(toLength: 32, withPad: " ", startingAt: 0) + "ROLE   SOURCE")
                for account in try host.accounts().all() {
                    say(account.name.padding(toLength: 32, withPad: " ", startingAt: 0) + account.role.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0) + account.source)
                }
            }
        }
    }

    struct Password: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "password", abstract: "Set a new password for an account (read from the first line of stdin).")
        @Argument(help: "The account's name.") var name: String
        @OptionGroup var host: HostArguments

        func run() async throws {
            try await reportingErrors {
                let password = try Sync.passwordFromStandardInput()
                try accountAction { try host.accounts().setPassword(password, of: name) }
                say("set a new password for '\(name)'")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove an account; it cannot sign in from then on.")
        @Argument(help: "The account's name.") var name: String
        @OptionGroup var host: HostArguments

        func run() async throws {
            try await reportingErrors { try accountAction { try host.accounts().remove(name: name) } }
        }
    }
}

extension HostArguments {
    /// The accounts of the deployment's data directory.
    func accounts() throws -> LocalAccounts {
        LocalAccounts(dataDirectory: (try tokenStore()).dataDirectory)
    }
}

/// Runs an account action, reporting its failure with the CLI's exit codes.
func accountAction<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as AccountError {
        switch error {
        case .invalidName, .weakPassword: throw CLIError(code: .invalidInput, message: error.description)
        case .notFound: throw CLIError(code: .notFound, message: error.description)
        case .exists, .accountsExist: throw CLIError(code: .failure, message: error.description)
        }
    }
}
