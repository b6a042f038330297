import Testing
import TesseraSDK
@testable import TesseraSchema

@Suite("numeric keywords")
struct NumberTests {
    @Test func minimum() throws {
        try expectValid(#"{"minimum": 1}"#, "1")
        try expectValid(#"{"minimum": 1}"#, "1.5")
        let v = try single(#"{"minimum": 1}"#, "0")
        #expect(v.keyword == "minimum")
        #expect(v.expected == "at least 1")
        #expect(v.found == "0")
        #expect(v.message == "$: expected at least 1, found 0")
        let d = try single(#"{"minimum": 0.5}"#, "0.25")
        #expect(d.expected == "at least 0.5")
        #expect(d.found == "0.25")
    }

    @Test func maximum() throws {
        try expectValid(#"{"maximum": 10}"#, "10")
        let v = try single(#"{"maximum": 10}"#, "10.5")
        #expect(v.keyword == "maximum")
        #expect(v.expected == "at most 10")
        #expect(v.found == "10.5")
    }

    @Test func exclusiveMinimum() throws {
        try expectValid(#"{"exclusiveMinimum": 0}"#, "0.001")
        let v = try single(#"{"exclusiveMinimum": 0}"#, "0")
        #expect(v.keyword == "exclusiveMinimum")
        #expect(v.expected == "greater than 0")
        #expect(v.found == "0")
    }

    @Test func exclusiveMaximum() throws {
        try expectValid(#"{"exclusiveMaximum": 100}"#, "99.99")
        let v = try single(#"{"exclusiveMaximum": 100}"#, "100.0")
        #expect(v.keyword == "exclusiveMaximum")
        #expect(v.expected == "less than 100")
        #expect(v.found == "100")
    }

    @Test func boundsCompareLargeIntegersExactly() throws {
        // 2^53 + 1 and 2^53 are the same Double; they must not compare equal here.
        let v = try single(#"{"minimum": 9007199254740993}"#, "9007199254740992")
        #expect(v.keyword == "minimum")
        try expectValid(#"{"minimum": 9007199254740993}"#, "9007199254740993")
        try expectValid(#"{"maximum": 9223372036854775807}"#, "9223372036854775807")
        let mixed = try single(#"{"maximum": 9223372036854775807}"#, "1e19")
        #expect(mixed.keyword == "maximum")
    }

    @Test func numericKeywordsIgnoreOtherTypes() throws {
        try expectValid(#"{"minimum": 1, "maximum": 2, "multipleOf": 5}"#, #""a string""#)
        try expectValid(#"{"exclusiveMinimum": 1}"#, #"null"#)
    }

    @Test func multipleOfIntegers() throws {
        try expectValid(#"{"multipleOf": 5}"#, "10")
        try expectValid(#"{"multipleOf": 5}"#, "-15")
        try expectValid(#"{"multipleOf": 5}"#, "10.0")
        let v = try single(#"{"multipleOf": 5}"#, "12")
        #expect(v.keyword == "multipleOf")
        #expect(v.expected == "a multiple of 5")
        #expect(v.found == "12")
    }

    @Test func multipleOfDecimalsIsExact() throws {
        try expectValid(#"{"multipleOf": 0.01}"#, "12.34")
        try expectValid(#"{"multipleOf": 0.1}"#, "0.3")  // 0.3 / 0.1 is 2.9999999999999996 in binary
        try expectValid(#"{"multipleOf": 0.5}"#, "7")
        let v = try single(#"{"multipleOf": 0.01}"#, "1.005")
        #expect(v.expected == "a multiple of 0.01")
        #expect(v.found == "1.005")
        let i = try single(#"{"multipleOf": 0.5}"#, "7.25")
        #expect(i.keyword == "multipleOf")
    }
}

@Suite("string keywords")
struct StringTests {
    @Test func minLength() throws {
        try expectValid(#"{"minLength": 3}"#, #""abc""#)
        let v = try single(#"{"minLength": 3}"#, #""ab""#)
        #expect(v.keyword == "minLength")
        #expect(v.expected == "at least 3 characters")
        #expect(v.found == #"string "ab" (2 characters)"#)
    }

    @Test func maxLength() throws {
        try expectValid(#"{"maxLength": 3}"#, #""abc""#)
        let v = try single(#"{"maxLength": 3}"#, #""abcd""#)
        #expect(v.keyword == "maxLength")
        #expect(v.expected == "at most 3 characters")
        #expect(v.found == #"string "abcd" (4 characters)"#)
        let one = try single(#"{"maxLength": 1}"#, #""ab""#)
        #expect(one.expected == "at most 1 character")
    }

    @Test func lengthCountsUnicodeScalars() throws {
        try expectValid(#"{"maxLength": 1}"#, #""\u00e9""#)  // é, one scalar
        try expectValid(#"{"maxLength": 1}"#, #""😀""#)  // one scalar, two UTF-16 units
        try expectValid(#"{"minLength": 2, "maxLength": 2}"#, #""e\u0301""#)  // one Character, two scalars
        let v = try single(#"{"maxLength": 1}"#, #""e\u0301""#)
        #expect(v.found.hasSuffix("(2 characters)"))
        let emoji = try single(#"{"minLength": 2}"#, #""😀""#)
        #expect(emoji.found.hasSuffix("(1 character)"))
    }

    @Test func patternSearchesUnanchored() throws {
        try expectValid(#"{"pattern": "b"}"#, #""abc""#)
        try expectValid(#"{"pattern": "^[a-z]+$"}"#, #""abc""#)
        let v = try single(#"{"pattern": "^[a-z]+$"}"#, #""ABC""#)
        #expect(v.keyword == "pattern")
        #expect(v.expected == "a string matching /^[a-z]+$/")
        #expect(v.found == #"string "ABC""#)
        let miss = try single(#"{"pattern": "x"}"#, #""abc""#)
        #expect(miss.keyword == "pattern")
    }

    /// A schema whose patterns are compiled when first used (the host's own schemas) accepts and
    /// refuses exactly what one compiled at once does, `pattern` and `patternProperties` alike,
    /// the same value twice (the second match finds the expression compiled); an invalid pattern
    /// is refused only by the compilation that checks patterns.
    @Test func patternsCompiledWhenFirstUsedAcceptAndRefuseAsOnesCompiledAtOnce() throws {
        let text = #"{"type": "object", "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}}, "patternProperties": {"^x-[a-z]+$": {"type": "integer"}}}"#
        let atOnce = try JSONSchema(parsing: text)
        let deferred = try JSONSchema(parsing: text, patterns: .whenFirstUsed)
        let instances = [#"{"code": "CZK"}"#, #"{"code": "czk"}"#, #"{"code": "CZK\n"}"#, #"{"x-limit": 3}"#, #"{"x-limit": "3"}"#,
                         #"{"code": "EUR", "x-a": 1, "x-b": "two"}"#, #"{"code": "CZK"}"#, #"{"x-limit": "3"}"#]
        for instance in instances {
            let value = try JSONValue(parsing: instance)
            #expect(deferred.validate(value).map(\.message) == atOnce.validate(value).map(\.message), "\(instance)")
        }
        #expect(deferred.validate(try JSONValue(parsing: #"{"code": "czk", "x-b": "two"}"#)).count == 2)
        let invalid = #"{"pattern": "[a-"}"#
        #expect(throws: SchemaError.self) { try JSONSchema(parsing: invalid) }
        _ = try JSONSchema(parsing: invalid, patterns: .whenFirstUsed)
    }

    /// Issue 24: a refusal by a pattern reads in the schema's words when it has a description, so
    /// that a person never meets a regular expression; without one, the pattern is all there is.
    @Test func patternRefusalIsWordedByTheDescription() throws {
        let month = #"{"type": "string", "pattern": "^[0-9]{4}-(0[1-9]|1[0-2])$", "description": "A month, YYYY-MM."}"#
        try expectValid(month, #""2026-03""#)
        let v = try single(month, #""2026-13""#)
        #expect(v.keyword == "pattern")
        #expect(v.expected == "a month, YYYY-MM")
        #expect(v.message == #"$: expected a month, YYYY-MM, found string "2026-13""#)
        // An acronym at the start keeps its capitals; blank words fall back to the pattern.
        #expect(try single(#"{"pattern": "^CZ", "description": "IBAN of a Czech account"}"#, #""SK12""#).expected == "IBAN of a Czech account")
        #expect(try single(#"{"pattern": "^a$", "description": "  "}"#, #""b""#).expected == "a string matching /^a$/")
        // A description of the wrong type is a schema error, as every keyword's is.
        #expect(try compileError(#"{"description": 3}"#).message == "description must be a string, found integer 3")
    }

    /// Schemas compiled apart share one compiled expression per pattern (the shipped manifests
    /// repeat a few dozen patterns some 250 times), and validating with it from many tasks at once
    /// gives each the same answers as alone.
    @Test func aPatternNamedInManySchemasIsCompiledOnceAndMatchesFromManyTasksAtOnce() async throws {
        let source = "^[0-9]{4}-(0[1-9]|1[0-2])-shared-by-schemas$"
        let first = try Pattern(source), second = try Pattern(source)
        #expect(first.regex === second.regex)
        #expect(try Pattern("^other$").regex !== first.regex)
        #expect(try Pattern(source, compilation: .whenFirstUsed).regex === first.regex)  // compiled when asked, shared too
        let month = try schema(#"{"type": "string", "pattern": "\#(source)"}"#)
        let results = await withTaskGroup(of: (Bool, Bool).self) { group in
            for i in 0..<200 {
                group.addTask {
                    let good = month.validate(.string("20\(10 + i % 90)-0\(1 + i % 9)-shared-by-schemas")).isEmpty
                    let bad = month.validate(.string("20\(10 + i % 90)-13-shared-by-schemas")).isEmpty
                    return (good, bad)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 200 && results.allSatisfy { $0 == (true, false) })
    }

    @Test func patternDollarIsTheEndOfTheString() throws {
        let v = try single(#"{"pattern": "^[a-z]+$"}"#, #""abc\n""#)
        #expect(v.keyword == "pattern")
        #expect(v.found == #"string "abc\n""#)
        try expectValid(#"{"pattern": "^[a$]+$"}"#, #""a$a""#)  // $ inside a class is literal
    }

    @Test func patternDigitsAreAscii() throws {
        try expectValid(#"{"pattern": "^\\d+$"}"#, #""2024""#)
        let v = try single(#"{"pattern": "^\\d+$"}"#, #""١٢""#)  // Arabic-Indic digits
        #expect(v.keyword == "pattern")
        try expectValid(#"{"pattern": "^[\\w-]+$"}"#, #""a_b-9""#)
        _ = try single(#"{"pattern": "^\\w+$"}"#, #""é""#)
    }

    @Test func stringKeywordsIgnoreOtherTypes() throws {
        try expectValid(#"{"minLength": 3, "pattern": "^a", "format": "date"}"#, "12")
    }

    @Test func longFoundValuesAreShortened() throws {
        let long = String(repeating: "x", count: 200)
        let v = try single(#"{"maxLength": 5}"#, "\"\(long)\"")
        #expect(v.found.contains("…"))
        #expect(v.found.count < 80)
        #expect(v.found.hasSuffix("(200 characters)"))
        let big = try single(#"{"type": "string"}"#, "[" + Array(repeating: "12345", count: 100).joined(separator: ",") + "]")
        #expect(big.found.hasPrefix("array [12345,"))
        #expect(big.found.hasSuffix("…"))
        #expect(big.found.count < 60)
    }
}
