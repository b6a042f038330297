import Testing
import TesseraSDK
@testable import TesseraSchema

@Suite("type, nullable, enum, const")
struct TypeAndValueTests {
    @Test func typeAcceptsItsType() throws {
        try expectValid(#"{"type": "string"}"#, #""abc""#)
        try expectValid(#"{"type": "object"}"#, #"{}"#)
        try expectValid(#"{"type": "array"}"#, #"[]"#)
        try expectValid(#"{"type": "boolean"}"#, #"false"#)
        try expectValid(#"{"type": "null"}"#, #"null"#)
    }

    @Test func typeRefusesAnotherType() throws {
        let v = try single(#"{"type": "string"}"#, #"12"#)
        #expect(v.path == "$")
        #expect(v.keyword == "type")
        #expect(v.expected == "string")
        #expect(v.found == "integer 12")
        #expect(v.message == "$: expected string, found integer 12")
    }

    @Test func typeAsAnArray() throws {
        try expectValid(#"{"type": ["string", "null"]}"#, #"null"#)
        try expectValid(#"{"type": ["string", "null"]}"#, #""x""#)
        let v = try single(#"{"type": ["string", "null"]}"#, #"1.5"#)
        #expect(v.keyword == "type")
        #expect(v.expected == "string or null")
        #expect(v.found == "number 1.5")
        let three = try single(#"{"type": ["string", "integer", "null"]}"#, #"true"#)
        #expect(three.expected == "string, integer or null")
        #expect(three.found == "boolean true")
    }

    @Test func integerAcceptsWholeNumbersOnly() throws {
        try expectValid(#"{"type": "integer"}"#, #"3"#)
        try expectValid(#"{"type": "integer"}"#, #"3.0"#)  // .number with no fraction
        try expectValid(#"{"type": "integer"}"#, #"1e2"#)
        try expectValid(#"{"type": "integer"}"#, #"-0.0"#)
        try expectValid(#"{"type": "integer"}"#, #"9223372036854775807"#)
        try expectValid(#"{"type": "integer"}"#, #"-9.2e18"#)
        let v = try single(#"{"type": "integer"}"#, #"3.5"#)
        #expect(v.expected == "integer")
        #expect(v.found == "number 3.5")
        let s = try single(#"{"type": "integer"}"#, #""3""#)
        #expect(s.found == #"string "3""#)
    }

    /// What a host or a plugin can hold: a whole number beyond 64 bits is refused here, with the
    /// range, not later by the code that reads it (issue 24: `{"termId": 1.67e29}` passed the
    /// schema and failed in the plugin's decoding with Swift's error text).
    @Test func integerFitsIn64Bits() throws {
        // Issue 43: one below −2^63 rounds to −2^63 as a Double; it is refused like its positive twin.
        for beyond in ["1e20", "1.67e29", "9223372036854775808", "-1e19", "-9223372036854775809"] {
            let v = try single(#"{"type": "integer"}"#, beyond)
            #expect(v.keyword == "type", "\(beyond)")
            #expect(v.expected == "an integer between -9223372036854775808 and 9223372036854775807", "\(beyond)")
        }
        try expectValid(#"{"type": "number"}"#, "1e20")
        try expectValid(#"{"type": ["integer", "number"]}"#, "1e20")
        try expectValid(#"{"type": "integer"}"#, "-9223372036854775808")  // −2^63 itself fits
    }

    @Test func numberAcceptsIntegersToo() throws {
        try expectValid(#"{"type": "number"}"#, #"3"#)
        try expectValid(#"{"type": "number"}"#, #"3.5"#)
        let v = try single(#"{"type": "number"}"#, #""3.5""#)
        #expect(v.expected == "number")
        #expect(v.found == #"string "3.5""#)
    }

    @Test func messageNamesPathExpectedAndFound() throws {
        let v = try single(#"{"type": "object", "properties": {"amount": {"type": "integer"}}}"#, #"{"amount": "12"}"#)
        #expect(v.message == #"$.amount: expected integer, found string "12""#)
        #expect(v.description == v.message)
    }

    @Test func nullableAddsNull() throws {
        try expectValid(#"{"type": "string", "nullable": true}"#, #"null"#)
        try expectValid(#"{"type": "string", "nullable": true}"#, #""a""#)
        // nullable accepts null outright, even where enum would not.
        try expectValid(#"{"type": "string", "enum": ["a"], "nullable": true}"#, #"null"#)
        let v = try single(#"{"type": "string", "nullable": true}"#, #"1"#)
        #expect(v.keyword == "type")
        #expect(v.expected == "string or null")
        #expect(v.found == "integer 1")
    }

    @Test func withoutNullableNullIsRefused() throws {
        let v = try single(#"{"type": "string"}"#, #"null"#)
        #expect(v.found == "null")
        let f = try single(#"{"type": "string", "nullable": false}"#, #"null"#)
        #expect(f.keyword == "type")
        #expect(f.expected == "string")
    }

    @Test func enumAcceptsListedValues() throws {
        try expectValid(#"{"enum": ["cash", "bank"]}"#, #""cash""#)
        try expectValid(#"{"enum": [1, "a", null]}"#, #"1.0"#)  // 1 equals 1.0
        try expectValid(#"{"enum": [{"a": 1}]}"#, #"{"a": 1.0}"#)
        try expectValid(#"{"enum": [[1, 2]]}"#, #"[1, 2]"#)
    }

    @Test func enumRefusesOtherValues() throws {
        let v = try single(#"{"enum": ["cash", "bank"]}"#, #""card""#)
        #expect(v.keyword == "enum")
        #expect(v.expected == #"one of "cash", "bank""#)
        #expect(v.found == #"string "card""#)
        let o = try single(#"{"enum": [{"a": 1}]}"#, #"{"a": 2}"#)
        #expect(o.found == #"object {"a":2}"#)
        let order = try single(#"{"enum": [[1, 2]]}"#, #"[2, 1]"#)
        #expect(order.keyword == "enum")
    }

    @Test func constAcceptsTheValue() throws {
        try expectValid(#"{"const": "cash"}"#, #""cash""#)
        try expectValid(#"{"const": 1}"#, #"1.0"#)
        try expectValid(#"{"const": null}"#, #"null"#)
        try expectValid(#"{"const": {"a": [1, true]}}"#, #"{"a": [1, true]}"#)
    }

    @Test func constRefusesAnythingElse() throws {
        let v = try single(#"{"const": "cash"}"#, #""bank""#)
        #expect(v.keyword == "const")
        #expect(v.expected == #""cash""#)
        #expect(v.found == #"string "bank""#)
        let n = try single(#"{"const": null}"#, #"0"#)
        #expect(n.expected == "null")
        #expect(n.found == "integer 0")
        let o = try single(#"{"const": {"a": [1, true]}}"#, #"{"a": [1, false]}"#)
        #expect(o.keyword == "const")
    }

    @Test func booleanSchemas() throws {
        try expectValid("true", #"{"anything": [1, 2]}"#)
        try expectValid("{}", #""anything""#)
        let v = try single("false", #"1"#)
        #expect(v.keyword == "false")
        #expect(v.path == "$")
        #expect(v.found == "integer 1")
        let member = try single(#"{"properties": {"a": false}}"#, #"{"a": 1}"#)
        #expect(member.path == "$.a")
        #expect(member.keyword == "properties")
        #expect(member.message.contains("not allowed"))
        try expectValid(#"{"properties": {"a": false}}"#, #"{"b": 1}"#)
    }
}
