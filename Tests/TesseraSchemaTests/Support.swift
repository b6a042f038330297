import Testing
import TesseraSDK
@testable import TesseraSchema

/// Parses JSON text, failing the test when it is not JSON.
func json(_ text: String) throws -> JSONValue {
    try JSONValue(parsing: text)
}

/// Compiles a schema from JSON text.
func schema(_ text: String) throws -> JSONSchema {
    try JSONSchema(parsing: text)
}

/// All violations of `instance` against `schemaText`.
func violations(_ schemaText: String, _ instance: String) throws -> [SchemaViolation] {
    let s = try schema(schemaText)
    let v = try json(instance)
    let found = s.validate(v)
    // The fast path and the describing path must agree.
    #expect(s.isValid(v) == found.isEmpty, "isValid disagrees with validate for \(instance)")
    return found
}

/// The one violation of `instance` against `schemaText`; fails the test if there is not exactly one.
func single(_ schemaText: String, _ instance: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> SchemaViolation {
    let found = try violations(schemaText, instance)
    #expect(found.count == 1, "expected one violation, got \(found.map(\.message))", sourceLocation: sourceLocation)
    return try #require(found.first, sourceLocation: sourceLocation)
}

/// Expects `instance` to be valid against `schemaText`.
func expectValid(_ schemaText: String, _ instance: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let found = try violations(schemaText, instance)
    #expect(found.isEmpty, "\(instance) should be valid, got \(found.map(\.message))", sourceLocation: sourceLocation)
}

/// The compile error for `schemaText`; fails the test when it compiles.
func compileError(_ schemaText: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> SchemaError {
    let value = try json(schemaText)
    switch Result(catching: { () throws(SchemaError) in try JSONSchema(value) }) {
    case .failure(let error):
        return error
    case .success:
        Issue.record("schema compiled but should not have: \(schemaText)", sourceLocation: sourceLocation)
        throw UnexpectedlyCompiled()
    }
}

struct UnexpectedlyCompiled: Error {}
