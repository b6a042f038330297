import ArgumentParser
import Foundation
import TesseraRuntime
import TesseraSDK

/// `tessera call ID OP [JSON|-]`
struct Call: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Call one operation of a plugin against a data directory and print its result.",
        discussion: "The input is a JSON text, `-` to read it from stdin, or `{}` when left out. The call runs as the local operator (role admin).")

    @Argument(help: "The plugin id.") var plugin: String
    @Argument(help: "The operation name.") var operation: String
    @Argument(help: "The input: JSON, or - for stdin.") var input: String?
    @OptionGroup var host: HostArguments
    @Flag(name: .long, help: "Print the result compactly, as one JSON line (errors as {\"error\":…} on stdout too).") var json = false

    func run() async throws {
        try await reportingErrors {
            let text: [UInt8]
            if input == "-" {
                text = Array(FileHandle.standardInput.readDataToEndOfFile())
            } else {
                text = Array((input ?? "{}").utf8)
            }
            let host = try self.host.makeHost(onlyPlugins: [plugin])
            await host.start()
            do throws(PluginError) {
                let result = try await host.call(plugin, operation, json: text, as: Principal(id: "local-operator", role: .admin))
                say(json ? result.serialized() : result.prettySerialized())
            } catch {
                await host.stop()
                if json {
                    var body: [String: JSONValue] = ["code": .string(error.code.rawValue), "message": .string(error.message)]
                    if let field = error.field { body["field"] = .string(field) }
                    if let reason = error.reason { body["reason"] = .string(reason.rawValue) }
                    say(JSONValue.object(["error": .object(body)]).serialized())
                }
                throw error
            }
            await host.stop()
        }
    }
}
