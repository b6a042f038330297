import Testing
import TesseraSDK
@testable import TesseraSchema

/// `PatternCompilation.checkedOnly`: a schema compiled only to be checked refuses a pattern that
/// does not compile, keeps none of its expressions for other schemas, and still matches as a
/// schema compiled with its patterns when it is used after all.
@Suite("patterns compiled only to be checked")
struct PatternCompilationTests {
    @Test func anInvalidPatternIsRefused() {
        #expect(throws: SchemaError.self) {
            _ = try JSONSchema(try json(#"{"type": "string", "pattern": "(unclosed"}"#), patterns: .checkedOnly)
        }
        #expect(throws: SchemaError.self) {
            _ = try JSONSchema(try json(#"{"type": "object", "patternProperties": {"[": {}}}"#), patterns: .checkedOnly)
        }
    }

    @Test func itsExpressionsAreNotKeptForOtherSchemas() throws {
        // A pattern no other test writes, so no schema has shared it before.
        let source = "^checked-only-[0-9]{3}-\(UInt32.random(in: 0...UInt32.max))$"
        let text = #"{"type": "string", "pattern": "\#(source)"}"#
        _ = try JSONSchema(try json(text), patterns: .checkedOnly)
        #expect(!Pattern.isShared(source))
        _ = try JSONSchema(try json(text))
        #expect(Pattern.isShared(source))
    }

    @Test func itMatchesAsACompiledSchemaWhenUsed() throws {
        let text = #"{"type": "object", "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}}, "patternProperties": {"^x-": {"type": "integer"}}}"#
        let checked = try JSONSchema(try json(text), patterns: .checkedOnly)
        let compiled = try JSONSchema(try json(text))
        for instance in [#"{"code": "CZK"}"#, #"{"code": "czk"}"#, #"{"code": "CZK\n"}"#, #"{"x-a": 1}"#, #"{"x-a": "1"}"#] {
            let value = try json(instance)
            #expect(checked.validate(value).map(\.message) == compiled.validate(value).map(\.message), "\(instance)")
            #expect(checked.isValid(value) == compiled.isValid(value), "\(instance)")
        }
    }
}
