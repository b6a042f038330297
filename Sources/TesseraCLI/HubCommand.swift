import ArgumentParser
import Foundation
import TesseraHub
import TesseraManifest

/// `tessera hub person add|password NAME`, `tessera hub person quota NAME MB`, `tessera hub person list`: the hub's accounts, on the hub's own store (`<data>/hub.sqlite`;
/// a running hub sees the new person at once). The same as `POST /v1/hub/people` with the admin
/// token (docs/hub.md).
struct Hub: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hub",
        abstract: "Manage a hub deployment's people (docs/hub.md).",
        subcommands: [Person.self])

    struct Person: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "person", abstract: "The hub's people.", subcommands: [Add.self, Password.self, List.self, Quota.self])

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "add",
                abstract: "Create a person; the password is read from the first line of stdin, never from an argument.",
                discussion: "printf '%s\\n' \"$PASSWORD\" | tessera hub person add ada --deployment manifests/deployments/hub.json")
            @Argument(help: "The person's name (what they log in with).") var name: String
            @OptionGroup var host: HostArguments

            func run() async throws {
                try await reportingErrors {
                    let store = try await host.hubStore()
                    let password = try Hub.passwordFromStdin()
                    let person = try await Hub.refusals { try await store.createPerson(name: name, password: password) }
                    say("created \(person.name) (\(person.id))")
                }
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list",
                abstract: "Everyone on the hub: name, id, devices logged in, when one last reached the hub.")
            @Flag(help: "One JSON object per person.") var json = false
            @OptionGroup var host: HostArguments

            func run() async throws {
                try await reportingErrors {
                    let store = try await host.hubStore()
                    let people = try await Hub.refusals { try await store.people() }
                    if json {
                        let encoder = JSONEncoder()
                        encoder.outputFormatting = [.sortedKeys]
                        for person in people { say(String(decoding: try encoder.encode(person), as: UTF8.self)) }
                        return
                    }
                    if people.isEmpty { say("no people yet: tessera hub person add NAME") }
                    for person in people {
                        let seen = person.lastSeenMillis.map { Self.day($0) } ?? "never"
                        say("\(person.name)  \(person.id)  \(person.devices) device\(person.devices == 1 ? "" : "s")  last seen \(seen)")
                    }
                }
            }

            static func day(_ millis: Int64) -> String {
                Date(timeIntervalSince1970: Double(millis) / 1000).formatted(.iso8601.year().month().day())
            }
        }

        struct Quota: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "quota",
                abstract: "Set how many megabytes of files a person may upload to the hub, or 'default' for the deployment's quotaMBPerPerson.",
                discussion: "tessera hub person quota ada 2000 --deployment manifests/deployments/hub.json")
            @Argument(help: "The person's name.") var name: String
            @Argument(help: "Megabytes (a number above 0), or 'default'.") var megabytes: String
            @OptionGroup var host: HostArguments

            func run() async throws {
                try await reportingErrors {
                    let bytes: Int64?
                    if megabytes == "default" { bytes = nil } else {
                        guard let value = Double(megabytes), value > 0 else {
                            throw CLIError(code: .invalidInput, message: "megabytes: expected a number above 0 or 'default', found '\(megabytes)'")
                        }
                        bytes = Int64(value * 1_048_576)
                    }
                    let (store, deployment, directory) = try await host.hubStoreWithDeployment()
                    let files = deployment.openHubFiles(store: store, dataDirectory: directory)
                    try await Hub.refusals { try await files.setQuota(personName: name, bytes: bytes) }
                    say(bytes == nil ? "\(name)'s file quota is the deployment's again" : "\(name) may keep \(megabytes) MB of files on the hub")
                }
            }
        }

        struct Password: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "password",
                abstract: "Set a person's password (a forgotten one) and sign out all their devices; the password is read from stdin.",
                discussion: "printf '%s\\n' \"$NEW_PASSWORD\" | tessera hub person password ada --deployment manifests/deployments/hub.json")
            @Argument(help: "The person's name.") var name: String
            @OptionGroup var host: HostArguments

            func run() async throws {
                try await reportingErrors {
                    let store = try await host.hubStore()
                    let password = try Hub.passwordFromStdin()
                    let signedOut = try await Hub.refusals { try await store.resetPassword(ofName: name, to: password) }
                    say("set \(name)'s password; \(signedOut) device\(signedOut == 1 ? "" : "s") signed out")
                }
            }
        }
    }
}

extension Hub {
    /// The first line of stdin: passwords never come as arguments (shell history, process list).
    static func passwordFromStdin() throws -> String {
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw CLIError(code: .invalidInput, message: "expected the password on the first line of stdin")
        }
        return line
    }

    /// Runs a store call; the hub's refusals become the CLI's (a store failure exits as a failure,
    /// anything else as bad input).
    static func refusals<T>(_ call: () async throws -> T) async throws -> T {
        do { return try await call() } catch let error as HubError {
            throw CLIError(code: error.kind == .internal ? .failure : .invalidInput, message: error.message)
        }
    }
}

extension HostArguments {
    /// The hub's store of the deployment, which must be a hub's.
    func hubStore() async throws -> HubStore {
        try await hubStoreWithDeployment().store
    }

    /// The hub's store, its deployment and its data directory.
    func hubStoreWithDeployment() async throws -> (store: HubStore, deployment: Deployment, directory: String) {
        let deployment: Deployment
        do { deployment = try DeploymentReader.read(file: deploymentFile) } catch {
            throw CLIError(code: .invalidDeployment, message: "deployment: \(error)")
        }
        guard deployment.role == .hub else {
            throw CLIError(code: .invalidDeployment, message: "the deployment '\(deployment.name)' has the role \(deployment.role.rawValue); `tessera hub` needs a hub deployment")
        }
        let directory = data ?? deployment.dataDirectory ?? ".tessera/\(deployment.name)"
        // The host's wall clock: it only dates the account.
        return (try await deployment.openHubStore(dataDirectory: directory, now: { Date() }), deployment, directory)
    }
}
