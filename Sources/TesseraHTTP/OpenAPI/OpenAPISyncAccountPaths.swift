import TesseraSDK

/// The OpenAPI description of the device's person at its hub (``SyncAccountRoutes``): register,
/// log in, log out, and who is logged in. The request schemas are the ones the routes enforce.
extension OpenAPIComponents {
    static var syncAccountPaths: [String: JSONValue] {
        // 409: no hub in the deployment, or already logged in; 502/503: the hub failed or is out of reach.
        let hubErrors = ["400", "403", "409", "413", "415", "502", "503"]
        return [
            "/v1/sync/register": ["post": syncOperation(postOperation(
                "syncRegister", "Admin: create an account at the hub (its open registration) and log this device in as it. 403 `registration_closed`, 409 `email_taken`, `already_logged_in` or `no_hub`, 400 `weak_password`, `invalid_email`, `invalid_name`, 503 `hub_unreachable`.",
                input: SyncAccountRoutes.registerInput.document, output: ref("SyncPerson"), errors: hubErrors), created: true)],
            "/v1/sync/login": ["post": syncOperation(postOperation(
                "syncLogin", "Admin: log this device in to the hub. 403 `invalid_credentials`, 409 `already_logged_in` or `no_hub`, 503 `hub_unreachable`.",
                input: SyncAccountRoutes.loginInput.document, output: ref("SyncPerson"), errors: hubErrors), created: false)],
            "/v1/sync/logout": ["post": syncOperation(postOperation(
                "syncLogout", "Admin: log this device out after a last sync round, removing the person's synced data from it. 409: not logged in, no hub, or the last round failed (send discardUnsynced).",
                input: SyncAccountRoutes.logoutInput.document, output: ref("SyncLogout"), errors: ["400", "403", "409", "413", "415"]), created: false)],
            "/v1/sync/me": ["get": syncOperation(getOperation(
                "syncMe", "Admin: the hub, the person this device is logged in as (`null` when nobody is), and per syncing plugin the changes waiting to be sent and the last round.",
                content: jsonContent(ref("SyncPerson")), extraErrors: ["403"]), created: false)],
        ]
    }

    /// Tagged `sync`; register answers 201.
    private static func syncOperation(_ operation: JSONValue, created: Bool) -> JSONValue {
        let tagged = operation.adding("tags", ["sync"])
        guard created, var responses = tagged["responses"]?.objectValue else { return tagged }
        responses["201"] = responses.removeValue(forKey: "200")
        return tagged.adding("responses", .object(responses))
    }

    static var syncAccountSchemas: [String: JSONValue] {
        let person: JSONValue = ["type": "object", "additionalProperties": false, "required": ["id", "name"],
                                 "properties": ["id": ["type": "string"], "name": ["type": "string"], "displayName": ["type": "string"]]]
        // Per syncing plugin: changes waiting to be sent, and the last round's time and outcome.
        let pluginState: JSONValue = [
            "type": "object", "additionalProperties": false, "required": ["waiting"],
            "properties": ["waiting": ["type": "integer", "minimum": 0],
                           "lastRound": ["type": "object", "additionalProperties": false, "required": ["at", "ok"],
                                         "properties": ["at": ["type": "string", "format": "date-time"], "ok": ["type": "boolean"]]]],
        ]
        return [
            "SyncPerson": ["type": "object", "additionalProperties": false, "required": ["hub", "loggedIn", "person", "plugins"],
                           "properties": ["hub": ["type": ["string", "null"]], "loggedIn": ["type": "boolean"],
                                          "person": ["oneOf": [person, ["type": "null"]]],
                                          "plugins": ["type": "object", "additionalProperties": pluginState]]],
            "SyncLogout": ["type": "object", "additionalProperties": false, "required": ["rows", "files", "notifications"],
                           "properties": ["rows": ["type": "integer", "minimum": 0], "files": ["type": "integer", "minimum": 0],
                                          "notifications": ["type": "integer", "minimum": 0]]],
        ]
    }
}
