import Testing
import TesseraSDK
@testable import TesseraSchema

@Suite("object keywords")
struct ObjectTests {
    @Test func properties() throws {
        let s = #"{"properties": {"name": {"type": "string"}, "age": {"type": "integer"}}}"#
        try expectValid(s, #"{"name": "Ada", "age": 36, "other": true}"#)
        try expectValid(s, #"{}"#)
        let v = try single(s, #"{"name": "Ada", "age": "36"}"#)
        #expect(v.path == "$.age")
        #expect(v.keyword == "type")
        #expect(v.found == #"string "36""#)
    }

    @Test func requiredReportsTheMissingMember() throws {
        let s = #"{"required": ["name", "age"]}"#
        try expectValid(s, #"{"name": "x", "age": 1}"#)
        let v = try single(s, #"{"name": "x"}"#)
        #expect(v.path == "$.age")
        #expect(v.keyword == "required")
        #expect(v.found == "missing")
        #expect(v.message == "$.age: expected a value (required member), found missing")
        let both = try violations(s, #"{}"#)
        #expect(both.map(\.path) == ["$.age", "$.name"])
        try expectValid(s, #""not an object""#)
    }

    @Test func requiredMembersThatAreAlsoDeclared() throws {
        // Without additionalProperties the declared members are looked up; with it, the
        // instance's members are walked: both ways must count required members right.
        for extra in ["", #", "additionalProperties": true"#, #", "additionalProperties": false"#] {
            let s = #"{"properties": {"a": {"type": "integer"}, "b": {}, "c": {}}, "required": ["a", "b"]"# + extra + "}"
            try expectValid(s, #"{"a": 1, "b": 2}"#)
            // Present but wrong still counts as present; an optional declared member does not
            // stand in for a missing required one.
            let v = try violations(s, #"{"a": "x", "c": 3}"#)
            #expect(v.map(\.path) == ["$.a", "$.b"], "\(s)")
            #expect(v.map(\.keyword) == ["type", "required"])
        }
    }

    @Test func requiredNameThatIsNotAnIdentifier() throws {
        let v = try single(#"{"required": ["first name"]}"#, #"{}"#)
        #expect(v.path == #"$["first name"]"#)
    }

    @Test func additionalPropertiesFalse() throws {
        let s = #"{"properties": {"amount": {}, "currency": {}}, "additionalProperties": false}"#
        try expectValid(s, #"{"amount": 1, "currency": "EUR"}"#)
        let v = try single(s, #"{"amount": 1, "extra": 2}"#)
        #expect(v.path == "$.extra")
        #expect(v.keyword == "additionalProperties")
        #expect(v.expected == #"only members "amount", "currency""#)
        #expect(v.found == "integer 2")
        #expect(v.message == #"$.extra: member is not allowed; expected only members "amount", "currency", found integer 2"#)
    }

    @Test func additionalPropertiesFalseWithPatterns() throws {
        let s = #"{"properties": {"a": {}}, "patternProperties": {"^x-": {}}, "additionalProperties": false}"#
        try expectValid(s, #"{"a": 1, "x-note": "ok"}"#)
        let v = try single(s, #"{"b": 1}"#)
        #expect(v.expected == #"only members "a" or names matching /^x-/"#)
        let none = try single(#"{"additionalProperties": false}"#, #"{"b": 1}"#)
        #expect(none.expected == "no members")
    }

    @Test func additionalPropertiesSchema() throws {
        let s = #"{"properties": {"id": {"type": "string"}}, "additionalProperties": {"type": "integer"}}"#
        try expectValid(s, #"{"id": "x", "a": 1, "b": 2}"#)
        let v = try single(s, #"{"id": "x", "a": "one"}"#)
        #expect(v.path == "$.a")
        #expect(v.keyword == "type")
        #expect(v.expected == "integer")
        try expectValid(#"{"additionalProperties": true}"#, #"{"anything": 1}"#)
    }

    @Test func patternProperties() throws {
        let s = #"{"patternProperties": {"^x-": {"type": "string"}, "_id$": {"type": "integer"}}}"#
        try expectValid(s, #"{"x-a": "s", "user_id": 3, "other": null}"#)
        let v = try single(s, #"{"x-a": 1}"#)
        #expect(v.path == #"$["x-a"]"#)
        #expect(v.keyword == "type")
        #expect(v.expected == "string")
        // Unanchored: "_id$" matches anywhere it can.
        let id = try single(s, #"{"group_id": "7"}"#)
        #expect(id.path == "$.group_id")
        #expect(id.expected == "integer")
    }

    @Test func propertyNames() throws {
        let s = #"{"propertyNames": {"pattern": "^[a-z]+$"}}"#
        try expectValid(s, #"{"ab": 1, "cd": 2}"#)
        let v = try single(s, #"{"ab": 1, "aB": 2}"#)
        #expect(v.path == "$.aB")
        #expect(v.keyword == "propertyNames")
        #expect(v.expected.contains("/^[a-z]+$/"))
        #expect(v.found == #"name "aB""#)
        let length = try single(#"{"propertyNames": {"maxLength": 3}}"#, #"{"long": 1}"#)
        #expect(length.expected.contains("at most 3 characters"))
    }

    @Test func minProperties() throws {
        try expectValid(#"{"minProperties": 1}"#, #"{"a": 1}"#)
        let v = try single(#"{"minProperties": 1}"#, #"{}"#)
        #expect(v.keyword == "minProperties")
        #expect(v.expected == "at least 1 member")
        #expect(v.found == "0 members")
    }

    @Test func maxProperties() throws {
        try expectValid(#"{"maxProperties": 1}"#, #"{"a": 1}"#)
        let v = try single(#"{"maxProperties": 1}"#, #"{"a": 1, "b": 2}"#)
        #expect(v.keyword == "maxProperties")
        #expect(v.expected == "at most 1 member")
        #expect(v.found == "2 members")
    }
}

@Suite("array keywords")
struct ArrayTests {
    @Test func items() throws {
        let s = #"{"items": {"type": "integer"}}"#
        try expectValid(s, "[1, 2, 3]")
        try expectValid(s, "[]")
        let v = try single(s, #"[1, "x", 3]"#)
        #expect(v.path == "$[1]")
        #expect(v.keyword == "type")
        #expect(v.found == #"string "x""#)
    }

    @Test func prefixItems() throws {
        let s = #"{"prefixItems": [{"type": "string"}, {"type": "integer"}]}"#
        try expectValid(s, #"["a", 1]"#)
        try expectValid(s, #"["a"]"#)
        try expectValid(s, #"["a", 1, {}]"#)
        let both = try violations(s, #"[1, "a"]"#)
        #expect(both.map(\.path) == ["$[0]", "$[1]"])
        #expect(both.map(\.expected) == ["string", "integer"])
    }

    @Test func itemsAfterPrefixItems() throws {
        let s = #"{"prefixItems": [{"type": "string"}], "items": {"type": "integer"}}"#
        try expectValid(s, #"["a", 1, 2]"#)
        let v = try single(s, #"["a", "b"]"#)
        #expect(v.path == "$[1]")
        #expect(v.expected == "integer")
        let closed = try single(#"{"prefixItems": [{}, {}], "items": false}"#, "[1, 2, 3]")
        #expect(closed.path == "$[2]")
        #expect(closed.keyword == "items")
        #expect(closed.expected == "at most 2 items")
        try expectValid(#"{"prefixItems": [{}, {}], "items": false}"#, "[1, 2]")
    }

    @Test func minItems() throws {
        try expectValid(#"{"minItems": 1}"#, "[0]")
        let v = try single(#"{"minItems": 1}"#, "[]")
        #expect(v.keyword == "minItems")
        #expect(v.expected == "at least 1 item")
        #expect(v.found == "0 items")
    }

    @Test func maxItems() throws {
        try expectValid(#"{"maxItems": 2}"#, "[1, 2]")
        let v = try single(#"{"maxItems": 2}"#, "[1, 2, 3]")
        #expect(v.keyword == "maxItems")
        #expect(v.expected == "at most 2 items")
        #expect(v.found == "3 items")
    }

    @Test func uniqueItems() throws {
        try expectValid(#"{"uniqueItems": true}"#, "[1, 2, 3]")
        try expectValid(#"{"uniqueItems": true}"#, #"[{"a": 1}, {"a": 2}, [1], "1"]"#)
        try expectValid(#"{"uniqueItems": false}"#, "[1, 1]")
        let v = try single(#"{"uniqueItems": true}"#, "[1, 2, 1]")
        #expect(v.path == "$")
        #expect(v.keyword == "uniqueItems")
        #expect(v.expected == "unique items")
        #expect(v.found == "items [0] and [2] are equal (integer 1)")
        let numeric = try single(#"{"uniqueItems": true}"#, "[1, 1.0]")
        #expect(numeric.found.hasPrefix("items [0] and [1]"))
        let objects = try single(#"{"uniqueItems": true}"#, #"[{"a": 1}, {"a": 1}]"#)
        #expect(objects.keyword == "uniqueItems")
    }

    @Test func arrayKeywordsIgnoreOtherTypes() throws {
        try expectValid(#"{"items": false, "minItems": 3, "uniqueItems": true}"#, #"{"a": 1}"#)
    }
}
