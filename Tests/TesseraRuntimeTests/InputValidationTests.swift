import Foundation
import Testing
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// The host validates every input against the operation's schema before the plugin sees it, and the
/// error names the field.
@Suite struct InputValidationTests {
    static var schema: [String: Any] { [
        "type": "object", "additionalProperties": false, "required": ["name"],
        "properties": [
            "name": ["type": "string", "minLength": 2, "maxLength": 5, "pattern": "^[a-z]+$"],
            "kind": ["enum": ["a", "b"]],
            "fixed": ["const": 42],
            "n": ["type": "integer", "minimum": 1, "maximum": 10],
            "day": ["type": "string", "format": "date"],
            "at": ["type": "string", "format": "date-time"],
            "tags": ["type": "array", "items": ["type": "string"], "minItems": 1, "maxItems": 2],
            "amount": ["oneOf": [["type": "integer"], ["type": "string", "pattern": "^[0-9]+$"]]],
            "contact": ["anyOf": [["type": "string", "format": "email"], ["type": "null"]]],
            "note": ["type": "string", "nullable": true],
        ] as [String: Any],
    ] }

    struct Case: Sendable, CustomTestStringConvertible {
        let keyword: String
        let input: JSONValue
        let field: String
        var testDescription: String { keyword }
    }

    static let cases: [Case] = [
        Case(keyword: "type", input: ["name": 5], field: "$.name"),
        Case(keyword: "required", input: [:], field: "$.name"),
        Case(keyword: "additionalProperties", input: ["name": "ab", "zzz": 1], field: "$.zzz"),
        Case(keyword: "enum", input: ["name": "ab", "kind": "c"], field: "$.kind"),
        Case(keyword: "const", input: ["name": "ab", "fixed": 41], field: "$.fixed"),
        Case(keyword: "minimum", input: ["name": "ab", "n": 0], field: "$.n"),
        Case(keyword: "maximum", input: ["name": "ab", "n": 11], field: "$.n"),
        Case(keyword: "integer type", input: ["name": "ab", "n": 2.5], field: "$.n"),
        Case(keyword: "minLength", input: ["name": "a"], field: "$.name"),
        Case(keyword: "maxLength", input: ["name": "abcdef"], field: "$.name"),
        Case(keyword: "pattern", input: ["name": "AB"], field: "$.name"),
        Case(keyword: "format date", input: ["name": "ab", "day": "2023-02-29"], field: "$.day"),
        Case(keyword: "format date-time", input: ["name": "ab", "at": "2026-01-01 10:00"], field: "$.at"),
        Case(keyword: "items", input: ["name": "ab", "tags": [1]], field: "$.tags[0]"),
        Case(keyword: "minItems", input: ["name": "ab", "tags": []], field: "$.tags"),
        Case(keyword: "maxItems", input: ["name": "ab", "tags": ["x", "y", "z"]], field: "$.tags"),
        Case(keyword: "oneOf", input: ["name": "ab", "amount": true], field: "$.amount"),
        Case(keyword: "anyOf", input: ["name": "ab", "contact": 5], field: "$.contact"),
        Case(keyword: "nullable", input: ["name": "ab", "note": 5], field: "$.note"),
        Case(keyword: "not an object", input: ["ab"], field: "$"),
    ]

    static func host() async throws -> PluginHost {
        let ws = FixtureWorkspace("input")
        ws.addManifest(id: "fixture.good", library: try await PluginBuilder.library(.good)) { m in
            m["operations"] = [["name": "hello", "input": schema, "output": ["type": "object"]]]
        }
        ws.writeDeployment(plugins: [entry("fixture.good")])
        return try await startHost(ws)
    }

    @Test(arguments: cases)
    func violationIsRefusedNamingTheField(_ c: Case) async throws {
        let host = try await Self.host()
        let error = try #require(await callError(host, "fixture.good", "hello", c.input))
        #expect(error.code == .invalidInput)
        #expect(error.field == c.field)
        #expect(error.message.contains(c.field))
    }

    @Test func validInputReachesThePlugin() async throws {
        let host = try await Self.host()
        let input: JSONValue = ["name": "ab", "kind": "a", "fixed": 42, "n": 3, "day": "2024-02-29", "at": "2026-01-01T10:00:00Z",
                                "tags": ["x"], "amount": "12", "contact": .null, "note": .null]
        let answer = try await host.call("fixture.good", "hello", input: input, as: admin)
        #expect(answer["hello"] == "ab")
    }

    @Test func malformedJSONTextIsRefusedWithItsOffset() async throws {
        let host = try await Self.host()
        do {
            _ = try await host.call("fixture.good", "hello", json: Array(#"{"name": "ab",}"#.utf8), as: admin)
            Issue.record("malformed JSON was accepted")
        } catch {
            #expect(error.code == .invalidInput)
            #expect(error.message.contains("byte"))
        }
    }
}
