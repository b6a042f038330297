import ArgumentParser
import Foundation
import TesseraNotifications
import TesseraRuntime
import TesseraSDK

/// `tessera notifications list|read`
struct Notifications: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract: "Read the host's notification inbox.",
        discussion: "The inbox holds every delivered notification, newest first. Late ones (delivered after downtime) say when they were due.",
        subcommands: [List.self, Read.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List delivered notifications, newest first, with the delivery counters.")
        @OptionGroup var host: HostArguments
        @Flag(name: .long, help: "Only those not marked read.") var unread = false
        @Option(name: .long, help: "At most this many (default 50).") var limit = 50
        @Flag(name: .long, help: "Print JSON.") var json = false

        func run() async throws {
            try await reportingErrors {
                guard limit > 0 else { throw CLIError(code: .invalidInput, message: "--limit must be at least 1") }
                let host = try self.host.makeHost()
                let entries = try host.inbox(unreadOnly: unread, limit: limit)
                let counters = try host.notificationCounters()
                if json {
                    say(JSONValue.object([
                        "notifications": .array(entries.map(\.json)),
                        "counters": .object(counters.mapValues { .integer($0) }),
                    ]).serialized())
                    return
                }
                if entries.isEmpty { say(unread ? "no unread notifications" : "no notifications") }
                for entry in entries { say(Self.line(entry)) }
                if !counters.isEmpty {
                    say("counters: " + counters.keys.sorted().map { "\($0) \(counters[$0]!)" }.joined(separator: ", "))
                }
            }
        }

        static func line(_ entry: InboxEntry) -> String {
            let flags = (entry.readAt == nil ? "•" : " ") + (entry.late ? " late (due \(entry.dueAt.formatted(.iso8601)))" : "")
            return "\(flags) #\(entry.id) \(entry.deliveredAt.formatted(.iso8601)) \(entry.plugin): \(entry.title)"
                + (entry.body.isEmpty ? "" : " — \(entry.body)")
        }
    }

    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "read", abstract: "Mark notifications read by number, or all of them.")
        @Argument(help: "Inbox numbers (#12 is 12).") var ids: [Int64] = []
        @Flag(name: .long, help: "Mark every unread notification read.") var all = false
        @OptionGroup var host: HostArguments

        func run() async throws {
            try await reportingErrors {
                guard all != !ids.isEmpty else { throw CLIError(code: .invalidInput, message: "give inbox numbers or --all, not both or neither") }
                let host = try self.host.makeHost()
                let changed = try host.markRead(all ? nil : ids)
                say("marked \(changed) read")
            }
        }
    }
}

/// `tessera events list`
struct Events: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Show how far each subscriber got with the events it consumes.",
        subcommands: [List.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "One line per subscription: delivered, behind, and a failing delivery's error and retry time.")
        @OptionGroup var host: HostArguments
        @Flag(name: .long, help: "Print JSON.") var json = false

        func run() async throws {
            try await reportingErrors {
                let host = try self.host.makeHost()
                await host.start(until: .validated)
                let statuses = try host.eventDeliveries()
                if json {
                    say(JSONValue.array(statuses.map { s in
                        var o: [String: JSONValue] = [
                            "subscriber": .string(s.subscription.subscriber), "publisher": .string(s.subscription.publisher),
                            "events": .array(s.subscription.names.sorted().map(JSONValue.string)),
                            "delivered": .integer(s.cursor.delivered), "behind": .integer(s.behind), "attempts": .integer(Int64(s.cursor.attempts)),
                        ]
                        if let error = s.cursor.lastError { o["lastError"] = .string(error) }
                        if let retry = s.cursor.retryAt { o["retryAt"] = .string(retry.formatted(.iso8601)) }
                        return .object(o)
                    }).serialized())
                    return
                }
                if statuses.isEmpty { say("no plugin consumes events") }
                for s in statuses {
                    var line = "\(s.subscription.subscriber) ← \(s.subscription.publisher) [\(s.subscription.names.sorted().joined(separator: ", "))]: delivered #\(s.cursor.delivered), \(s.behind) behind"
                    if let error = s.cursor.lastError {
                        line += "; failing (\(s.cursor.attempts) attempts): \(error)"
                        if let retry = s.cursor.retryAt { line += "; retry at \(retry.formatted(.iso8601))" }
                    }
                    say(line)
                }
            }
        }
    }
}
