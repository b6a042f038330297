import Foundation
import Testing
@testable import TesseraHTTP
import TesseraSDK
import TesseraTestFixtures

/// `GET /openapi.json`: generated from the manifests, valid OpenAPI 3.1 by a standard validator,
/// with the manifests' `nullable` translated to JSON Schema 2020-12.
@Suite struct OpenAPITests {
    @Test func nullableBecomesATypeUnionWhereTypeAloneCouldRefuseNull() {
        let schema: JSONValue = ["type": "string", "maxLength": 3, "nullable": true]
        #expect(SchemaTranslation.translate(schema, base: "#/x") == ["type": ["string", "null"], "maxLength": 3])
        #expect(SchemaTranslation.translate(["type": ["string", "integer"], "nullable": true], base: "#/x") == ["type": ["string", "integer", "null"], "format": "int64"])
        #expect(SchemaTranslation.translate(["type": ["string", "null"], "nullable": true], base: "#/x") == ["type": ["string", "null"]])
        #expect(SchemaTranslation.translate(["type": "string", "nullable": false], base: "#/x") == ["type": "string"])
        #expect(SchemaTranslation.translate(["minimum": 1, "nullable": true], base: "#/x") == ["minimum": 1])
    }

    @Test func nullableWithAnotherNullRefusingKeywordBecomesAnyOf() {
        let schema: JSONValue = ["enum": ["s", "m"], "nullable": true, "description": "size"]
        #expect(SchemaTranslation.translate(schema, base: "#/x") == ["description": "size", "anyOf": [["type": "null"], ["enum": ["s", "m"]]]])
        let ref: JSONValue = ["$ref": "#/$defs/a", "nullable": true]
        #expect(SchemaTranslation.translate(ref, base: "#/components/schemas/p.op.input") ==
                ["anyOf": [["type": "null"], ["$ref": "#/components/schemas/p.op.input/$defs/a"]]])
    }

    @Test func subschemasAreTranslatedRefsRebasedAndDialectKeywordsDropped() {
        let schema: JSONValue = [
            "$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "urn:x", "type": "object",
            "properties": ["a": ["type": "integer", "nullable": true], "tree": ["$ref": "#"]],
            "items": ["type": "string", "nullable": true],
            "prefixItems": [["type": "number", "nullable": true]],
            "allOf": [["properties": ["b": ["$ref": "#/$defs/b"]]]],
            "$defs": ["b": ["type": "boolean", "nullable": true]],
        ]
        let translated = SchemaTranslation.translate(schema, base: "#/components/schemas/s")
        #expect(translated["$schema"] == nil)
        #expect(translated["$id"] == nil)
        // An integer fits in 64 bits (the validator's rule), which OpenAPI says as int64.
        #expect(translated["properties"]?["a"] == ["type": ["integer", "null"], "format": "int64"])
        #expect(translated["properties"]?["tree"] == ["$ref": "#/components/schemas/s"])
        #expect(translated["items"] == ["type": ["string", "null"]])
        #expect(translated["prefixItems"] == [["type": ["number", "null"]]])
        #expect(translated["allOf"]?.arrayValue?.first?["properties"]?["b"] == ["$ref": "#/components/schemas/s/$defs/b"])
        #expect(translated["$defs"]?["b"] == ["type": ["boolean", "null"]])
        #expect(SchemaTranslation.translate(true, base: "#/x") == true)
    }

    @Test func theDocumentHasAPathPerOperationWithTheManifestSchemasAndErrors() async throws {
        try await TestServer.start().use { server in
            let response = try await server.request("GET", "/openapi.json")
            #expect(response.status == 200)
            let document = try #require(response.json)
            #expect(document["openapi"] == "3.1.0")
            let paths = try #require(document["paths"]?.objectValue)
            for op in ["echo", "fail", "crash", "whoami", "admin-only"] {
                #expect(paths["/v1/plugins/test.probe/ops/\(op)"]?["post"] != nil, "\(op)")
            }
            #expect(paths["/v1/plugins/test.broken/ops/hello"] != nil)  // enabled, though failed: a call says why
            for path in ["/v1/plugins", "/openapi.json", "/metrics", "/healthz", "/readyz", "/v1/notifications", "/v1/stream", "/v1/clock"] {
                #expect(paths[path]?["get"] != nil, "\(path)")
            }
            for path in ["/v1/notifications/read", "/v1/location", "/v1/clock/advance"] { #expect(paths[path]?["post"] != nil, "\(path)") }
            // The documented request schemas are the ones the routes enforce.
            #expect(paths["/v1/clock/advance"]?["post"]?["requestBody"]?["content"]?["application/json"]?["schema"]?["required"] == ["by"])
            // A body is required exactly where {} is not a valid input.
            #expect(paths["/v1/plugins/test.probe/ops/fail"]?["post"]?["requestBody"]?["required"] == true)
            #expect(paths["/v1/plugins/test.probe/ops/echo"]?["post"]?["requestBody"]?["required"] == false)
            let echo = try #require(paths["/v1/plugins/test.probe/ops/echo"]?["post"])
            #expect(echo["summary"] == "Returns its input.")
            #expect(echo["requestBody"]?["content"]?["application/json"]?["schema"] == ["$ref": "#/components/schemas/test.probe.echo.input"])
            #expect(echo["responses"]?["400"] == ["$ref": "#/components/responses/InvalidInput"])
            #expect(echo["responses"]?["503"] == ["$ref": "#/components/responses/Unavailable"])
            let input = try #require(document["components"]?["schemas"]?["test.probe.echo.input"])
            #expect(input["properties"]?["note"] == ["type": ["string", "null"]])
            #expect(input["properties"]?["where"] == ["$ref": "#/components/schemas/test.probe.echo.input/$defs/place"])
            #expect(document["components"]?["securitySchemes"]?["bearer"] == ["type": "http", "scheme": "bearer",
                "description": "A token from `tessera token create` or `rotate`; a device host prints its admin token on first start."])
            #expect(document["security"] == [["bearer": []]])
            #expect(paths["/healthz"]?["get"]?["security"] == [])
            #expect(!response.text.contains("\"nullable\""))
            // The stream's schema describes each message (as SSE clients and schemathesis read it).
            let stream = try #require(paths["/v1/stream"]?["get"]?["responses"]?["200"]?["content"]?["text/event-stream"]?["schema"])
            #expect(stream == ["$ref": "#/components/schemas/StreamMessage"])
            let message = try #require(document["components"]?["schemas"]?["StreamMessage"])
            #expect(message["properties"]?["event"]?["enum"] == ["notification", "event"])
            #expect(message["required"] == ["event", "data", "id"])
        }
    }

    @Test(.needs("python:openapi_spec_validator")) func theDocumentIsValidOpenAPI31ForAStandardValidator() async throws {
        try await TestServer.start().use { server in
            let response = try await server.request("GET", "/openapi.json")
            let file = server.root + "/openapi.json"
            try Data(response.body).write(to: URL(fileURLWithPath: file))
            let verdict = try await OpenAPIValidator.validate(file: file)
            #expect(verdict.status == 0, "\(verdict.stdout)\(verdict.stderr)")
        }
    }
}

/// Runs openapi-spec-validator (Python) on a document file. A test that calls it carries
/// `.needs("python:openapi_spec_validator")`, which skips it where the module is missing.
enum OpenAPIValidator {
    static func validate(file: String) async throws -> ProcessResult {
        try await onThread { try run("/usr/bin/env", ["python3", "-m", "openapi_spec_validator", "--schema", "3.1", file]) }
    }
}
