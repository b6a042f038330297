import Testing
import TesseraSDK
import TesseraSchema

/// Inputs made from a schema for `tessera plugins check` (``SchemaExample``): the schema's own
/// hints first, then the smallest value of its type, and never a value for a pattern it cannot know.
@Suite struct SchemaExampleTests {
    /// The value made for `text`, after checking that the schema accepts it.
    func made(_ text: String) throws -> JSONValue? {
        let document = try json(text)
        guard let value = SchemaExample.make(document) else { return nil }
        let refusals = try JSONSchema(document).validate(value)
        #expect(refusals.isEmpty, "\(value) for \(text): \(refusals)")
        return value
    }

    @Test func theSchemasOwnHintsComeFirst() throws {
        #expect(try made(#"{"type": "string", "pattern": "^[0-9]+[dhm]$", "examples": ["30m", "2h"]}"#) == "30m")
        #expect(try made(#"{"type": "integer", "minimum": 1, "default": 7}"#) == 7)
        #expect(try made(#"{"const": "v1"}"#) == "v1")
        #expect(try made(#"{"enum": ["weight-for-age", "length-for-age"]}"#) == "weight-for-age")
    }

    @Test func anObjectHasItsRequiredMembersOnly() throws {
        let value = try made(#"""
            {"type": "object", "required": ["text", "when"], "additionalProperties": false,
             "properties": {"text": {"type": "string", "minLength": 1, "maxLength": 200},
                            "when": {"type": "string", "format": "date-time"}, "stars": {"type": "integer"}}}
            """#)
        #expect(value == ["text": "example", "when": "2026-03-02T09:00:00Z"])
    }

    @Test func stringsFollowTheirFormatAndLength() throws {
        for format in ["date", "date-time", "time", "email", "uuid", "uri"] {
            #expect(try made(#"{"type": "string", "format": "\#(format)"}"#) != nil, "\(format)")
        }
        #expect(try made(#"{"type": "string", "minLength": 20}"#)?.stringValue?.count == 20)
        #expect(try made(#"{"type": "string", "maxLength": 3}"#)?.stringValue?.count == 3)
    }

    @Test func numbersStayWithinTheirBounds() throws {
        #expect(try made(#"{"type": "integer", "minimum": 5, "maximum": 9}"#) == 5)
        #expect(try made(#"{"type": "integer", "exclusiveMinimum": 0}"#) == 1)
        #expect(try made(#"{"type": "integer", "maximum": -3}"#) == -3)
        #expect(try made(#"{"type": "number", "minimum": 0.5, "multipleOf": 0.25}"#) == .number(0.5))
    }

    @Test func arraysHaveTheirLeastLengthAndBranchesTheirFirstThatWorks() throws {
        #expect(try made(#"{"type": "array", "items": {"type": "integer"}}"#) == [])
        #expect(try made(#"{"type": "array", "minItems": 2, "items": {"type": "boolean"}}"#) == [true, true])
        #expect(try made(#"{"anyOf": [{"type": "string", "pattern": "^x+$"}, {"type": "integer", "minimum": 3}]}"#) == 3)
        #expect(try made(#"{"type": ["null", "string"]}"#) == "example")
    }

    @Test func aPatternWithoutAnExampleGivesNothing() throws {
        #expect(try made(#"{"type": "string", "pattern": "^[0-9]{3}$"}"#) == nil)
        #expect(try made(#"{"type": "object", "required": ["code"], "properties": {"code": {"type": "string", "pattern": "^[A-Z]{2}$"}}}"#) == nil)
    }
}
