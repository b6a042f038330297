import TesseraSDK

/// The OpenAPI description of the inbox, the SSE stream, the location endpoint and the clock
/// (docs/http.md). The request schemas are the ones the routes enforce (``RouteInput``).
extension OpenAPIComponents {
    static var edgePaths: [String: JSONValue] {
        [
            "/v1/notifications": ["get": inboxOperation],
            "/v1/notifications/read": ["post": postOperation(
                "markNotificationsRead", "Mark inbox entries read: the listed ids, or all.",
                input: NotificationRoutes.readInput.document, output: ref("MarkReadResult"), errors: ["400", "413", "415"])],
            "/v1/stream": ["get": streamOperation],
            "/v1/location": ["post": locationOperation],
            "/v1/clock": ["get": getOperation("clock", "The host's time, and whether its clock is virtual.",
                                              content: jsonContent(ref("Clock")))],
            "/v1/clock/advance": ["post": postOperation(
                "advanceClock", "Admin: move a virtual clock forward, firing what falls due. 409 on the system clock.",
                input: ClockRoutes.advanceInput.document, output: ref("ClockAdvance"), errors: ["400", "403", "409", "413", "415"])],
            "/v1/plugins/{id}/swap": ["post": swapOperation()],
            "/v1/plugins/{id}/restart": ["post": restartOperation()],
            "/v1/deployment/reload": ["post": reloadOperation],
        ]
    }

    /// `POST /v1/plugins/{id}/swap` (docs/hot-swap.md). `pluginIDs`, when given, are the ids a
    /// swap can name (the enabled plugins'); any other answers 404.
    static func swapOperation(pluginIDs: [String] = []) -> JSONValue {
        let id: JSONValue = pluginIDs.isEmpty ? ["type": "string"] : ["type": "string", "enum": .array(pluginIDs.map(JSONValue.string))]
        return postOperation("swapPlugin", "Admin: swap a running plugin's code for the build at `library`, without stopping the host. 409: rolled back, the old generation serves.",
                             input: SwapRoute.input.document, output: ref("SwapResult"), errors: ["400", "403", "404", "409", "413", "415", "422", "503"])
            .adding("parameters", [[
                "name": "id", "in": "path", "required": true, "schema": id, "description": "The plugin's id.",
            ]])
    }

    /// `POST /v1/plugins/{id}/restart` (docs/isolation.md): a process-tier plugin restarted now,
    /// its quarantine lifted.
    static func restartOperation(pluginIDs: [String] = []) -> JSONValue {
        let id: JSONValue = pluginIDs.isEmpty ? ["type": "string"] : ["type": "string", "enum": .array(pluginIDs.map(JSONValue.string))]
        var responses = errorResponses(["401", "403", "404", "409", "429", "503"])
        responses["200"] = ["description": "Restarted.", "content": jsonContent(ref("RestartResult"))]
        let operation: JSONValue = [
            "operationId": "restartPlugin", "tags": ["host"], "responses": .object(responses),
            "summary": "Admin: restart a process-tier plugin now, clearing its crash record (lifts a quarantine). 409: the plugin runs in the host's process.",
        ]
        return operation.adding("parameters", [[
            "name": "id", "in": "path", "required": true, "schema": id, "description": "The plugin's id.",
        ]])
    }

    /// `POST /v1/deployment/reload` (docs/operating.md): the deployment file read again and its
    /// plugins' changes applied.
    static var reloadOperation: JSONValue {
        var responses = errorResponses(["401", "403", "409", "422", "429"])
        responses["200"] = ["description": "Applied.", "content": jsonContent(ref("ReloadResult"))]
        return [
            "operationId": "reloadDeployment", "tags": ["host"], "responses": .object(responses),
            "summary": "Admin: read the deployment file again and apply what changed in its plugins (enable, disable, grants, config) while the host serves. 422: the file does not check; 409: it changes a setting only a restart applies, or another reload runs. Either way the deployment in force keeps serving.",
        ]
    }

    static var reloadResultSchema: JSONValue {
        let ids: JSONValue = ["type": "array", "items": ["type": "string"]]
        return ["type": "object", "required": ["deployment", "started", "stopped", "reconfigured", "retried", "unchanged", "notServing"],
                "properties": [
                    "deployment": ["type": "string"], "started": ids, "stopped": ids, "reconfigured": ids, "retried": ids, "unchanged": ids,
                    "notServing": ["type": "object", "additionalProperties": ["type": "string"]],
                ]]
    }

