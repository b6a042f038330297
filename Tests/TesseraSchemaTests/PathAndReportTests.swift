import Testing
import TesseraSDK
@testable import TesseraSchema

@Suite("paths, order and nesting")
struct PathAndReportTests {
    @Test func nestedPath() throws {
        let s = #"""
        {"properties": {"a": {"properties": {"b": {"items": {"properties": {"c": {"type": "integer"}}}}}}}}
        """#
        try expectValid(s, #"{"a": {"b": [{"c": 1}, {"c": 2}]}}"#)
        let v = try single(s, #"{"a": {"b": [{"c": 1}, {"c": "x"}]}}"#)
        #expect(v.path == "$.a.b[1].c")
        #expect(v.message == #"$.a.b[1].c: expected integer, found string "x""#)
    }

    @Test func keysThatAreNotIdentifiersAreQuoted() {
        #expect(Render.path([.key("a b")]) == #"$["a b"]"#)
        #expect(Render.path([.key("1x")]) == #"$["1x"]"#)
        #expect(Render.path([.key("say \"hi\"")]) == #"$["say \"hi\""]"#)
        #expect(Render.path([.key("")]) == #"$[""]"#)
        #expect(Render.path([.key("_ok1"), .index(0), .key("é")]) == #"$._ok1[0]["é"]"#)
        #expect(Render.path([]) == "$")
    }

    @Test func violationsAreInDocumentOrder() throws {
        let s = #"""
        {"minProperties": 9, "required": ["z"],
         "properties": {"b": {"type": "integer"}, "a": {"type": "integer"}, "list": {"items": {"type": "integer"}}}}
        """#
        let v = try violations(s, #"{"b": "x", "a": "y", "list": ["p", 1, "q", 2, "r", 3, "s", 4, "t", 5, "u"]}"#)
        #expect(v.map(\.path) == ["$", "$.a", "$.b", "$.list[0]", "$.list[2]", "$.list[4]", "$.list[6]",
                                  "$.list[8]", "$.list[10]", "$.z"])
    }

    @Test func severalViolationsOfOneValueKeepKeywordOrder() throws {
        let v = try violations(#"{"minLength": 5, "pattern": "^a"}"#, #""bc""#)
        #expect(v.map(\.keyword) == ["minLength", "pattern"])
        #expect(v.allSatisfy { $0.path == "$" })
    }

    @Test func reportsAreTheSameEveryTime() throws {
        let s = try schema(#"{"additionalProperties": {"type": "integer"}}"#)
        let instance = try json(#"{"k1": "a", "k2": "b", "k3": "c", "k4": "d", "k5": "e"}"#)
        let first = s.validate(instance)
        #expect(first.map(\.path) == ["$.k1", "$.k2", "$.k3", "$.k4", "$.k5"])
        for _ in 0..<5 { #expect(s.validate(instance) == first) }
    }

    /// `{"type": ["array", "integer"], "items": {"$ref": "#"}}` nested `depth` deep, with `leaf` at the bottom.
    static func nested(_ depth: Int, leaf: JSONValue) -> JSONValue {
        var value = leaf
        for _ in 0..<depth { value = .array([value]) }
        return value
    }

    @Test func largeNesting() throws {
        let s = try schema(##"{"type": ["array", "integer"], "items": {"$ref": "#"}}"##)
        #expect(s.isValid(Self.nested(120, leaf: 1)))
        let parsed = try json(String(repeating: "[", count: 120) + "\"x\"" + String(repeating: "]", count: 120))
        let v = s.validate(parsed)
        #expect(v.count == 1)
        #expect(v.first?.path == "$" + String(repeating: "[0]", count: 120))
        #expect(v.first?.keyword == "type")
        // Values built in code can be deeper than the parser allows.
        #expect(s.isValid(Self.nested(300, leaf: 1)))
        #expect(!s.isValid(Self.nested(300, leaf: "x")))
    }

    @Test func nestingBeyondTheLimitIsAViolationNotACrash() throws {
        let s = try schema(##"{"items": {"$ref": "#"}}"##)
        for depth in [Validator.maxDepth + 1, 5_000] {
            let v = s.validate(Self.nested(depth, leaf: 1))
            #expect(v.count == 1)
            #expect(v.first?.keyword == "depth")
            #expect(v.first?.found.contains("nesting") == true)
        }
    }

    @Test func deepNestingThroughSeveralSchemasPerLevel() throws {
        // Each level goes through $ref, allOf and anyOf before it descends: several frames a level.
        let s = try schema(##"""
        {"$ref": "#/$defs/level",
         "$defs": {"level": {"allOf": [{"anyOf": [{"type": "integer"}, {"$ref": "#/$defs/list"}]}]},
                   "list": {"type": "array", "items": {"$ref": "#/$defs/level"}}}}
        """##)
        #expect(s.isValid(Self.nested(100, leaf: 1)))
        let v = s.validate(Self.nested(100, leaf: "x"))
        #expect(v.count == 1)
        #expect(v.first?.keyword == "anyOf")
        #expect(v.first?.path == "$")
        // The innermost fault, not a message nested once per level.
        let deepest = "$" + String(repeating: "[0]", count: 100)
        #expect(v.first?.found == "none matched: \(deepest): expected integer, found string \"x\"")
        let tooDeep = s.validate(Self.nested(5_000, leaf: 1))
        #expect(tooDeep.count == 1)
        #expect(tooDeep.first?.found.contains("nesting") == true)
    }

    @Test func stackGuardStopsManySchemasPerLevel() throws {
        // 200 nested allOf per instance level: deep data would overflow the stack long before the
        // 512-level limit, so the stack guard must stop it.
        var level: JSONValue = ["$ref": "#/$defs/list"]
        for _ in 0..<200 { level = ["allOf": [level]] }
        let s = try JSONSchema([
            "$ref": "#/$defs/level",
            "$defs": ["level": level, "list": ["type": "array", "items": ["$ref": "#/$defs/level"]]],
        ])
        #expect(s.isValid(Self.nested(3, leaf: [])))
        let v = s.validate(Self.nested(400, leaf: []))
        #expect(v.count == 1)
        #expect(v.first?.keyword == "depth")
        #expect(v.first?.found == "nesting too deep to validate")
    }

    @Test func deeplyNestedSchemaIsRefused() throws {
        var deep: JSONValue = ["type": "integer"]
        for _ in 0..<300 { deep = ["items": deep] }
        #expect(throws: SchemaError.self) { try JSONSchema(deep) }
        var fine: JSONValue = ["type": "integer"]
        for _ in 0..<100 { fine = ["items": fine] }
        #expect(try JSONSchema(fine).isValid(Self.nested(100, leaf: 1)))
    }

    @Test func wideObjects() throws {
        var members: [String: JSONValue] = [:]
        for i in 0..<1000 { members["k\(i)"] = .integer(Int64(i)) }
        members["k500"] = .string("x")
        let s = try schema(#"{"additionalProperties": {"type": "integer"}}"#)
        let v = s.validate(.object(members))
        #expect(v.map(\.path) == ["$.k500"])
    }

    @Test func violationsCanBeMadeByHand() {
        let v = SchemaViolation(path: "$.a", keyword: "type", expected: "integer", found: "null")
        #expect(v.message == "$.a: expected integer, found null")
        let e = SchemaError(location: "#/a", message: "bad")
        #expect(e.description == "#/a: bad")
    }

    @Test func sourceIsKept() throws {
        let text = #"{"type": "integer"}"#
        #expect(try schema(text).source == (try json(text)))
    }

    @Test func sharedAcrossTasks() async throws {
        let s = try schema(#"{"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}, "required": ["n"]}"#)
        let results = await withTaskGroup(of: (Int, Int).self) { group in
            for i in 0..<8 {
                group.addTask {
                    var bad = 0
                    for j in 0..<500 where !s.isValid(["n": .integer(Int64((i * 500 + j) % 7) - 1)]) { bad += 1 }
                    return (i, bad)
                }
            }
            var out: [Int: Int] = [:]
            for await (i, bad) in group { out[i] = bad }
            return out
        }
        #expect(results.count == 8)
        // One value in seven is -1.
        #expect(results.values.reduce(0, +) == (0..<4000).filter { $0 % 7 == 0 }.count)
    }

    @Test func realisticOperationInput() throws {
        let s = #"""
        {"$schema": "https://json-schema.org/draft/2020-12/schema",
         "type": "object", "additionalProperties": false, "required": ["amount", "currency", "date", "method"],
         "properties": {
           "amount": {"type": "integer", "minimum": 1, "description": "minor units"},
           "currency": {"type": "string", "pattern": "^[A-Z]{3}$"},
           "date": {"type": "string", "format": "date"},
           "method": {"enum": ["cash", "bank"]},
           "note": {"type": "string", "maxLength": 140, "nullable": true},
           "tags": {"type": "array", "items": {"type": "string", "minLength": 1}, "uniqueItems": true, "maxItems": 5}
         }}
        """#
        try expectValid(s, #"{"amount": 1250, "currency": "EUR", "date": "2024-02-29", "method": "cash", "note": null, "tags": ["food"]}"#)
        let v = try violations(s, #"{"amount": 0, "currency": "eur", "date": "2023-02-29", "method": "card", "tags": ["a", ""], "extra": 1}"#)
        #expect(v.map(\.message) == [
            "$.amount: expected at least 1, found 0",
            #"$.currency: expected a string matching /^[A-Z]{3}$/, found string "eur""#,
            #"$.date: expected a date (YYYY-MM-DD), found string "2023-02-29""#,
            #"$.extra: member is not allowed; expected only members "amount", "currency", "date", "method", "note", "tags", found integer 1"#,
            #"$.method: expected one of "cash", "bank", found string "card""#,
            #"$.tags[1]: expected at least 1 character, found string "" (0 characters)"#,
        ])
    }

    /// The example in docs/json-schema.md, so that the page stays true.
    @Test func documentationExample() throws {
        let s = #"""
        {"type": "object", "required": ["amount", "date", "method"], "additionalProperties": false,
         "properties": {
           "amount": {"type": "integer", "minimum": 1},
           "date":   {"type": "string", "format": "date"},
           "method": {"enum": ["cash", "bank"]},
           "tags":   {"type": "array", "items": {"type": "string", "minLength": 1}}}}
        """#
        let v = try violations(s, #"{"amount": "12", "date": "2023-02-29", "tags": ["food", ""], "extra": 1}"#)
        #expect(v.map(\.message) == [
            #"$.amount: expected integer, found string "12""#,
            #"$.date: expected a date (YYYY-MM-DD), found string "2023-02-29""#,
            #"$.extra: member is not allowed; expected only members "amount", "date", "method", "tags", found integer 1"#,
            "$.method: expected a value (required member), found missing",
            #"$.tags[1]: expected at least 1 character, found string "" (0 characters)"#,
        ])
        let typo = try compileError(#"{"properties": {"amount": {"minLenght": 3}}}"#)
        #expect(typo.description == #"#/properties/amount/minLenght: unsupported keyword "minLenght": it would not be enforced; did you mean "minLength"?"#)
        let unresolved = try compileError(##"{"properties": {"a": {"$ref": "#/$defs/missing"}}}"##)
        #expect(unresolved.description == ##"#/properties/a/$ref: $ref "#/$defs/missing" does not resolve: there is nothing at #/$defs/missing"##)
    }
}
