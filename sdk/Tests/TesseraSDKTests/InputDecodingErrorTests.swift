import Foundation
import Testing
import TesseraSDK

/// A typed operation whose input does not decode answers `invalid_input` naming the field and the
/// rule, never Swift's own error text (issue 24: `exam-unregister {"termId": 1.67e29}` answered
/// with `DecodingError … Int64`).
@Suite struct InputDecodingErrorTests {
    struct Term: Decodable, Sendable { let termId: Int64 }
    struct Item: Decodable, Sendable { let name: String; let count: Int? }
    struct Order: Decodable, Sendable { let items: [Item] }
    enum Colour: String, Decodable, Sendable { case red, green }
    struct Paint: Decodable, Sendable { let colour: Colour }
    struct Dated: Decodable, Sendable { let at: Date }
    /// A type whose own decoding refuses with a rule of its own.
    struct Even: Decodable, Sendable {
        let n: Int
        init(from decoder: any Decoder) throws {
            let n = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .n)
            guard n % 2 == 0 else { throw PluginError(.invalidInput, "n must be even", field: "$.n") }
            self.n = n
        }
        enum CodingKeys: String, CodingKey { case n }
    }

    /// What the typed handler for `Input` throws for `input`.
    func refusal<Input: Decodable & Sendable>(_ type: Input.Type, _ input: JSONValue) async throws -> PluginError {
        let context = PluginContext(pluginID: "p", config: [:], capabilities: [], log: .discarding)
        context.onOperation("op", input: type) { _, _ in "ok" }
        let handler = try #require(context.operationHandler("op"))
        return try await #require(throws: PluginError.self) {
            _ = try await handler(OperationCall(operation: "op", input: input, principal: Principal(id: "u", role: .user)))
        }
    }

    @Test func anIntegerTooLargeNamesTheFieldAndTheRange() async throws {
        let error = try await refusal(Term.self, ["termId": .number(1.67e29)])
        #expect(error.code == .invalidInput)
        #expect(error.field == "$.termId")
        #expect(error.message == "$.termId must be an integer between -9223372036854775808 and 9223372036854775807")
        #expect(!error.message.contains("Int64") && !error.message.contains("DecodingError") && !error.message.contains("Swift"))
        let fraction = try await refusal(Term.self, ["termId": .number(1.5)])
        #expect(fraction.message.hasSuffix("must be an integer between -9223372036854775808 and 9223372036854775807"))
    }

    @Test func missingWrongKindAndNullAreNamedAtTheirPath() async throws {
        let missing = try await refusal(Order.self, ["items": [["name": "a"], ["count": 2]]])
        #expect(missing.field == "$.items[1].name")
        #expect(missing.message == "$.items[1].name is required")
        let kind = try await refusal(Order.self, ["items": [["name": 7]]])
        #expect(kind.field == "$.items[0].name")
        #expect(kind.message == "$.items[0].name must be a string")
        let notArray = try await refusal(Order.self, ["items": "x"])
        #expect(notArray.message == "$.items must be an array")
        let null = try await refusal(Order.self, ["items": .null])
        #expect(null.message == "$.items must be an array, not null")
        let count = try await refusal(Order.self, ["items": [["name": "a", "count": "two"]]])
        #expect(count.message == "$.items[0].count must be an integer")
    }

    @Test func anEnumOrADateSaysTheRuleWithoutTheTypesName() async throws {
        let colour = try await refusal(Paint.self, ["colour": "blue"])
        #expect(colour.field == "$.colour")
        #expect(colour.message == "$.colour is not one of the accepted values")
        #expect(!colour.message.contains("Colour"))
        let date = try await refusal(Dated.self, ["at": "tomorrow"])
        #expect(date.message == "$.at must be a date and time in ISO 8601, such as 2026-03-02T08:00:00Z")
    }

    @Test func aPluginErrorFromTheTypesOwnDecodingPassesAsItIs() async throws {
        let error = try await refusal(Even.self, ["n": 3])
        #expect(error == PluginError(.invalidInput, "n must be even", field: "$.n"))
    }

    @Test func aPartOfTheInputIsNamedUnderItsRoot() throws {
        let input: JSONValue = ["items": [["count": 1]]]
        let decoding = try #require(throws: DecodingError.self) { _ = try input.decode(as: Order.self) }
        let error = PluginError.invalidInput(decoding: decoding, at: "$.pack")
        #expect(error.field == "$.pack.items[0].name")
        #expect(error.message == "$.pack.items[0].name is required")
        // Foundation's decoder names positions the same way.
        let foundation = try #require(throws: DecodingError.self) {
            _ = try JSONDecoder().decode(Order.self, from: Data(#"{"items": [{"name": 1}]}"#.utf8))
        }
        #expect(PluginError.invalidInput(decoding: foundation).field == "$.items[0].name")
        let own = PluginError.invalidInput(decoding: PluginError(.invalidInput, "odd", field: "$.n"), at: "$.pack")
        #expect(own.field == "$.pack.n")
    }
}