    static var restartResultSchema: JSONValue {
        ["type": "object", "required": ["plugin", "state", "pid"],
         "properties": [
            "plugin": ["type": "string"], "state": ["type": "string"], "pid": ["type": ["integer", "null"]],
            "reason": ["type": ["string", "null"]],
         ]]
    }

    static var swapResultSchema: JSONValue {
        ["type": "object", "required": ["plugin", "generation", "pauseMilliseconds", "stateBytes", "restartRecommended"],
         "properties": [
            "plugin": ["type": "string"], "generation": ["type": "integer"], "pauseMilliseconds": ["type": "number"],
            "stateBytes": ["type": "integer"], "library": ["type": ["string", "null"]], "restartRecommended": ["type": "boolean"],
         ]]
    }

    static var edgeSchemas: [String: JSONValue] {
        ["InboxEntry": inboxEntrySchema, "InboxPage": inboxPageSchema, "MarkReadResult": markReadSchema,
         "Clock": clockSchema, "ClockAdvance": clockAdvanceSchema, "SwapResult": swapResultSchema, "RestartResult": restartResultSchema, "ReloadResult": reloadResultSchema,
         "StreamMessage": streamMessageSchema, "StreamEvent": streamEventSchema]
    }

    // MARK: Operations

    static var inboxOperation: JSONValue {
        let operation = getOperation("listNotifications", "The notification inbox: newest first, or after an id oldest first.",
                                     content: jsonContent(ref("InboxPage")), extraErrors: ["400"])
        return operation.adding("parameters", [
            queryParameter("unread", ["type": "boolean"], "Only entries not marked read."),
            queryParameter("after", ["type": "integer", "minimum": 0, "maximum": .integer(Int64.max)], "Only entries after this inbox id, oldest first."),
            queryParameter("limit", ["type": "integer", "minimum": 1, "maximum": .integer(NotificationRoutes.maxLimit)], "At most this many (default 50)."),
        ])
    }

    /// The stream's `schema` describes each message (OpenAPI before 3.2 has no `itemSchema`, and
    /// tools such as schemathesis read a `text/event-stream` schema so): its `event`, `id` and
    /// `data` fields, the data being JSON of the kind the event names.
    static var streamOperation: JSONValue {
        let operation = getOperation(
            "stream", "Server-Sent Events: `notification` (any token) and `event` (admin) messages. Each id is the position n-<inbox id>.e-<event position>; send it back as Last-Event-ID to resume.",
            content: ["text/event-stream": ["schema": ref("StreamMessage")]], extraErrors: ["400"])
        return operation.adding("parameters", [[
            "name": "Last-Event-ID", "in": "header", "required": false, "schema": ["type": "string", "pattern": .string(StreamPosition.pattern)],
            "description": "Resume after this position: n-12.e-40, or n-12 or e-40 alone (the other kind from now). Empty: as if not sent.",
        ]])
    }

    /// One message of `GET /v1/stream`, as an SSE client parses it.
    static let streamMessageSchema: JSONValue = [
        "type": "object", "required": ["event", "data", "id"],
        "properties": [
            "event": ["enum": ["notification", "event"]],
            "id": ["type": "string", "pattern": "^n-[0-9]+\\.e-[0-9]+$", "description": "The stream's position after this message."],
            "data": ["type": "string", "contentMediaType": "application/json"],
            "retry": ["type": "integer", "minimum": 0],
        ],
        "oneOf": [
            ["properties": ["event": ["const": "notification"], "data": ["contentSchema": ref("InboxEntry")]]],
            ["properties": ["event": ["const": "event"], "data": ["contentSchema": ref("StreamEvent")]]],
        ],
    ]

    /// The data of an `event` message: an event a plugin published.
    static let streamEventSchema: JSONValue = [
        "type": "object", "required": ["position", "publisher", "name", "sequence", "payload", "publishedAt"],
        "properties": [
            "position": ["type": "integer", "minimum": 1], "publisher": ["type": "string"], "name": ["type": "string"],
            "sequence": ["type": "integer"], "payload": [:], "publishedAt": ["type": "string", "format": "date-time"],
        ],
    ]

