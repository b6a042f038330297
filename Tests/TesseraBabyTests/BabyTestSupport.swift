import Foundation
import Testing
@testable import TesseraBaby
import TesseraSDK
import TesseraTesting

/// The baby diary on a real host (PluginTestHost: real SQLite, files and notifications, the
/// virtual clock from 2026-03-02T08:00:00Z, 09:00 in Prague), and shortcuts tests share.
enum BabyFixture {
    static let manifest = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("manifests/baby.json").path

    /// Storage, clock, notifications and files; no sync (one person on one device).
    static func host(config: JSONValue = [:], start: String = "2026-03-02T08:00:00Z") async throws -> PluginTestHost {
        try await PluginTestHost(manifest: manifest, plugin: { BabyPlugin() }, config: config,
                                 grants: ["storage": [:], "clock": [:], "notifications": [:], "files": [:]],
                                 start: try Date(start, strategy: .iso8601))
    }

    /// A host with one child, Ema, born 2025-06-15; returns the child's id.
    static func withChild(config: JSONValue = [:]) async throws -> (PluginTestHost, String) {
        let host = try await host(config: config)
        let child = try await host.call("child-create", ["name": "Ema", "birthDate": "2025-06-15"])
        return (host, try #require(child["id"]?.stringValue))
    }

    static func count(_ host: PluginTestHost, _ table: String) async throws -> Int64 {
        try await host.query("SELECT COUNT(*) AS n FROM \(table)").first?["n"].integer ?? -1
    }

    /// Every synced and local table's row count: "nothing written" is this unchanged.
    static func counts(_ host: PluginTestHost) async throws -> [String: Int64] {
        var counts: [String: Int64] = [:]
        for table in ["children", "health_cards", "health_items", "records", "contacts", "access", "suggestions", "reminders", "care"] {
            counts[table] = try await count(host, table)
        }
        return counts
    }

    /// A tiny real PNG (1×1), as base64.
    static let pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    /// Another real PNG (2×2, one colour), so a record can hold two different photos.
    static let secondPNGBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGM4IRcFRAwQCgAkxgUBBHQ3qwAAAABJRU5ErkJggg=="
}

/// The error a call throws: its code, field and message.
func refusal(_ body: () async throws -> Any) async -> PluginError? {
    do {
        _ = try await body()
        return nil
    } catch let error as PluginError {
        return error
    } catch {
        Issue.record("not a PluginError: \(error)")
        return nil
    }
}

extension JSONValue {
    subscript(index: Int) -> JSONValue? {
        guard let array = arrayValue, array.indices.contains(index) else { return nil }
        return array[index]
    }
}
