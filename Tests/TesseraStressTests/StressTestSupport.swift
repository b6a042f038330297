import Foundation
import Testing
@testable import TesseraStress
import TesseraTesting

/// Shared set-up: the stress module on a real host (PluginTestHost: real SQLite, the virtual clock
/// from 2026-01-01T00:00:00Z, a Thursday; 01:00 in Prague), and shortcuts to the states tests need.
enum StressFixture {
    static let manifest = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("manifests/stress.json").path

    static func host(config: JSONValue = [:], start: String = "2026-01-01T00:00:00Z") async throws -> PluginTestHost {
        try await PluginTestHost(manifest: manifest, plugin: { StressPlugin() }, config: config, start: try Date(start, strategy: .iso8601))
    }

    /// A host with consent given.
    static func consented(config: JSONValue = [:], start: String = "2026-01-01T00:00:00Z") async throws -> PluginTestHost {
        let host = try await host(config: config, start: start)
        _ = try await host.call("consent-give", ["consentVersion": "1", "accepted": true])
        return host
    }

    /// A host with both entry questionnaires in, so that week 1 is open.
    static func inWeekOne(config: JSONValue = [:], start: String = "2026-01-01T00:00:00Z") async throws -> PluginTestHost {
        let host = try await consented(config: config, start: start)
        try await submitEntry(host)
        return host
    }

    static func submitEntry(_ host: PluginTestHost) async throws {
        let pack = ShippedContent.pack
        _ = try await host.call("questionnaire-submit", ["kind": "entry", "answers": .array(pack.entryTest.items.map { ["questionId": .integer(Int64($0.id)), "value": 2] })])
        _ = try await host.call("questionnaire-submit", ["kind": "screen", "answers": .array(pack.screen.questions.map {
            ["questionId": .integer(Int64($0.id)), "optionId": .integer(Int64($0.options[0].id))]
        })])
    }

    static func goalAnswers() -> JSONValue {
        .array(ShippedContent.pack.goalQuestions.map { ["questionId": .integer(Int64($0.id)), "text": .string("answer \($0.id)")] })
    }

    static func timeAnswers() -> JSONValue {
        .array(ShippedContent.pack.timeQuestions.map { ["questionId": .integer(Int64($0.id)), "text": .string("plan \($0.id)")] })
    }

    /// Week 4's input with every item answered `answer`.
    static func meaning(answer: Int = 5) -> JSONValue {
        ["stressEvent": "Zkouška z matematiky", "positives": "Naučil jsem se plánovat",
         "results": .array(ShippedContent.pack.meaningQuestions.map { ["questionId": .integer(Int64($0.id)), "answer": .integer(Int64(answer))] })]
    }

    static func count(_ host: PluginTestHost, _ table: String) async throws -> Int64 {
        try await host.query("SELECT COUNT(*) AS n FROM \(table)").first?["n"].integer ?? -1
    }

    static func weekStates(_ host: PluginTestHost) async throws -> [String] {
        try await host.call("programme")["weeks"]?.arrayValue?.map { week in
            let state = week["state"]?.stringValue ?? "?"
            return week["reason"]?.stringValue.map { "\(state):\($0)" } ?? state
        } ?? []
    }
}

/// The reason code a refusal carries (the error's `reason`, never in the message), and its error code.
func refusal(_ body: () async throws -> Any) async -> (code: String, reason: String?)? {
    do {
        _ = try await body()
        return nil
    } catch let error as PluginError {
        #expect(!error.message.contains("(code "), "a reason code in the message: \(error.message)")
        let reason = error.reason?.rawValue
        return (error.code.rawValue, reason)
    } catch {
        return ("other: \(error)", nil)
    }
}

extension Date {
    init(_ iso: String) { self = try! Date(iso, strategy: .iso8601) }
}

extension JSONValue {
    /// The element at `index` of an array (nil for anything else or out of range).
    subscript(index: Int) -> JSONValue? {
        guard let array = arrayValue, array.indices.contains(index) else { return nil }
        return array[index]
    }
}
