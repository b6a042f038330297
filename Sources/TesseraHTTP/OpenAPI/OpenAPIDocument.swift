import TesseraManifest
import TesseraSDK

/// `GET /openapi.json`: an OpenAPI 3.1 document made from the manifests of the enabled plugins —
/// one path per operation, its request and response schemas from the manifest — plus the host's
/// own routes. No plugin code runs to make it.
enum OpenAPIDocument {
    /// The version of the HTTP API this edge serves (its paths start with `/v1`).
    static let apiVersion = "1.0.0"

    /// - Parameter hub: whether the deployment is a hub's, which also serves `/v1/hub/…`.
    static func make(manifests: [PluginManifest], deploymentName: String, hub: Bool = false) -> JSONValue {
        var paths = OpenAPIComponents.hostPaths
        var schemas = OpenAPIComponents.schemas
        var tags: [JSONValue] = [["name": "host", "description": "The host itself."],
                                 ["name": "sync", "description": "This device's person at its hub: register, log in, log out (docs/sync.md)."]]
        var securitySchemes = OpenAPIComponents.securitySchemes
        if hub {
            paths.merge(OpenAPIComponents.hubPaths) { a, _ in a }
            schemas.merge(OpenAPIComponents.hubSchemas) { a, _ in a }
            tags.append(["name": "hub", "description": "The hub: accounts, spaces and their members, and each plugin's sync (docs/hub.md)."])
            securitySchemes = securitySchemes.adding("deviceToken", [
                "type": "http", "scheme": "bearer", "description": "A device token (`tsd_…`) from POST /v1/hub/login.",
            ])
        }
        paths["/v1/plugins/{id}/swap"] = ["post": OpenAPIComponents.swapOperation(pluginIDs: manifests.map(\.id))]
        paths["/v1/plugins/{id}/restart"] = ["post": OpenAPIComponents.restartOperation(pluginIDs: manifests.map(\.id))]
        for manifest in manifests {
            tags.append(["name": .string(manifest.id), "description": .string(manifest.summary ?? manifest.name)])
            for operation in manifest.operations {
                let name = "\(manifest.id).\(operation.name)"
                schemas[name + ".input"] = SchemaTranslation.translate(operation.inputSchemaDocument, base: "#/components/schemas/\(name).input")
                schemas[name + ".output"] = SchemaTranslation.translate(operation.outputSchemaDocument, base: "#/components/schemas/\(name).output")
                var item: [String: JSONValue] = ["post": operationObject(manifest, operation, name: name)]
                switch operation.file {  // operations that move a file's bytes (OpenAPIFileOperations)
                case .upload: item["post"] = OpenAPIFileOperations.upload(manifest, operation, name: name)
                case .download: item["get"] = OpenAPIFileOperations.download(manifest, operation, name: name)
                case nil: break
                }
                if operation.roles.contains(.link) {  // reached by a capability link (OpenAPILinkOperations)
                    paths[OpenAPILinkOperations.path(manifest, operation)] = ["get": OpenAPILinkOperations.get(manifest, operation, name: name)]
                    if operation.roles.allSatisfy({ $0 == .link }) { continue }  // no bearer-token path to list
                }
                paths["/v1/plugins/\(manifest.id)/ops/\(operation.name)"] = .object(item)
            }
        }
        return [
            "openapi": "3.1.0",
            "info": [
                "title": .string("Tessera host — deployment '\(deploymentName)'"),
                "version": .string(apiVersion),
                "description": "Operations of the plugins this host enables, generated from their manifests. Every route but /healthz and the capability links (/v1/links/…) needs a bearer token.",
            ],
            "tags": .array(tags),
            "security": [["bearer": []]],
            "paths": .object(paths),
            "components": [
                "schemas": .object(schemas),
                "responses": .object(OpenAPIComponents.responses),
                "securitySchemes": securitySchemes,
            ],
        ]
    }

    /// The `post` of one operation's path.
    static func operationObject(_ manifest: PluginManifest, _ operation: OperationDeclaration, name: String) -> JSONValue {
        var responses = OpenAPIComponents.errorResponses(["400", "401", "403", "404", "409", "413", "415", "422", "429", "500", "503"])
        responses["200"] = [
            "description": "The operation's result.",
            "content": OpenAPIComponents.jsonContent(OpenAPIComponents.ref(name + ".output")),
        ]
        let roles = operation.roles.map(\.rawValue).joined(separator: ", ")
        return [
            "operationId": .string(name),
            "summary": .string(operation.summary ?? operation.name),
            "description": .string("\(manifest.name) \(manifest.version). Roles that may call it: \(roles). An empty body is taken as {}."),
            "tags": [.string(manifest.id)],
            // An empty body is the input {}: optional only where {} is a valid input.
            "requestBody": [
                "required": .bool(!(operation.inputSchemaDocument["required"]?.arrayValue ?? []).isEmpty),
                "content": OpenAPIComponents.jsonContent(OpenAPIComponents.ref(name + ".input")),
            ],
            "responses": .object(responses),
        ]
    }
}
