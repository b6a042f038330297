import TesseraManifest
import TesseraSDK

/// The OpenAPI shape of operations that move a file's bytes (their manifest's `"file"`;
/// docs/files.md, "HTTP"): an upload's body is the file itself, its other input members query
/// parameters; a download is a `GET` whose answer is the file, with `ETag`, 304 and ranges.
enum OpenAPIFileOperations {
    /// The media types the plugin declares (`permissions.files.mediaTypes`), each as raw bytes.
    static func binaryContent(_ manifest: PluginManifest) -> JSONValue {
        let types = manifest.permissions["files"]?["mediaTypes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        var content: [String: JSONValue] = [:]
        for type in types.isEmpty ? ["application/octet-stream"] : types {
            content[type] = ["schema": ["type": "string", "contentMediaType": .string(type)]]
        }
        return .object(content)
    }

    /// The input's members other than `file`, as query parameters (their values arrive as strings).
    static func queryParameters(_ operation: OperationDeclaration) -> JSONValue {
        let properties = operation.inputSchemaDocument["properties"]?.objectValue ?? [:]
        let required = Set(operation.inputSchemaDocument["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        return .array(properties.keys.sorted().filter { $0 != "file" }.map { name in
            ["name": .string(name), "in": "query", "required": .bool(required.contains(name)), "schema": parameterSchema(properties[name])]
        })
    }

    /// A string member's own rules (pattern, length, enum, format, and the description that words
    /// them), so the document states what the host's check of the input will accept (issue 24);
    /// any other member arrives as a string the input schema judges.
    static func parameterSchema(_ member: JSONValue?) -> JSONValue {
        guard let member = member?.objectValue, member["type"]?.stringValue == "string" else { return ["type": "string"] }
        let kept: Set<String> = ["type", "pattern", "enum", "const", "minLength", "maxLength", "format", "description"]
        return .object(member.filter { kept.contains($0.key) })
    }

    /// The `post` of an upload: the body is the file; the answer is the operation's JSON.
    static func upload(_ manifest: PluginManifest, _ operation: OperationDeclaration, name: String) -> JSONValue {
        var responses = OpenAPIComponents.errorResponses(["400", "401", "403", "404", "413", "415", "422", "429", "500", "503"])
        responses["200"] = ["description": "The operation's result.", "content": OpenAPIComponents.jsonContent(OpenAPIComponents.ref(name + ".output"))]
        responses["507"] = ["description": "The plugin's file quota is spent (quota_exceeded).", "content": OpenAPIComponents.jsonContent(OpenAPIComponents.ref("Error"))]
        return [
            "operationId": .string(name),
            "summary": .string(operation.summary ?? operation.name),
            "description": .string("\(manifest.name) \(manifest.version). Upload: the body is the file, stored by the host (its type found from its content) and passed to the operation as input.file; the other input members are query parameters."),
            "tags": [.string(manifest.id)],
            "parameters": queryParameters(operation),
            "requestBody": ["required": true, "content": binaryContent(manifest)],
            "responses": .object(responses),
        ]
    }

    /// The `get` of a download: the file the operation names, whole or a range.
    static func download(_ manifest: PluginManifest, _ operation: OperationDeclaration, name: String) -> JSONValue {
        var responses = OpenAPIComponents.errorResponses(["400", "401", "403", "404", "405", "422", "429", "500", "503"])
        let etag: JSONValue = ["description": "The file's SHA-256, quoted.", "schema": ["type": "string"]]
        responses["200"] = ["description": "The file.", "headers": ["ETag": etag], "content": binaryContent(manifest)]
        responses["206"] = ["description": "The bytes of the one range asked for (`Range: bytes=…`).",
                            "headers": ["ETag": etag, "Content-Range": ["description": "bytes first-last/size", "schema": ["type": "string"]]],
                            "content": binaryContent(manifest)]
        responses["304"] = ["description": "The file is the one the client has (`If-None-Match`).", "headers": ["ETag": etag]]
        responses["416"] = ["description": "The range is outside the file.", "content": OpenAPIComponents.jsonContent(OpenAPIComponents.ref("Error"))]
        return [
            "operationId": .string(name + ".download"),
            "summary": .string(operation.summary ?? operation.name),
            "description": .string("\(manifest.name) \(manifest.version). Download: the operation is called with the query parameters and names a file; its bytes are the answer."),
            "tags": [.string(manifest.id)],
            "parameters": queryParameters(operation),
            "responses": .object(responses),
        ]
    }
}
