import Foundation
import Testing
@testable import TesseraSafeTravel
import TesseraTesting

/// The module on a real host (PluginTestHost: real SQLite, the virtual clock), with no hub: a
/// notification to the travel space's other members lands in this host's own inbox as recipient
/// `space:<id>` (docs/notifications.md), which is what the tests read as "the guardians were told".
enum TravelFixture {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let manifest = root.appendingPathComponent("manifests/safetravel.json").path
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let start = Date("2026-03-02T08:00:00Z")
    static let pin = "4826"

    /// No guardians can accept without a hub, so the UC3/UC4 precondition is off here; a cheap
    /// PIN hash keeps debug builds quick (the shipped default is 210,000 iterations).
    static let config: JSONValue = ["requireGuardians": false, "pinIterations": 1000]

    static func host(config: JSONValue = config) async throws -> PluginTestHost {
        try await PluginTestHost(manifest: manifest, plugin: { SafeTravelPlugin() }, config: config,
                                 grants: ["storage": [:], "clock": [:], "notifications": ["spaces": true], "location": [:], "sync": [:], "files": [:]],
                                 start: start)
    }

    /// A host with the account set up as "ada" with ``pin``.
    static func ada(config: JSONValue = config) async throws -> PluginTestHost {
        let host = try await host(config: config)
        _ = try await host.call("account-setup", ["username": "ada", "pin": .string(pin)])
        return host
    }

    static func count(_ host: PluginTestHost, _ table: String) async throws -> Int64 {
        try await host.query("SELECT COUNT(*) AS n FROM \(table)").first?["n"].integer ?? -1
    }

    /// Moves the virtual clock to `date` (firing what falls due on the way).
    static func advance(_ host: PluginTestHost, to date: Date) async throws {
        let seconds = date.timeIntervalSince(host.now)
        if seconds > 0 { try await host.advanceClock(by: seconds) }
    }

    static func fix(_ host: PluginTestHost, _ lat: Double, _ lon: Double, accuracy: Double? = 10, battery: Int? = nil) async {
        await host.feedLocation([LocationFix(latitude: lat, longitude: lon, accuracy: accuracy, battery: battery, timestamp: host.now, deviceID: "ada/phone")])
    }

    /// Delivered notifications whose key starts with `prefix`, as "key @ due time".
    static func delivered(_ host: PluginTestHost, _ prefix: String = "") throws -> [String] {
        try host.deliveredNotifications().filter { $0.key.hasPrefix(prefix) }.map { "\($0.key) @ \(Instant.text($0.dueAt))" }
    }
}

/// The error code, the reason code (the error's `reason`, never in the message) and the field of a refusal.
func refusal(_ body: () async throws -> Any) async -> (code: String, reason: String?, field: String?)? {
    do {
        _ = try await body()
        return nil
    } catch let error as PluginError {
        #expect(!error.message.contains("(code "), "a reason code in the message: \(error.message)")
        let reason = error.reason?.rawValue
        return (error.code.rawValue, reason, error.field)
    } catch {
        return ("other: \(error)", nil, nil)
    }
}

extension Date {
    init(_ iso: String) { self = try! Date(iso, strategy: .iso8601) }
}
