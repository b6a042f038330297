import Foundation
import Testing
import TesseraSDK
@testable import TesseraSchema

@Suite("allOf, anyOf, oneOf, not, if/then/else")
struct CombinatorTests {
    @Test func allOfReportsEachFailingPart() throws {
        let s = #"{"allOf": [{"type": "integer"}, {"minimum": 3}, {"maximum": 10}]}"#
        try expectValid(s, "5")
        let v = try single(s, "2")
        #expect(v.keyword == "minimum")
        #expect(v.expected == "at least 3")
        let two = try violations(s, "2.5")
        #expect(two.map(\.keyword) == ["type", "minimum"])
    }

    @Test func anyOf() throws {
        let s = #"{"anyOf": [{"type": "string"}, {"type": "integer"}]}"#
        try expectValid(s, #""a""#)
        try expectValid(s, "1")
        let v = try single(s, "1.5")
        #expect(v.path == "$")
        #expect(v.keyword == "anyOf")
        #expect(v.expected == "at least one of 2 alternatives")
        #expect(v.found == "none matched: $: expected string, found number 1.5")
    }

    @Test func anyOfNamesTheClosestAlternative() throws {
        let s = #"{"anyOf": [{"required": ["a", "b", "c"]}, {"required": ["x"]}]}"#
        let v = try single(s, "{}")
        #expect(v.found == "none matched: $.x: expected a value (required member), found missing")
    }

    @Test func oneOf() throws {
        let s = #"{"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 0}]}"#
        try expectValid(s, "-1")  // only the first
        try expectValid(s, "0.5")  // only the second
        let both = try single(s, "5")
        #expect(both.keyword == "oneOf")
        #expect(both.expected == "exactly one of 2 alternatives")
        #expect(both.found == "2 matched")
        let none = try single(s, #""a""#)
        #expect(none.found == #"none matched: $: expected integer, found string "a""#)
    }

    @Test func oneOfAtANestedPath() throws {
        let s = ##"""
        {"properties": {"pay": {"oneOf": [
            {"properties": {"kind": {"const": "cash"}}, "required": ["kind"]},
            {"properties": {"kind": {"const": "bank"}, "iban": {"type": "string"}}, "required": ["kind", "iban"]}
        ]}}}
        """##
        try expectValid(s, #"{"pay": {"kind": "cash"}}"#)
        try expectValid(s, #"{"pay": {"kind": "bank", "iban": "DE00"}}"#)
        let v = try single(s, #"{"pay": {"kind": "card"}}"#)
        #expect(v.path == "$.pay")
        #expect(v.keyword == "oneOf")
        #expect(v.found == #"none matched: $.pay.kind: expected "cash", found string "card""#)
    }

    @Test func not() throws {
        let s = #"{"not": {"type": "string"}}"#
        try expectValid(s, "1")
        let v = try single(s, #""a""#)
        #expect(v.keyword == "not")
        #expect(v.expected == "a value that does not match the schema at #/not")
        #expect(v.found == #"string "a""#)
    }

    @Test func ifThenElse() throws {
        let s = ##"""
        {"if": {"properties": {"kind": {"const": "bank"}}, "required": ["kind"]},
         "then": {"required": ["iban"]},
         "else": {"required": ["cashBox"]}}
        """##
        try expectValid(s, #"{"kind": "bank", "iban": "x"}"#)
        try expectValid(s, #"{"kind": "cash", "cashBox": "a"}"#)
        let then = try single(s, #"{"kind": "bank"}"#)
        #expect(then.path == "$.iban")
        #expect(then.keyword == "required")
        let otherwise = try single(s, #"{"kind": "cash"}"#)
        #expect(otherwise.path == "$.cashBox")
    }

    @Test func thenAndElseWithoutIfDoNothing() throws {
        try expectValid(#"{"then": false, "else": false}"#, "1")
        let v = try single(#"{"if": true, "then": false}"#, "1")
        #expect(v.keyword == "false")
    }
}

@Suite("$ref and $defs")
struct RefTests {
    @Test func refToDefs() throws {
        let s = ##"{"$defs": {"positive": {"type": "integer", "minimum": 1}}, "properties": {"n": {"$ref": "#/$defs/positive"}}}"##
        try expectValid(s, #"{"n": 3}"#)
        let v = try single(s, #"{"n": 0}"#)
        #expect(v.path == "$.n")
        #expect(v.keyword == "minimum")
    }

    @Test func refToDefinitions() throws {
        let s = ##"{"definitions": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}}, "items": {"$ref": "#/definitions/code"}}"##
        try expectValid(s, #"["EUR", "USD"]"#)
        let v = try single(s, #"["EUR", "usd"]"#)
        #expect(v.path == "$[1]")
        #expect(v.keyword == "pattern")
    }

    @Test func refWithSiblingKeywords() throws {
        let s = ##"{"$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s", "maxLength": 2}"##
        try expectValid(s, #""ab""#)
        #expect(try single(s, #""abc""#).keyword == "maxLength")
        #expect(try single(s, "1").keyword == "type")
    }

    @Test func refWithEscapedNames() throws {
        let s = ##"{"$defs": {"a/b": {"type": "string"}, "c d": {"type": "integer"}}, "prefixItems": [{"$ref": "#/$defs/a~1b"}, {"$ref": "#/$defs/c%20d"}]}"##
        try expectValid(s, #"["x", 1]"#)
        let v = try violations(s, #"[1, "x"]"#)
        #expect(v.map(\.expected) == ["string", "integer"])
    }

    /// A `$ref`'s percent escapes and JSON Pointer escapes are decoded on the bytes as Foundation's
    /// `removingPercentEncoding` and RFC 6901 decode them (the compiler no longer bridges through
    /// `CFString`), including what is not an escape and what is a bad one.
    @Test func refEscapesDecodeAsFoundationDecodesThem() throws {
        let texts = ["", "plain", "c%20d", "%7e0", "a%2Fb", "%C3%A9t%C3%A9", "100%", "%2", "%zz", "%C3", "%e2%82%ac", "50%25", "%%41"]
        for text in texts {
            #expect(Compiler.percentDecoded(Substring(text)) == text.removingPercentEncoding, "\(text)")
        }
        let tokens = ["a~1b", "a~0b", "~01", "~10", "~~0", "~", "a~", "~x", "~0~1~0", "no escape", "é~1ü"]
        for token in tokens {
            let foundation = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            #expect(Compiler.unescape(Substring(token)) == foundation, "\(token)")
        }
        let s = ##"{"$defs": {"a~b/c": {"type": "string"}, "50%": {"type": "integer"}}, "prefixItems": [{"$ref": "#/$defs/a~0b~1c"}, {"$ref": "#/$defs/50%25"}]}"##
        try expectValid(s, #"["x", 1]"#)
        #expect(try violations(s, #"[1, "x"]"#).map(\.expected) == ["string", "integer"])
        #expect(throws: SchemaError.self) { try schema(##"{"$defs": {"a": true}, "items": {"$ref": "#/$defs/%zz"}}"##) }
    }

    @Test func recursionThroughTheRoot() throws {
        let tree = ##"""
        {"type": "object", "required": ["value"], "additionalProperties": false,
         "properties": {"value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#"}}}}
        """##
        try expectValid(tree, #"{"value": 1, "children": [{"value": 2}, {"value": 3, "children": [{"value": 4, "children": []}]}]}"#)
        let v = try single(tree, #"{"value": 1, "children": [{"value": 2}, {"value": 3, "children": [{"value": "x"}]}]}"#)
        #expect(v.path == "$.children[1].children[0].value")
        #expect(v.keyword == "type")
        let missing = try single(tree, #"{"value": 1, "children": [{"children": []}]}"#)
        #expect(missing.path == "$.children[0].value")
        #expect(missing.keyword == "required")
    }

    @Test func recursionThroughDefs() throws {
        let list = ##"""
        {"$ref": "#/$defs/node",
         "$defs": {"node": {"type": "object", "properties": {"v": {"type": "string"}, "next": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/node"}]}}}}}
        """##
        try expectValid(list, #"{"v": "a", "next": {"v": "b", "next": null}}"#)
        let v = try single(list, #"{"v": "a", "next": {"v": "b", "next": {"v": 3, "next": null}}}"#)
        // The outermost oneOf that fails reports. Its closest alternative is the object one (its type
        // fits, unlike null's), and that fails in a nested oneOf: the innermost fault is named.
        #expect(v.path == "$.next")
        #expect(v.keyword == "oneOf")
        #expect(v.found == "none matched: $.next.next.v: expected string, found integer 3")
    }

    @Test func refCycleIsACompileError() throws {
        let selfRef = try compileError(##"{"$ref": "#"}"##)
        #expect(selfRef.message.contains("cycle"))
        let mutual = try compileError(##"{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}}"##)
        #expect(mutual.message.contains("cycle"))
        #expect(mutual.message.contains("#/$defs/a"))
    }

    @Test func unresolvedRefIsACompileError() throws {
        let e = try compileError(##"{"properties": {"a": {"$ref": "#/$defs/missing"}}}"##)
        #expect(e.location == "#/properties/a/$ref")
        #expect(e.message.contains("does not resolve"))
        let remote = try compileError(#"{"$ref": "https://example.com/schema.json"}"#)
        #expect(remote.message.contains("not supported"))
        let anchor = try compileError(##"{"$ref": "#name"}"##)
        #expect(anchor.location == "#/$ref")
    }
}
