import TesseraRuntime
import TesseraSDK

/// The fixed parts of the OpenAPI document: the error schema and responses every operation shares,
/// the bearer security scheme, and the host's own routes.
enum OpenAPIComponents {
    static func ref(_ name: String) -> JSONValue { ["$ref": .string("#/components/schemas/\(name)")] }
    static func response(_ name: String) -> JSONValue { ["$ref": .string("#/components/responses/\(name)")] }

    static func jsonContent(_ schema: JSONValue) -> JSONValue { ["application/json": ["schema": schema]] }

    // MARK: Schemas

    static var schemas: [String: JSONValue] {
        ["Error": errorSchema, "PluginList": pluginListSchema, "PluginStatus": pluginStatusSchema, "Status": statusSchema]
            .merging(edgeSchemas) { a, _ in a }
            .merging(syncAccountSchemas) { a, _ in a }
    }

    /// `{"error": {"code", "message", "field"?, "reason"?}}`.
    static let errorSchema: JSONValue = [
        "type": "object", "required": ["error"],
        "properties": ["error": [
            "type": "object", "required": ["code", "message"],
            "properties": [
                "code": ["type": "string", "description": "Machine-readable: invalid_input, unauthorized, forbidden, not_granted, not_found, method_not_allowed, conflict, payload_too_large, unsupported_media_type, unprocessable, rate_limited, internal, unavailable."],
                "message": ["type": "string", "description": "One sentence for a person."],
                "field": ["type": "string", "description": "The input field at fault, as a JSON path ($.text)."],
                "reason": ["type": "string", "description": "A module's own, more exact code for the refusal (split_sum, pin_locked), in snake_case; the module's manifest lists its reasons."],
            ],
        ]],
    ]

    static let statusSchema: JSONValue = [
        "type": "object", "required": ["status"], "properties": ["status": ["type": "string"]],
    ]

    static let pluginListSchema: JSONValue = [
        "type": "object", "required": ["plugins"],
        "properties": ["plugins": ["type": "array", "items": ref("PluginStatus")]],
    ]

    static var pluginStatusSchema: JSONValue {
        let strings = ["name", "version", "reason", "manifest", "library", "sha256", "stampedABI", "buildID"]
        var properties: [String: JSONValue] = Dictionary(uniqueKeysWithValues: strings.map { ($0, ["type": "string"]) })
        properties["id"] = ["type": "string"]
        properties["state"] = ["type": "string", "enum": .array(LifecycleState.allCases.map { .string($0.rawValue) })]
        properties["generation"] = ["type": "integer", "minimum": 0]
        properties["retiredGenerations"] = ["type": "integer", "minimum": 0]
        properties["grants"] = ["type": "object", "description": "Capability name → the permissions granted."]
        properties["operations"] = ["type": "array", "items": ["type": "string"]]
        properties["history"] = ["type": "array", "items": ["type": "string"], "description": "Admin tokens only."]
        properties["isolation"] = [
            "type": "object", "required": ["tier"],
            "description": "Where the plugin's code runs; in the process tier, how its child fares (docs/isolation.md).",
            "properties": [
                "tier": ["type": "string", "enum": ["inProcess", "process"]],
                "pid": ["type": "integer", "description": "The serving child's process id; absent while none serves."],
                "recentCrashes": ["type": "integer", "minimum": 0, "description": "Crashes within the quarantine window."],
                "lastCrash": ["type": "string"],
                "restartAt": ["type": "string", "format": "date-time", "description": "When the next restart is due, while waiting out a backoff."],
                "quarantined": ["type": "string", "description": "Why the plugin is quarantined; an operator lifts it with POST /v1/plugins/{id}/restart."],
                "openFileWriters": ["type": "integer", "minimum": 0],
            ],
        ]
        properties["ui"] = ["type": "object", "required": ["title", "url"], "description": "The plugin's pages in the console.",
                            "properties": ["title": ["type": "string"], "url": ["type": "string"]]]
        return ["type": "object", "required": ["id", "state", "generation", "retiredGenerations", "grants", "operations"],
                "properties": .object(properties)]
    }

    // MARK: Responses

