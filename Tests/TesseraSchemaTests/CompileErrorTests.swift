import Testing
import TesseraSDK
@testable import TesseraSchema

@Suite("compile-time errors")
struct CompileErrorTests {
    @Test func unknownKeywordIsRefused() throws {
        let e = try compileError(#"{"properties": {"a": {"type": "string", "minLenght": 3}}}"#)
        #expect(e.location == "#/properties/a/minLenght")
        #expect(e.message.contains(#"unsupported keyword "minLenght""#))
        #expect(e.message.contains(#"did you mean "minLength"?"#))
        #expect(e.description == "#/properties/a/minLenght: " + e.message)
    }

    @Test(arguments: ["contains", "unevaluatedProperties", "dependentRequired", "$anchor", "x-internal"])
    func keywordsOutsideTheSubsetAreRefused(_ keyword: String) throws {
        let e = try compileError("{\"\(keyword)\": {}}")
        #expect(e.location == "#/\(keyword)")
        #expect(e.message.contains("unsupported keyword"))
    }

    @Test(arguments: [
        (#"{"properties": {"amount": {"minimum": "3"}}}"#, "#/properties/amount/minimum", "must be a number"),
        (#"{"required": "a"}"#, "#/required", "must be an array"),
        (#"{"required": [1]}"#, "#/required/0", "as strings"),
        (#"{"required": ["a", "a"]}"#, "#/required/1", "twice"),
        (#"{"type": "strin"}"#, "#/type", "unknown type"),
        (#"{"type": ["string", 5]}"#, "#/type/1", "must be strings"),
        (#"{"type": []}"#, "#/type", "non-empty array"),
        (#"{"maxLength": -1}"#, "#/maxLength", "non-negative integer"),
        (#"{"minItems": 1.5}"#, "#/minItems", "non-negative integer"),
        (#"{"enum": []}"#, "#/enum", "non-empty array"),
        (#"{"enum": "a"}"#, "#/enum", "non-empty array"),
        (#"{"properties": []}"#, "#/properties", "must be an object"),
        (#"{"properties": {"a": 5}}"#, "#/properties/a", "object or a boolean"),
        (#"{"items": [{"type": "string"}]}"#, "#/items", "prefixItems"),
        (#"{"multipleOf": 0}"#, "#/multipleOf", "greater than 0"),
        (#"{"pattern": 5}"#, "#/pattern", "regular expression"),
        (#"{"nullable": "yes"}"#, "#/nullable", "true or false"),
        (#"{"uniqueItems": 1}"#, "#/uniqueItems", "true or false"),
        (#"{"exclusiveMinimum": true}"#, "#/exclusiveMinimum", "not a flag"),
        (#"{"allOf": []}"#, "#/allOf", "non-empty array of schemas"),
        (#"{"oneOf": {"type": "string"}}"#, "#/oneOf", "non-empty array of schemas"),
        (#"{"anyOf": [{"type": "string"}, 3]}"#, "#/anyOf/1", "object or a boolean"),
        (#"{"not": "string"}"#, "#/not", "object or a boolean"),
        (#"{"$ref": 5}"#, "#/$ref", "must be a string"),
        (#"{"format": 5}"#, "#/format", "must be a string"),
        (#"{"title": 5}"#, "#/title", "must be a string"),
        (#"{"deprecated": "no"}"#, "#/deprecated", "true or false"),
        (#"{"$defs": {"a": {"minimum": null}}}"#, "#/$defs/a/minimum", "must be a number"),
        (#"5"#, "#", "object or a boolean"),
    ])
    func mistypedKeywordValues(_ schemaText: String, _ location: String, _ words: String) throws {
        let e = try compileError(schemaText)
        #expect(e.location == location)
        #expect(e.message.contains(words), "\(e.message)")
    }

    @Test func badRegexIsRefused() throws {
        let e = try compileError(#"{"properties": {"code": {"pattern": "[a-"}}}"#)
        #expect(e.location == "#/properties/code/pattern")
        #expect(e.message.contains("not a valid regular expression"))
        let name = try compileError(#"{"patternProperties": {"(": {}}}"#)
        #expect(name.location == "#/patternProperties/(")
        #expect(name.message.contains("not a valid regular expression"))
    }

    @Test func annotationsAreAcceptedAndIgnored() throws {
        let s = #"""
        {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://tessera.example/s",
         "$comment": "c", "title": "T", "description": "D", "default": 1, "examples": [1, 2],
         "deprecated": false, "readOnly": true, "writeOnly": false, "contentMediaType": "text/plain",
         "type": "integer"}
        """#
        try expectValid(s, "1")
        #expect(try single(s, #""1""#).keyword == "type")
    }

    @Test func locationsEscapeJSONPointerTokens() throws {
        let e = try compileError(#"{"properties": {"a/b": {"minimum": "1"}}}"#)
        #expect(e.location == "#/properties/a~1b/minimum")
    }

    @Test func parsingConvenienceReportsBadJSON() {
        #expect(throws: JSONParseError.self) { try JSONSchema(parsing: #"{"type": "#) }
        #expect(throws: SchemaError.self) { try JSONSchema(parsing: #"{"type": 1}"#) }
    }
}
