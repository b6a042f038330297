import ArgumentParser
import Foundation
import TesseraHTTP
import TesseraRuntime
import TesseraSDK
import TesseraSyncClient
import TesseraSystem

/// `tessera sync login|register|logout|now|status`: this device and its hub (the deployment's `providers.sync`).
struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sync plugins' tables with the deployment's hub.",
        discussion: "A serving host syncs by itself: soon after local changes and every providers.sync.every (15m by default). These commands log this device in, run a round now, and show where each plugin stands.",
        subcommands: [Login.self, Register.self, Logout.self, Now.self, Status.self, Conflicts.self, Channels.self])

    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "login",
            abstract: "Log this device in to the hub; the password is read from the first line of stdin.",
            discussion: "The device token the hub returns is kept as the host's secret (tessera secrets list shows tessera.host hub-device-token).")
        @Argument(help: "The person's name on the hub.") var name: String
        @Option(name: .long, help: "A name for this device (default: the host name).") var device: String?
        @OptionGroup var host: HostArguments

        func run() async throws {
            try await reportingErrors {
                let password = try Sync.passwordFromStandardInput()
                let host = try self.host.makeHost(onlyPlugins: [])
                let person: LoggedInPerson
                do {
                    person = try await host.syncLogin(name: name, password: password, device: device ?? ProcessInfo.processInfo.hostName)
                } catch let error as SyncClientError {
                    throw CLIError(code: error.code == "unavailable" ? .unavailable : .forbidden, message: "\(error)")
                }
                // The person signs in to the console with the same name and password, offline too.
                do { try LocalAccounts(dataDirectory: host.options.dataDirectory).keepHubPassword(name: person.name, password: password) } catch {
                    warn("the console sign-in for \(person.name) could not be kept (\(error)): they cannot sign in to the console with that password")
                }
                say("logged in to \(host.deployment.sync?.hub ?? "?") as \(name)")
            }
        }
    }

    struct Logout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "logout",
            abstract: "Log this device out of the hub and remove the person's synced data from it.",
            discussion: "A last sync round goes first, so nothing written here is lost; then every synced row, the files no record links any more, every pending notification and the device's sync state and token are removed, and another person may log in. Refused if the round fails, unless --discard-unsynced.")
        @Flag(name: .long, help: "Log out even if the last round fails: what was not synced is lost.") var discardUnsynced = false
        @OptionGroup var host: HostArguments

        func run() async throws {
            try await reportingErrors {
                let host = try self.host.makeHost()
                await host.start()
                try await withCleanup({ await host.stop() }) {
                    let report: PluginHost.LogoutReport
                    let hubPerson = host.hubPerson
                    do { report = try await host.syncLogout(discardUnsynced: discardUnsynced) } catch let error as PluginError {
                        await host.stop()
                        throw CLIError(code: .failure, message: error.message)
                    }
                    await host.stop()
                    // The person's data left the device; so does their console account.
                    if let person = hubPerson {
                        let accounts = LocalAccounts(dataDirectory: host.options.dataDirectory)
                        if accounts.account(named: person.name)?.source == "hub" {
                            do { try accounts.remove(name: person.name) } catch {
                                warn("the console account of \(person.name) could not be removed (\(error)): remove it with tessera account remove \(person.name)")
                            }
                        }
                    }
                    let rows = report.rows.values.reduce(0, +)
                    say("logged out of \(host.deployment.sync?.hub ?? "?"): removed \(rows) synced rows, \(report.files.count) files, \(report.notifications) pending notifications")
                }
            }
        }
    }

    struct Now: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "now", abstract: "Run one sync round now for each syncing plugin, or for one.")
        @Argument(help: "Only this plugin.") var plugin: String?
        @OptionGroup var host: HostArguments
        @Flag(name: .long, help: "Print JSON.") var json = false

        func run() async throws {
            try await reportingErrors {
                let host = try self.host.makeHost(onlyPlugins: plugin.map { [$0] })
                await host.start()
                try await withCleanup({ await host.stop() }) {
                    let plugins = plugin.map { [$0] } ?? host.syncingPlugins
                    if plugins.isEmpty { say("no plugin syncs here (a plugin needs sync.tables in its manifest and the sync grant)") }
                    var results: [JSONValue] = []
                    for id in plugins {
                        do {
                            let report = try await host.syncNow(id)
                            results.append(Status.json(id, report))
                            if !json { say(Status.line(id, report)) }
                        } catch let error as SyncClientError {
                            await host.stop()
                            throw CLIError(code: error.code == "unavailable" ? .unavailable : .failure, message: "\(id): \(error)")
                        }
                    }
                    if json { say(JSONValue.array(results).serialized()) }
                    await host.stop()
                }
            }
        }
    }

    struct Conflicts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "conflicts",
            abstract: "List the kept conflicts of each syncing plugin, or of one: cells two writers changed concurrently.",
            discussion: "The plugin resolves them (its sync capability); this only shows them.")
        @Argument(help: "Only this plugin.") var plugin: String?
        @OptionGroup var host: HostArguments
        @Flag(name: .long, help: "Print JSON.") var json = false

        func run() async throws {
            try await reportingErrors {
                let host = try self.host.makeHost(onlyPlugins: plugin.map { [$0] })
                await host.start()
                var listed: [JSONValue] = []
                for id in plugin.map({ [$0] }) ?? host.syncingPlugins {
                    for c in try host.syncConflicts(of: id) {
                        listed.append(["plugin": .string(id), "table": .string(c.table), "id": .string(c.row), "column": .string(c.column),
                                       "current": c.current.value.jsonValue, "others": .array(c.others.map(\.value.jsonValue))])
                    }
                }
                await host.stop()
                if json { return say(JSONValue.array(listed).serialized()) }
                if listed.isEmpty { say("no conflicts") }
                for c in listed {
                    let others = c["others"]?.arrayValue?.map { $0.serialized() }.joined(separator: ", ") ?? ""
                    say("\(c["plugin"]?.stringValue ?? "")  \(c["table"]?.stringValue ?? "")/\(c["id"]?.stringValue ?? "").\(c["column"]?.stringValue ?? ""): \(c["current"]?.serialized() ?? "") (also: \(others))")
                }
            }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "status", abstract: "The hub, whether this device is logged in, and each syncing plugin's spaces, pull cursor and changes waiting to be pushed.")
        @OptionGroup var host: HostArguments
        @Flag(name: .long, help: "Print JSON.") var json = false

        func run() async throws {
            try await reportingErrors {
                let host = try self.host.makeHost()
                await host.start()
                let hub = host.deployment.sync?.hub
                var plugins: [JSONValue] = []
                for id in host.syncingPlugins {
                    let spaces = (try? host.syncSpaces(of: id)) ?? []
                    let pending = ((try? host.pendingChanges(of: id)) ?? nil) ?? [:]
                    plugins.append(["plugin": .string(id), "spaces": .array(spaces.map { .string($0) }),
                                    "pullCursor": .integer(host.pullCursor(of: id) ?? 0),
                                    "pending": .object(pending.mapValues { .integer(Int64($0)) })])
                }
                await host.stop()
                if json {
                    say(JSONValue.object(["hub": hub.map { .string($0) } ?? .null, "loggedIn": .bool(host.isLoggedInToHub),
                                          "plugins": .array(plugins)]).serialized())
                    return
                }
                say("hub: \(hub ?? "none (providers.sync.hub)")\(host.isLoggedInToHub ? ", logged in" : hub == nil ? "" : ", not logged in: tessera sync login NAME (or tessera sync register EMAIL)")")
                for p in plugins {
                    let pending = (p["pending"]?.objectValue ?? [:]).compactMapValues(\.integerValue).filter { $0.value > 0 }
                    let waiting = pending.isEmpty ? "nothing waiting to be pushed"
                        : "waiting to be pushed: " + pending.sorted { $0.key < $1.key }.map { "\($0.value) in \($0.key)" }.joined(separator: ", ")
                    say("\(p["plugin"]?.stringValue ?? "?"): spaces \(p["spaces"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ", ") ?? ""), pulled up to #\(p["pullCursor"]?.integerValue ?? 0), \(waiting)")
                }
            }
        }

        static func line(_ id: String, _ r: DeviceSync.Report) -> String {
            "\(id): pushed \(r.pushed) (\(r.duplicates) already there), pulled \(r.pulled), \(r.changedRows.count) rows changed"
                + (r.rejected.isEmpty ? "" : ", \(r.rejected.count) refused (\(Set(r.rejected.map(\.reason)).sorted().joined(separator: ", ")))")
                + (r.deleted.isEmpty ? "" : ", spaces deleted on the hub: \(r.deleted.joined(separator: ", "))")
        }

        static func json(_ id: String, _ r: DeviceSync.Report) -> JSONValue {
            ["plugin": .string(id), "pushed": .integer(Int64(r.pushed)), "duplicates": .integer(Int64(r.duplicates)),
             "pulled": .integer(Int64(r.pulled)), "changedRows": .integer(Int64(r.changedRows.count)),
             "rejected": .array(r.rejected.map { ["row": .string($0.row), "table": .string($0.table), "reason": .string($0.reason)] }),
             "deleted": .array(r.deleted.map { .string($0) })]
        }
    }
}
