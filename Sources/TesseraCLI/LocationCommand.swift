import ArgumentParser
import Foundation
import TesseraLocation
import TesseraRuntime
import TesseraSDK

/// `tessera location ingest|replay`
struct Location: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "location",
        abstract: "Feed location fixes to the plugins subscribed to the location feed.",
        discussion: "Bad fixes (malformed, out of range, far in the future, duplicated, out of order) are dropped and counted, never fatal.",
        subcommands: [Ingest.self, Replay.self])

    struct Ingest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ingest", abstract: "Read OwnTracks JSON (one location object or an array) from a file or stdin.")
        @Argument(help: "The file, or - for stdin.") var file: String = "-"
        @Option(name: .long, help: "The device id for messages without a topic (OwnTracks' X-Limit-U/X-Limit-D, as user/device).") var device: String?
        @OptionGroup var host: HostArguments
        @Flag(name: .long, help: "Print JSON.") var json = false

        func run() async throws {
            try await reportingErrors {
                let bytes: Data
                if file == "-" { bytes = FileHandle.standardInput.readDataToEndOfFile() } else {
                    guard let data = FileManager.default.contents(atPath: file) else {
                        throw CLIError(code: .notFound, message: "\(file): no such file")
                    }
                    bytes = data
                }
                let batch = OwnTracksDecoder().decode(bytes, defaultDeviceID: device)
                let host = try self.host.makeHost()
                await host.start()
                let report = await host.ingestLocation(batch.fixes, malformed: batch.malformed.count)
                await host.settle()
                await host.stop()
                Location.print(report, skipped: batch.skipped.count, json: json)
                for item in batch.malformed.prefix(5) { FileHandle.standardError.write(Data("tessera: message \(item.index): \(item.reason)\n".utf8)) }
            }
        }
    }

    struct Replay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "replay",
            abstract: "Replay a GPX track as fixes on the host's clock.",
            discussion: "On a virtual clock the replay moves the clock to each fix in turn (firing what falls due on the way), so a one-hour track replays at once and the same way every time. On the system clock it runs in real time divided by --speed.")
        @Argument(help: "The GPX file.") var file: String
        @Option(name: .long, help: "How many times faster than recorded (60 = an hour of track in a minute).") var speed: Double = 1
        @Option(name: .long, help: "The device id the fixes carry.") var device = "gpx-replay"
        @OptionGroup var host: HostArguments
        @Flag(name: .long, help: "Print JSON.") var json = false

        func run() async throws {
            try await reportingErrors {
                let document: GPXDocument
                do { document = try GPXReader().read(contentsOf: URL(fileURLWithPath: file)) } catch {
                    throw CLIError(code: .invalidInput, message: "\(file): \(error)")
                }
                let replay: GPXReplay
                do { replay = try GPXReplay(points: document.replayPoints, speed: speed, deviceID: device) } catch {
                    throw CLIError(code: .invalidInput, message: "\(file): \(error)")
                }
                let host = try self.host.makeHost()
                await host.start()
                var total = IngestReport()
                let count = replay.points.count
                var done = 0
                // Emitting cannot fail: what the host refuses is counted in its report.
                let emit: (LocationFix) async -> Void = { fix in
                    let report = await host.ingestLocation([fix])
                    total.accepted += report.accepted
                    total.subscriberFailures += report.subscriberFailures
                    total.rejected.merge(report.rejected, uniquingKeysWith: +)
                    done += 1
                    if !json, count >= 20, done % (count / 10) == 0 { say("replayed \(done)/\(count) (\(fix.timestamp.formatted(.iso8601)))") }
                }
                if host.virtualClock != nil {
                    for fix in replay.schedule(startingAt: host.clock.now()) {
                        _ = try await host.setClock(to: fix.timestamp)
                        await emit(fix)
                    }
                } else {
                    try await replay.run(on: host.clock) { fix in await emit(fix) }
                }
                await host.settle()
                await host.stop()
                Location.print(total, skipped: 0, json: json)
            }
        }
    }

    static func print(_ report: IngestReport, skipped: Int, json: Bool) {
        let rejected = report.rejected.filter { $0.value > 0 }
        if json {
            say(JSONValue.object([
                "accepted": .integer(Int64(report.accepted)), "skipped": .integer(Int64(skipped)),
                "rejected": .object(Dictionary(uniqueKeysWithValues: rejected.map { ($0.key.rawValue, JSONValue.integer(Int64($0.value))) })),
                "subscriberFailures": .integer(Int64(report.subscriberFailures)),
            ]).serialized())
            return
        }
        var line = "accepted \(report.accepted) fixes"
        if skipped > 0 { line += ", skipped \(skipped) messages that are not locations" }
        if !rejected.isEmpty {
            line += "; dropped " + rejected.keys.sorted { $0.rawValue < $1.rawValue }.map { "\(rejected[$0]!) \($0.rawValue)" }.joined(separator: ", ")
        }
        if report.subscriberFailures > 0 { line += "; \(report.subscriberFailures) subscriber failures (see the log)" }
        say(line)
    }
}
