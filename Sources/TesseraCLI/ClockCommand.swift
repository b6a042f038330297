import ArgumentParser
import Foundation
import TesseraClock
import TesseraManifest
import TesseraRuntime
import TesseraSDK

/// `tessera clock show|set|advance`
struct Clock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clock",
        abstract: "Show, set or advance the virtual clock of a data directory.",
        discussion: "The virtual clock is kept in the data directory, so a sequence of commands shares it. Advancing fires every timer that falls due, in time order.",
        subcommands: [Show.self, Set.self, Advance.self])

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Print the host's current time and the next timers.")
        @OptionGroup var host: HostArguments
        @Flag(name: .long, help: "Print JSON.") var json = false

        func run() async throws {
            try await reportingErrors {
                let host = try self.host.makeHost()
                let now = host.clock.now()
                let kind = host.virtualClock == nil ? "system" : "virtual"
                if json {
                    say(JSONValue.object(["now": .string(now.formatted(.iso8601)), "kind": .string(kind)]).serialized())
                } else {
                    say("\(now.formatted(.iso8601)) (\(kind) clock)")
                }
            }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Set the virtual clock to an ISO 8601 time; moving forwards fires what falls due.")
        @Argument(help: "The new time, e.g. 2026-03-01T08:00:00Z.") var time: String
        @OptionGroup var host: HostArguments

        func run() async throws {
            try await reportingErrors {
                guard let target = try? Date(time, strategy: .iso8601) else {
                    throw CLIError(code: .invalidInput, message: "'\(time)' is not an ISO 8601 time such as 2026-03-01T08:00:00Z")
                }
                try await Clock.move(host) { try await $0.setClock(to: target) }
            }
        }
    }

    struct Advance: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "advance", abstract: "Advance the virtual clock by a duration (30s, 15m, 2h30m, 6d, 1w), firing what falls due.")
        @Argument(help: "The duration.") var duration: String
        @OptionGroup var host: HostArguments

        func run() async throws {
            try await reportingErrors {
                guard let seconds = DurationText.seconds(duration), seconds > 0 else {
                    throw CLIError(code: .invalidInput, message: "'\(duration)' is not a duration such as 30s, 15m, 2h30m, 6d or 1w")
                }
                try await Clock.move(host) { try await $0.advanceClock(by: TimeInterval(seconds)) }
            }
        }
    }

    /// Starts a host on the data directory's virtual clock, moves the clock with `body` (firing what
    /// falls due), stops the host, and prints what fired.
    static func move(_ arguments: HostArguments, _ body: (any HostAPI) async throws -> [TimerScheduler.Firing]) async throws {
        let host = try arguments.makeHost()
        guard host.virtualClock != nil else {
            throw CLIError(code: .failure,
                           message: "deployment '\(host.deployment.name)' uses the system clock; only a virtual clock can be set or advanced")
        }
        await host.start()
        let deliveredBefore = (try? host.notificationCounters()["delivered"]) ?? 0
        let firings: [TimerScheduler.Firing]
        do { firings = try await body(host) } catch {
            await host.stop()
            throw error
        }
        await host.settle()  // events and webhooks the firings set off
        await host.stop()
        let delivered = ((try? host.notificationCounters()["delivered"]) ?? 0) - deliveredBefore
        report(firings, now: host.clock.now(), notifications: delivered)
    }

    static func report(_ firings: [TimerScheduler.Firing], now: Date, notifications: Int64) {
        for f in firings {
            let outcome: String
            switch f.outcome {
            case .delivered: outcome = "fired"
            case .failed(let reason): outcome = "failed (\(reason)); will retry"
            case .deferred: outcome = "deferred (plugin not active)"
            }
            say("\(f.timer.fireAt.formatted(.iso8601))  \(f.timer.plugin)  \(f.timer.key)  \(outcome)")
        }
        say("now \(now.formatted(.iso8601)); \(firings.count) timer firing(s), \(notifications) notification(s) delivered")
    }
}