    /// Each error status with its meaning; the name is the key under `components/responses`.
    static let errorResponses: [(status: String, name: String, description: String)] = [
        ("400", "InvalidInput", "The body is not JSON, or breaks the operation's input schema; `field` names where."),
        ("401", "Unauthorized", "No bearer token, or one this host does not know."),
        ("403", "Forbidden", "The token's role may not call this, or the plugin lacks a capability grant."),
        ("404", "NotFound", "No such plugin, operation or route."),
        ("405", "MethodNotAllowed", "The route exists with other methods; `Allow` lists them."),
        ("409", "Conflict", "The request conflicts with the current state."),
        ("413", "PayloadTooLarge", "The body is larger than the server's limit."),
        ("415", "UnsupportedMediaType", "The body is not declared as application/json."),
        ("422", "Unprocessable", "Well-formed, but the plugin's rules refuse it."),
        ("429", "RateLimited", "The token's rate limit is spent (calls and admin routes have a bucket each); `Retry-After` says when to retry."),
        ("500", "Internal", "The plugin failed; the message is generic, the host's log has details."),
        ("502", "BadGateway", "The hub answered with a failure of its own (`hub_error`)."),
        ("503", "Unavailable", "The plugin is not active (the message names its state), or the host is starting."),
    ]

    static var responses: [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for entry in errorResponses {
            var response: [String: JSONValue] = ["description": .string(entry.description), "content": jsonContent(ref("Error"))]
            if entry.status == "401" {
                response["headers"] = ["WWW-Authenticate": ["description": "Bearer; on /v1/location, a Basic challenge too.", "schema": ["type": "string"]]]
            } else if entry.status == "429" {
                response["headers"] = [
                    "Retry-After": ["description": "Seconds to wait.", "schema": ["type": "integer", "minimum": 1]],
                    "RateLimit-Policy": ["description": "The bucket: `\"calls\";q=<burst>;w=<seconds to refill>` (draft-ietf-httpapi-ratelimit-headers). Sent on every answer to a token.",
                                         "schema": ["type": "string"]],
                    "RateLimit": ["description": "What remains: `\"calls\";r=<requests>;t=<seconds until full>`. Sent on every answer to a token.",
                                  "schema": ["type": "string"]],
                ]
            } else if entry.status == "405" {
                response["headers"] = ["Allow": ["description": "The methods the route takes.", "schema": ["type": "string"]]]
            }
            out[entry.name] = .object(response)
        }
        return out
    }

    /// The error responses for `statuses`, as `responses` members.
    static func errorResponses(_ statuses: [String]) -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for entry in errorResponses where statuses.contains(entry.status) { out[entry.status] = response(entry.name) }
        return out
    }

    static let securitySchemes: JSONValue = [
        "bearer": ["type": "http", "scheme": "bearer", "description": "A token from `tessera token create` or `rotate`; a device host prints its admin token on first start."],
    ]

    // MARK: The host's routes

    static var hostPaths: [String: JSONValue] {
        serverPaths.merging(edgePaths) { a, _ in a }.merging(syncAccountPaths) { a, _ in a }
    }

    static var serverPaths: [String: JSONValue] {
        [
            "/v1/plugins": ["get": getOperation("listPlugins", "Every plugin: version, state and reason, generations, grants, operations.",
                                                content: jsonContent(ref("PluginList")))],
            "/openapi.json": ["get": getOperation("openAPIDocument", "This document, generated from the enabled plugins' manifests.",
                                                   content: jsonContent(["type": "object"]))],
            "/metrics": ["get": getOperation("metrics", "Prometheus text exposition: calls, errors, latency, plugin states.",
                                              content: ["text/plain": ["schema": ["type": "string"]]])],
            // Probes carry no token (issue 46): the answer says ready or not, and nothing else.
            "/readyz": ["get": [
                "operationId": "readiness", "summary": "200 once the host has started its plugins; 503 before and while it stops. Needs no token.",
                "tags": ["host"], "security": [],
                "responses": ["200": ["description": "Ready.", "content": jsonContent(ref("Status"))],
                              "503": ["description": "Starting or stopping.", "content": jsonContent(ref("Error"))]],
            ]],
            "/healthz": ["get": [
                "operationId": "health", "summary": "200 while the server answers. Needs no token.", "tags": ["host"],
                "security": [],
                "responses": ["200": ["description": "Alive.", "content": jsonContent(ref("Status"))]],
            ]],
        ]
    }

    static func getOperation(_ id: String, _ summary: String, content: JSONValue, extraErrors: [String] = []) -> JSONValue {
        var responses = errorResponses(["401", "429"] + extraErrors)
        responses["200"] = ["description": "OK", "content": content]
        return ["operationId": .string(id), "summary": .string(summary), "tags": ["host"], "responses": .object(responses)]
    }
}
