import TesseraManifest
import TesseraSDK

/// The OpenAPI shape of an operation open to capability links (`"roles": ["link"]`; docs/http.md,
/// "Capability links"): `GET /v1/links/{id}/{op}/{token}` with no security requirement, the token a
/// path parameter with the schema the operation's input gives it.
enum OpenAPILinkOperations {
    static func path(_ manifest: PluginManifest, _ operation: OperationDeclaration) -> String {
        "/v1/links/\(manifest.id)/\(operation.name)/{token}"
    }

    static func get(_ manifest: PluginManifest, _ operation: OperationDeclaration, name: String) -> JSONValue {
        var responses = OpenAPIComponents.errorResponses(["429", "500", "503"])
        responses["200"] = ["description": "The operation's result.", "content": OpenAPIComponents.jsonContent(OpenAPIComponents.ref(name + ".output"))]
        responses["404"] = ["description": "No such link: a token of another form, unknown, expired or revoked — one answer for all.",
                            "content": OpenAPIComponents.jsonContent(OpenAPIComponents.ref("Error"))]
        let token = operation.inputSchemaDocument["properties"]?["token"] ?? ["type": "string"]
        return [
            "operationId": .string(name + ".link"),
            "summary": .string(operation.summary ?? operation.name),
            "description": .string("\(manifest.name) \(manifest.version). A capability link: the token in the path is the credential (no bearer token); the operation is called with {\"token\": …}."),
            "tags": [.string(manifest.id)],
            "security": [],
            "parameters": [["name": "token", "in": "path", "required": true, "schema": token]],
            "responses": .object(responses),
        ]
    }
}
