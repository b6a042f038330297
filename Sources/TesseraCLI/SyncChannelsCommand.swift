import ArgumentParser
import Foundation
import TesseraRuntime
import TesseraSDK
import TesseraSyncClient

/// `tessera sync channels list|add|remove`: where the hub itself sends this person the space
/// notifications filed for them (docs/hub.md, "Delivery channels"), with this device's token.
extension Sync {
    struct Channels: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "channels",
            abstract: "List, add or remove your delivery channels at the hub (webhook, e-mail).",
            discussion: "The hub sends the notifications other members address to your spaces (a safe-travel alert) to each channel, whether or not any of your devices is online.",
            subcommands: [List.self, Add.self, Confirm.self, Remove.self])

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "list", abstract: "Your channels, oldest first (never their secrets).")
            @OptionGroup var host: HostArguments
            @Flag(name: .long, help: "Print JSON.") var json = false

            func run() async throws {
                try await reportingErrors {
                    let channels = try await Channels.withHub(host) { try await $0.channels() }
                    if json { return say(JSONValue.array(channels).serialized()) }
                    if channels.isEmpty { say("no channels: tessera sync channels add webhook URL | add email") }
                    for channel in channels { say(Channels.line(channel)) }
                }
            }
        }

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "add",
                abstract: "Add a channel: `webhook URL` (https, or http to this machine) or `email` (your account's address).",
                discussion: "A webhook's signing secret is printed this once: keep it where the receiver checks each POST's Tessera-Signature.")
            @Argument(help: "webhook or email.") var kind: String
            @Argument(help: "The webhook's URL.") var url: String?
            @Option(name: .long, help: "An e-mail channel's address, if not your account's: a code is mailed there (tessera sync channels confirm).") var address: String?
            @Option(name: .long, help: "Only this plugin's notifications (default: every plugin's).") var plugin: String?
            @OptionGroup var host: HostArguments
            @Flag(name: .long, help: "Print JSON.") var json = false

            func validate() throws {
                guard ["webhook", "email"].contains(kind) else { throw ValidationError("the kind is webhook or email, not '\(kind)'") }
                if kind == "webhook", url == nil { throw ValidationError("a webhook channel needs its URL: add webhook https://…") }
                if kind == "email", url != nil { throw ValidationError("an e-mail channel takes no URL: give --address, or none for your account's") }
                if kind == "webhook", address != nil { throw ValidationError("--address is for an e-mail channel") }
            }

            func run() async throws {
                try await reportingErrors {
                    let added = try await Channels.withHub(host) { try await $0.addChannel(kind: kind, url: url, address: address, plugin: plugin) }
                    if json { return say(added.serialized()) }
                    say("added " + Channels.line(added))
                    if let secret = added["secret"]?.stringValue {
                        say("signing secret (shown this once; the hub signs each POST with it):\n  \(secret)")
                    }
                    if added["confirmed"] == false {
                        say("a code was mailed to \(added["address"]?.stringValue ?? "the address"): tessera sync channels confirm \(added["id"]?.stringValue ?? "ID") CODE")
                    }
                }
            }
        }

        struct Confirm: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "confirm", abstract: "Confirm an e-mail channel with the code mailed to its address.")
            @Argument(help: "The channel's id.") var id: String
            @Argument(help: "The 7-digit code.") var code: String
            @OptionGroup var host: HostArguments

            func run() async throws {
                try await reportingErrors {
                    let channel = try await Channels.withHub(host) { try await $0.confirmChannel(id, code: code) }
                    say("confirmed " + Channels.line(channel))
                }
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove one of your channels by its id; nothing more is sent to it.")
            @Argument(help: "The channel's id (tessera sync channels list).") var id: String
            @OptionGroup var host: HostArguments

            func run() async throws {
                try await reportingErrors {
                    try await Channels.withHub(host) { try await $0.removeChannel(id) }
                    say("removed channel \(id)")
                }
            }
        }

        /// Runs `body` with this device's connection to its hub; the hub's refusals become exit codes.
        static func withHub<T>(_ arguments: HostArguments, _ body: (HubConnection) async throws -> T) async throws -> T {
            let host = try arguments.makeHost(onlyPlugins: [])
            let connection: HubConnection
            do { connection = try host.loggedInHubConnection() } catch let error as PluginError {
                throw CLIError(code: .forbidden, message: error.message)
            }
            do { return try await body(connection) } catch let error as SyncClientError {
                let code: CLIError.Code = switch error.status {
                case 0: .unavailable
                case 400: .invalidInput
                case 404, 410: .notFound
                case 401, 403: .forbidden
                default: .failure
                }
                throw CLIError(code: code, message: "\(error)")
            }
        }

        /// One channel on a line: id, kind, where it goes, which plugin.
        static func line(_ channel: JSONValue) -> String {
            let target = channel["url"]?.stringValue ?? channel["address"]?.stringValue ?? ""
            let plugin = channel["plugin"]?.stringValue.map { " (only \($0))" } ?? ""
            let unconfirmed = channel["confirmed"] == false ? " [not confirmed yet]" : ""
            return "\(channel["id"]?.stringValue ?? "?")  \(channel["kind"]?.stringValue ?? "?")  \(target)\(plugin)\(unconfirmed)"
        }
    }
}
