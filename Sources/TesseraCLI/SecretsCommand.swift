import ArgumentParser
import Foundation
import TesseraRuntime
import TesseraSDK

/// `tessera secrets list|remove`: what plugins keep in `<data>/secrets.sqlite`, by name only.
struct Secrets: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secrets",
        abstract: "List or remove plugins' secrets (names only: values are never shown).",
        discussion: "Plugins keep tokens and tickets with the secrets capability, apart from their records. Removing one makes the plugin ask for it again (e.g. log in to STAG, or enter a Fio token).",
        subcommands: [List.self, Remove.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Every plugin's secret names, with when each was last set.")
        @Argument(help: "Only this plugin's.") var plugin: String?
        @OptionGroup var host: HostArguments
        @Flag(name: .long, help: "Print JSON.") var json = false

        func run() async throws {
            try await reportingErrors {
                let host = try self.host.makeHost()
                let all = try host.secretNames().filter { plugin == nil || $0.plugin == plugin }
                if json {
                    say(JSONValue.array(all.map { [
                        "plugin": .string($0.plugin), "name": .string($0.name), "updatedAt": .string($0.updatedAt.formatted(.iso8601)),
                    ] }).serialized())
                    return
                }
                if all.isEmpty { say("no secrets") }
                for item in all { say("\(item.plugin) \(item.name) (set \(item.updatedAt.formatted(.iso8601)))") }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Forget one plugin's secret.")
        @Argument(help: "The plugin's id.") var plugin: String
        @Argument(help: "The secret's name.") var name: String
        @OptionGroup var host: HostArguments

        func run() async throws {
            try await reportingErrors {
                let host = try self.host.makeHost()
                guard try host.removeSecret(plugin: plugin, name: name) else {
                    throw CLIError(code: .notFound, message: "\(plugin) has no secret named '\(name)'")
                }
                say("removed \(plugin) \(name)")
            }
        }
    }
}