    static var locationOperation: JSONValue {
        var responses = errorResponses(["401", "413", "415", "429"])
        responses["200"] = [
            "description": "Always `[]` (OwnTracks' HTTP mode expects an array of messages for the device). `Tessera-Location` says what was accepted.",
            "headers": ["Tessera-Location": ["description": "accepted=N rejected=N skipped=N", "schema": ["type": "string"]],
                        "Tessera-Location-Rejected": ["description": "The rejected fixes by reason, e.g. inTheFuture=1 outOfOrder=2 (only when some were).",
                                                      "schema": ["type": "string"]]],
            "content": jsonContent(["type": "array", "maxItems": 0]),
        ]
        return [
            "operationId": "ingestLocation", "tags": ["host"],
            "summary": "OwnTracks HTTP mode: one message or an array. The device is the topic, else X-Limit-U/X-Limit-D, else tid. The token may be the password of HTTP Basic.",
            "parameters": [
                ["name": "X-Limit-U", "in": "header", "required": false, "schema": ["type": "string"], "description": "The OwnTracks user."],
                ["name": "X-Limit-D", "in": "header", "required": false, "schema": ["type": "string"], "description": "The OwnTracks device."],
            ],
            // Any JSON: what is not a usable OwnTracks message is counted, never refused (an app
            // would only send it again).
            "requestBody": ["required": false, "content": jsonContent([
                "description": "An OwnTracks message (_type location, transition, …) or an array of them.",
            ])],
            "responses": .object(responses),
        ]
    }

    static func postOperation(_ id: String, _ summary: String, input: JSONValue, output: JSONValue, errors: [String]) -> JSONValue {
        var responses = errorResponses(["401", "429"] + errors)
        responses["200"] = ["description": "OK", "content": jsonContent(output)]
        return ["operationId": .string(id), "summary": .string(summary), "tags": ["host"],
                "requestBody": ["required": true, "content": jsonContent(input)], "responses": .object(responses)]
    }

    static func queryParameter(_ name: String, _ schema: JSONValue, _ description: String) -> JSONValue {
        ["name": .string(name), "in": "query", "required": false, "schema": schema, "description": .string(description)]
    }

    // MARK: Schemas

    static let inboxEntrySchema: JSONValue = [
        "type": "object", "required": ["id", "plugin", "key", "recipient", "title", "body", "payload", "dueAt", "deliveredAt", "late"],
        "properties": [
            "id": ["type": "integer", "minimum": 1], "plugin": ["type": "string"], "key": ["type": "string"],
            "recipient": ["type": "string"], "title": ["type": "string"], "body": ["type": "string"], "payload": [:],
            "dueAt": ["type": "string", "format": "date-time"], "deliveredAt": ["type": "string", "format": "date-time"],
            "late": ["type": "boolean"], "readAt": ["type": "string", "format": "date-time"],
            "priority": notificationPrioritySchema, "message": notificationMessageSchema,
        ],
    ]

    /// How urgently a notification asks for attention (SDK 1.8).
    static let notificationPrioritySchema: JSONValue = ["type": "string", "enum": ["normal", "time-sensitive", "critical"]]

    /// A notification's text as a key of the plugin's catalogue and typed values (SDK 1.8): a
    /// reader's client renders `<key>.title` and `<key>.body` in its own language.
    static let notificationMessageSchema: JSONValue = [
        "type": "object", "required": ["key", "values"],
        "properties": [
            "key": ["type": "string", "minLength": 1],
            "values": ["type": "object", "additionalProperties": ["type": "object", "minProperties": 1, "maxProperties": 1, "properties": [
                "text": ["type": "string"], "number": ["type": "number"], "instant": ["type": "integer", "description": "milliseconds since 1970"],
                "day": ["type": "string", "format": "date"], "meters": ["type": "number"], "seconds": ["type": "number"],
            ]]],
        ],
    ]

    static let inboxPageSchema: JSONValue = [
        "type": "object", "required": ["notifications", "counters"],
        "properties": [
            "notifications": ["type": "array", "items": ref("InboxEntry")],
            "counters": ["type": "object", "additionalProperties": ["type": "integer"],
                         "description": "delivered, late, superseded, droppedLate, webhookSent, webhookDropped."],
        ],
    ]

    static let markReadSchema: JSONValue = [
        "type": "object", "required": ["marked"], "properties": ["marked": ["type": "integer", "minimum": 0]],
    ]

    static let clockSchema: JSONValue = [
        "type": "object", "required": ["now", "kind"],
        "properties": ["now": ["type": "string", "format": "date-time"], "kind": ["enum": ["system", "virtual"]]],
    ]

    static let clockAdvanceSchema: JSONValue = [
        "type": "object", "required": ["now", "fired"],
        "properties": [
            "now": ["type": "string", "format": "date-time"],
            "fired": ["type": "array", "items": [
                "type": "object", "required": ["plugin", "key", "at", "outcome"],
                "properties": ["plugin": ["type": "string"], "key": ["type": "string"], "at": ["type": "string"],
                               "outcome": ["enum": ["fired", "failed", "deferred"]]],
            ]],
        ],
    ]
}
