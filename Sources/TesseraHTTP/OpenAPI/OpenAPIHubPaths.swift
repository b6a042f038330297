import TesseraSDK

/// The OpenAPI description of the hub's routes (docs/hub.md), in the document of a deployment
/// whose role is `hub`. These routes take a device token from `POST /v1/hub/login` (the
/// `deviceToken` scheme), except login itself (none) and creating a person (the admin token).
extension OpenAPIComponents {
    static var hubPaths: [String: JSONValue] {
        let space = pathParameter("space", "A shared space's id (a lowercase UUID).")
        let plugin = queryParameter("plugin", ["type": "string"], "Only this plugin's spaces: the plugin registering, listing or managing its own.")
        let invitation = pathParameter("invitation", "The invitation's id.")
        return [
            "/v1/hub/people": ["post": hubOperation(
                "hubCreatePerson", "Create a person with their personal space (the hub's admin token).", input: ref("HubNewPerson"),
                output: ref("HubPerson"), success: "201", errors: ["400", "401", "403", "409"], security: [["bearer": []]])],
            "/v1/hub/login": ["post": hubOperation(
                "hubLogin", "Log a device in with a name and password; the device token is in the answer, and only there.",
                input: ref("HubLogin"), output: ref("HubDeviceToken"), success: "201", errors: ["400", "401"], security: [])],
            "/v1/hub/register": ["post": hubOperation(
                "hubRegister", "Create my account (when the hub's registration is open): the person, their personal space, and this device logged in.",
                input: ref("HubRegistration"), output: ref("HubDeviceToken"), success: "201", errors: ["400", "403", "409"], security: [])],
            "/v1/hub/password-reset": ["post": hubOperation(
                "hubPasswordReset", "Mail a 7-digit code, valid 10 minutes, to the address if it has an account; the same answer either way, after at least 5 s.",
                input: ref("HubEmail"), output: ref("HubResetSent"), success: "202", errors: ["400"], security: [])],
            "/v1/hub/password-reset/confirm": ["post": hubOperation(
                "hubPasswordResetConfirm", "Set a new password with the mailed code; every device is signed out. Answered after at least 5 s.",
                input: ref("HubResetConfirm"), success: "204", errors: ["400"], security: [])],
            "/v1/hub/me": ["get": hubOperation("hubMe", "The person and device the token stands for.", output: ref("HubMe"), errors: [])],
            "/v1/hub/devices": ["get": hubOperation("hubDevices", "My devices, in the order they logged in.", output: ref("HubDevices"), errors: [])],
            "/v1/hub/devices/{device}": ["delete": hubOperation(
                "hubRevokeDevice", "Revoke one of my devices: its token stops working at once.", success: "204", errors: ["404"])
                .adding("parameters", [pathParameter("device", "The device's id.")])],
            "/v1/hub/password": ["put": hubOperation(
                "hubChangePassword", "Change my password, proving the current one; optionally sign out every other device.",
                input: ref("HubPasswordChange"), success: "204", errors: ["400"])],
            "/v1/hub/spaces": ["get": hubOperation("hubSpaces", "My spaces with their members, and the spaces I left, was removed from, or that were deleted.",
                                                   output: ref("HubSpaces"), errors: ["400"]).adding("parameters", [plugin])],
            "/v1/hub/spaces/{space}": [
                "put": hubOperation("hubRegisterSpace", "Register a shared space (I become its owner; 201) or rename it (owners; 200).",
                                    input: ref("HubName"), output: ref("HubSpaceRegistered"), errors: ["400", "403", "404", "409", "410"])
                    .adding("parameters", [space, plugin]),
                "delete": hubOperation("hubDeleteSpace", "Delete a shared space for good (owners); its members are told.",
                                       success: "204", errors: ["400", "403", "404", "409", "410"])
                    .adding("parameters", [space, plugin]),
            ],
            "/v1/hub/spaces/{space}/invitations/{invitation}": ["delete": hubOperation(
                "hubCancelInvitation", "Cancel an open invitation of the space (owners): its code stops working.",
                success: "204", errors: ["400", "403", "404", "409", "410"]).adding("parameters", [space, invitation, plugin])],
            "/v1/hub/invitations": ["get": hubOperation(
                "hubMyInvitations", "The open invitations addressed to me by name.", output: ref("HubPendingInvitations"), errors: ["400"])
                .adding("parameters", [plugin])],
            "/v1/hub/invitations/{invitation}/accept": ["post": hubOperation(
                "hubAcceptInvitation", "Accept an invitation addressed to me, by its id.", output: ref("HubMembership"),
                errors: ["400", "404", "409", "410"]).adding("parameters", [invitation, plugin])],
            "/v1/hub/invitations/{invitation}/decline": ["post": hubOperation(
                "hubDeclineInvitation", "Decline an invitation addressed to me: it is removed, its code stops working.",
                success: "204", errors: ["400", "404"]).adding("parameters", [invitation, plugin])],
            "/v1/hub/spaces/{space}/invitations": ["get": hubOperation(
                "hubSpaceInvitations", "The space's open invitations (owners), never their codes.", output: ref("HubPendingInvitations"),
                errors: ["400", "403", "404", "409", "410"]).adding("parameters", [space, plugin]),
                "post": hubOperation(
                "hubInvite", "A single-use invitation code with a role and an expiry (owners); the code is shown this once.",
                input: ref("HubInvite"), output: ref("HubInvitation"), success: "201", errors: ["400", "403", "404", "409", "410"])
                .adding("parameters", [space, plugin])],
            "/v1/hub/invitations/accept": ["post": hubOperation(
                "hubAccept", "Accept an invitation: join its space with its role; the code is used up.",
                input: ref("HubCode"), output: ref("HubMembership"), errors: ["400", "403", "404", "409", "410"])],
            "/v1/hub/spaces/{space}/members/{person}": [
                "put": hubOperation("hubSetRole", "Change a member's role (owners); the last owner cannot be demoted.",
                                    input: ref("HubRole"), output: ref("HubMembership"), errors: ["400", "403", "404", "409", "410"])
                    .adding("parameters", [space, pathParameter("person", "The member's person id."), plugin]),
                "delete": hubOperation("hubRemoveMember", "Revoke a member (owners), or leave (anyone); the last owner cannot leave.",
                                       success: "204", errors: ["400", "403", "404", "409", "410"])
                    .adding("parameters", [space, pathParameter("person", "The member's person id."), plugin]),
            ],
            "/v1/hub/notifications": [
                "post": hubOperation("hubRelayNotification", "File a notification for the members of a space (idempotent by its key): 201 filed, 200 a repeat.",
                                     input: ref("HubRelayNotification"), output: ref("HubRelayed"), success: "201", errors: ["400", "404", "409", "410"]),
                "get": hubOperation("hubNotifications", "The notifications filed for me after `after`; fetching acknowledges up to `after` for this device.",
                                    output: ref("HubNotifications"), errors: ["400"])
                    .adding("parameters", [
                        queryParameter("after", ["type": "integer", "minimum": 0], "My notification cursor (0 at first)."),
                        queryParameter("limit", ["type": "integer", "minimum": 1, "maximum": 500], "At most this many (default 200)."),
                    ]),
            ],
            "/v1/hub/channels": [
                "get": hubOperation("hubChannels", "My delivery channels (webhook, e-mail), oldest first; never their secrets.",
                                    output: ref("HubChannels"), errors: []),
                "post": hubOperation("hubAddChannel",
                                     "Add a delivery channel: the hub itself sends me the space notifications filed for me there, devices online or not. A webhook's signing secret is in this answer only.",
                                     input: ref("HubNewChannel"), output: ref("HubChannel"), success: "201", errors: ["400", "409"]),
            ],
            "/v1/hub/channels/{channel}": ["delete": hubOperation(
                "hubRemoveChannel", "Remove one of my channels; what was still to be sent to it is not sent.", success: "204", errors: ["404"])
                .adding("parameters", [pathParameter("channel", "The channel's id.")])],
            "/v1/hub/channels/{channel}/confirm": ["post": hubOperation(
                "hubConfirmChannel", "Confirm an e-mail channel to an address other than my account's with the code mailed there; from then on it receives.",
                input: ref("HubChannelCode"), output: ref("HubChannel"), errors: ["400", "404", "410"])
                .adding("parameters", [pathParameter("channel", "The channel's id.")])],
            "/v1/hub/mail": ["post": hubOperation(
                "hubSendMail", "Send one message to one address with at most one file (PDF, CSV, JSON; 10 MiB), from the hub's sender with Reply-To my address: queued in the hub's outbox and answered at once; 20 a day.",
                input: ref("HubMail"), output: ref("HubMailQueued"), success: "202", errors: ["400", "503"])
                .adding("parameters", [queryParameter("plugin", ["type": "string"], "The plugin that sends it for me, named in the mail.")])],
            "/v1/hub/files/{address}/upload": ["get": hubOperation(
                "hubFileUploadState", "Whether the hub needs this file's bytes from me (`held`), and how many bytes of my unfinished upload it kept.",
                output: ref("HubFileUploadState"), errors: ["400"]).adding("parameters", [fileAddressParameter])],
            "/v1/hub/files/{address}": ["put": fileUploadOperation, "get": fileDownloadOperation],
            "/v1/hub/sync/{plugin}/push": ["post": pushOperation],
            "/v1/hub/sync/{plugin}/pull": ["get": pullOperation],
            "/v1/hub/sync/{plugin}/wait": ["get": hubOperation(
                "hubWait", "Wait (a long poll) until my spaces hold a change of the plugin after `after`, or `seconds` pass: `changes` says which.",
                output: ref("HubWaitAnswer"), errors: ["400"])
                .adding("parameters", [
                    pluginParameter,
                    queryParameter("after", ["type": "integer", "minimum": 0, "maximum": .integer(Int64.max)], "My pull cursor."),
                    queryParameter("seconds", ["type": "integer", "minimum": 0, "maximum": 60], "How long to wait at most (default 25)."),
                    queryParameter("notificationsAfter", ["type": "integer", "minimum": 0],
                                   "My notification cursor: answer also when a notification for me is filed after it."),
                ])],
            "/v1/hub/sync/{plugin}/created": ["get": hubOperation(
                "hubRowsCreated", "The rows of a space whose first stored change I pushed: mine under a per-plugin role's `own` rule.",
                output: ref("HubRowsCreated"), errors: ["400", "404", "410"])
                .adding("parameters", [pluginParameter, queryParameter("space", ["type": "string"], "The space (`personal` or a shared space's id).")])],
            "/v1/hub/sync/{plugin}/check": ["post": hubOperation(
                "hubCheck", "Are we in sync? Each space's merkle root (or trie) against the hub's: `in_sync`, `differs` from a minute, `not_a_member` or `deleted`.",
                input: ref("HubCheck"), output: ref("HubCheckAnswer"), errors: ["400"])
                .adding("parameters", [pluginParameter])],
        ]
    }

    /// `POST /v1/hub/sync/{plugin}/push`: a `SyncWire` batch in, a JSON verdict out.
    static var pushOperation: JSONValue {
        var responses = errorResponses(["400", "401", "410", "413", "415", "429", "500"])
        responses["200"] = ["description": "Stored once each; duplicates answered the same; refusals per change with a reason.",
                            "content": jsonContent(ref("HubPushResult"))]
        return ["operationId": "hubPush", "summary": "Push a batch of cell changes (idempotent).", "tags": ["hub"],
                "security": [["deviceToken": []]], "parameters": [pluginParameter],
                "requestBody": ["required": true, "content": [syncMediaType: ["schema": ["type": "string", "contentMediaType": .string(syncMediaType)]]]],
                "responses": .object(responses)]
    }

    /// `GET /v1/hub/sync/{plugin}/pull`: a `SyncWire` page, its cursor and whether more remain in headers.
    static var pullOperation: JSONValue {
        var responses = errorResponses(["400", "401", "404", "410", "429", "500"])
        responses["200"] = [
            "description": "A page of changes in arrival order; a record change's cells are never split across pages.",
            "headers": [
                "Tessera-Sync-Cursor": ["description": "Send it back as `after` for the next page.", "schema": ["type": "integer"]],
                "Tessera-Sync-More": ["description": "`true` when more changes wait.", "schema": ["type": "string", "enum": ["true", "false"]]],
            ],
            "content": [syncMediaType: ["schema": ["type": "string", "contentMediaType": .string(syncMediaType)]]],
        ]
        return ["operationId": "hubPull", "summary": "Pull the changes of my spaces after a cursor.", "tags": ["hub"],
                "security": [["deviceToken": []]],
                "parameters": [
                    pluginParameter,
                    queryParameter("after", ["type": "integer", "minimum": 0, "maximum": .integer(Int64.max)], "The cursor a pull returned (0 from the start)."),
                    queryParameter("limit", ["type": "integer", "minimum": 1, "maximum": 10_000], "At most this many changes (default 1000)."),
                    queryParameter("maxBytes", ["type": "integer", "minimum": 1, "maximum": .integer(16 << 20)], "About this many bytes (default 512 KiB)."),
                    queryParameter("space", ["type": "string"], "Only this space (`personal` or a shared space's id)."),
                ],
                "responses": .object(responses)]
    }

    static let syncMediaType = "application/x-tessera-sync"

    static var fileAddressParameter: JSONValue { pathParameter("address", "The file's SHA-256: 64 lowercase hex digits.") }

    /// `PUT /v1/hub/files/{address}`: bytes from `offset` in, the upload's progress out.
    static var fileUploadOperation: JSONValue {
        var responses = errorResponses(["400", "401", "409", "413", "422", "429", "500", "507"])
        responses["200"] = ["description": "Bytes kept; more are missing.", "content": jsonContent(ref("HubFileUpload"))]
        responses["201"] = ["description": "The file is whole, verified against its address, and stored.", "content": jsonContent(ref("HubFileUpload"))]
        return ["operationId": "hubUploadFile", "summary": "Upload a file's bytes from `offset` (resumable); verified against the address once whole.",
                "tags": ["hub"], "security": [["deviceToken": []]],
                "parameters": [
                    fileAddressParameter,
                    queryParameter("size", ["type": "integer", "minimum": 1], "The whole file's size in bytes.").adding("required", true),
                    queryParameter("offset", ["type": "integer", "minimum": 0], "Where these bytes start (default 0): what the hub kept."),
                ],
                "requestBody": ["required": true, "content": ["application/octet-stream": ["schema": ["type": "string", "contentMediaType": "application/octet-stream"]]]],
                "responses": .object(responses)]
    }

    /// `GET /v1/hub/files/{address}?plugin=`: the bytes, whole or one range.
    static var fileDownloadOperation: JSONValue {
        var responses = errorResponses(["400", "401", "404", "416", "429", "500"])
        let bytes: JSONValue = ["application/octet-stream": ["schema": ["type": "string", "contentMediaType": "application/octet-stream"]]]
        responses["200"] = ["description": "The whole file.", "content": bytes]
        responses["206"] = ["description": "The range asked for (`Content-Range`).", "content": bytes]
        responses["304"] = ["description": "`If-None-Match` names this file."]
        return ["operationId": "hubDownloadFile",
                "summary": "A file that a record of the plugin in one of my spaces refers to; `Range` for a piece.",
                "tags": ["hub"], "security": [["deviceToken": []]],
                "parameters": [
                    fileAddressParameter,
                    queryParameter("plugin", ["type": "string"], "The plugin whose record refers to the file.").adding("required", true),
                ],
                "responses": .object(responses)]
    }

    static var pluginParameter: JSONValue { pathParameter("plugin", "The plugin whose changes these are.") }

    static func pathParameter(_ name: String, _ description: String) -> JSONValue {
        ["name": .string(name), "in": "path", "required": true, "schema": ["type": "string"], "description": .string(description)]
    }

    /// A hub route: JSON in (if any) and out, a device token unless `security` says otherwise.
    static func hubOperation(_ id: String, _ summary: String, input: JSONValue? = nil, output: JSONValue? = nil, success: String = "200",
                             errors: [String], security: JSONValue = [["deviceToken": []]]) -> JSONValue {
        var responses = errorResponses(["401", "429", "500"] + errors + (input == nil ? [] : ["413", "415"]))
        responses[success] = output.map { ["description": "OK", "content": jsonContent($0)] } ?? ["description": "Done."]
        var operation: JSONValue = ["operationId": .string(id), "summary": .string(summary), "tags": ["hub"],
                                    "security": security, "responses": .object(responses)]
        if let input { operation = operation.adding("requestBody", ["required": true, "content": jsonContent(input)]) }
        return operation
    }

    // MARK: Schemas

    static var hubSchemas: [String: JSONValue] {
        let role: JSONValue = ["type": "string", "enum": ["owner", "editor", "viewer"]]
        let member: JSONValue = object(["person": string, "name": string, "role": role]).adding("properties", [
            "person": string, "name": string, "role": role, "pluginRole": string])
        let roleRules: JSONValue = ["type": "object", "description": "Per-plugin roles (docs/sync.md): the manifest's sync.roles.",
                                    "additionalProperties": ["type": "object", "required": ["hubRole"], "properties": [
                                        "hubRole": role, "tables": ["type": "object", "additionalProperties": ["type": "string", "enum": ["write", "own", "none"]]]]]]
        return [
            "HubNewPerson": object(["name": ["type": "string", "minLength": 1, "maxLength": 100], "password": ["type": "string", "minLength": 8]]),
            // displayName: the names a person registered with; absent for an account the operator made.
            "HubPerson": ["type": "object", "required": ["id", "name"], "properties": ["id": string, "name": string, "displayName": string]],
            "HubLogin": ["type": "object", "required": ["password", "device"], "properties": [
                "name": string, "email": ["type": "string", "description": "A registered person's address (instead of name)."],
                "password": string, "device": ["type": "string", "minLength": 1, "maxLength": 100]]],
            "HubRegistration": object(["firstName": ["type": "string", "minLength": 1, "maxLength": 100], "surname": ["type": "string", "minLength": 1, "maxLength": 100],
                                       "email": string, "password": ["type": "string", "minLength": 8], "acceptTerms": ["type": "boolean", "const": true],
                                       "device": ["type": "string", "minLength": 1, "maxLength": 100]]),
            "HubEmail": object(["email": string]),
            "HubResetSent": object(["sent": boolean, "validMinutes": integer]),
            "HubResetConfirm": object(["email": string, "code": ["type": "string", "pattern": "^[0-9]{7}$"], "password": ["type": "string", "minLength": 8]]),
            "HubRowsCreated": object(["rows": ["type": "array", "items": object(["table": string, "row": string])]]),
            "HubDeviceToken": object(["person": ref("HubPerson"), "device": string, "token": string]),
            "HubMe": object(["person": string, "device": string, "deviceName": string]),
            "HubDevices": object(["devices": ["type": "array", "items": object(["id": string, "name": string, "createdAt": dateTime, "current": boolean])]]),
            "HubSpaces": object([
                "spaces": ["type": "array", "items": object(["id": string, "name": string, "kind": ["type": "string", "enum": ["personal", "shared"]],
                                                              "role": role, "members": ["type": "array", "items": member]])
                    .adding("properties", ["id": string, "name": string, "kind": ["type": "string", "enum": ["personal", "shared"]], "role": role,
                                           "members": ["type": "array", "items": member], "pluginRole": string, "roleRules": roleRules])],
                "departures": ["type": "array", "items": object(["id": string, "reason": ["type": "string", "enum": ["left", "revoked", "deleted"]],
                                                                  "atMillis": integer])],
            ]),
            "HubPasswordChange": ["type": "object", "required": ["current", "new"], "properties": [
                "current": string, "new": ["type": "string", "minLength": 8], "signOutOtherDevices": boolean]],
            "HubWaitAnswer": ["type": "object", "required": ["changes"], "properties": ["changes": boolean, "notifications": boolean]],
            "HubRelayNotification": ["type": "object", "required": ["key", "notificationKey", "plugin", "space", "title", "dueAtMillis"],
                                     "properties": ["key": string, "notificationKey": string, "plugin": string, "space": string,
                                                    "excludingSender": boolean, "title": string, "body": string, "payload": [:],
                                                    "dueAtMillis": integer, "late": boolean,
                                                    "priority": OpenAPIComponents.notificationPrioritySchema,
                                                    "message": OpenAPIComponents.notificationMessageSchema]],
            "HubRelayed": object(["stored": boolean, "recipients": integer]),
            "HubNotifications": object([
                "notifications": ["type": "array", "items": object([
                    "id": integer, "key": string, "notificationKey": string, "plugin": string, "space": string, "sender": ref("HubPerson"),
                    "title": string, "body": string, "payload": [:], "dueAtMillis": integer, "dueAt": dateTime, "late": boolean,
                    "priority": OpenAPIComponents.notificationPrioritySchema, "message": OpenAPIComponents.notificationMessageSchema])],
                "cursor": integer, "more": boolean]),
            "HubNewChannel": ["oneOf": [
                ["type": "object", "required": ["kind", "url"], "additionalProperties": false, "properties": [
                    "kind": ["type": "string", "const": "webhook"],
                    "url": ["type": "string", "maxLength": 2048,
                            "pattern": #"^(https://[^\s/?#@]+|http://(127\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}|localhost|\[::1\])(:[0-9]{1,5})?)([/?][^\s#]*)?$"#,
                            "description": "https:// to any host, or http:// only to this machine (127.0.0.0/8, [::1], localhost); no user or password, no fragment."],
                    "plugin": pluginID]],
                ["type": "object", "required": ["kind"], "additionalProperties": false, "properties": [
                    "kind": ["type": "string", "const": "email"],
                    "address": ["type": "string", "maxLength": 254,
                                "description": "Where it goes: my account's address when absent; another address (name@domain.tld) is confirmed by a code mailed there."],
                    "plugin": pluginID]],
            ]],
            "HubChannel": ["type": "object", "required": ["id", "kind", "createdAt", "createdAtMillis", "confirmed"], "properties": [
                "id": string, "kind": ["type": "string", "enum": ["webhook", "email"]], "url": string, "address": string, "plugin": string,
                "createdAt": dateTime, "createdAtMillis": integer,
                "confirmed": ["type": "boolean", "description": "false until the code mailed to another address than the account's is entered."],
                "secret": ["type": "string", "description": "A webhook's signing secret (whsec_…): in the answer that adds it, and only there."]]],
            "HubChannelCode": ["type": "object", "required": ["code"], "additionalProperties": false, "properties": [
                "code": ["type": "string", "description": "The 7 digits mailed to the address (blanks ignored)."]]],
            "HubChannels": object(["channels": ["type": "array", "items": ref("HubChannel")]]),
            "HubMail": ["type": "object", "required": ["to", "subject"], "additionalProperties": false, "properties": [
                "to": ["type": "string", "maxLength": 254, "description": "One address name@domain.tld (invalid_recipient)."],
                "subject": ["type": "string", "minLength": 1, "maxLength": 200, "description": "One line (invalid_subject)."],
                "text": ["type": "string", "maxLength": 10_000, "description": "Plain text (text_too_long); the hub adds who sent it."],
                "attachment": ["type": "object", "required": ["fileName", "mediaType", "content"], "additionalProperties": false, "properties": [
                    "fileName": ["type": "string", "pattern": "^[A-Za-z0-9_ -][A-Za-z0-9._ -]{0,99}$", "description": "invalid_attachment_name"],
                    "mediaType": ["type": "string", "enum": ["application/pdf", "text/csv", "application/json"]],
                    "content": ["type": "string", "description": "The bytes in base64, 1 byte to 10 MiB (attachment_too_large)."]]]]],
            "HubMailQueued": object(["id": string, "to": string, "status": ["type": "string", "const": "queued"], "queuedAt": dateTime,
                                     "queuedAtMillis": integer, "remainingToday": integer]),
            "HubName": ["type": "object", "required": ["name"], "properties": ["name": ["type": "string", "minLength": 1, "maxLength": 200],
                                                                                 "roles": roleRules]],
            "HubSpaceRegistered": object(["space": string, "created": boolean]),
            "HubInvite": ["type": "object", "required": ["role"], "properties": [
                "role": role, "expiresInSeconds": ["type": "integer", "minimum": 60, "maximum": 2_592_000],
                "person": ["type": "string", "description": "The invitee's account name: the invitation is addressed to them."],
                "email": ["type": "string", "description": "The invitee's e-mail address: the code is mailed there."],
                "pluginRole": ["type": "string", "description": "A per-plugin role of the space's rules; role must be the hub role it stands on."]]],
            "HubInvitation": ["type": "object", "required": ["id", "code", "space", "role", "expiresAt", "expiresAtMillis"], "properties": [
                "id": string, "code": string, "space": string, "role": role, "invitee": ref("HubPerson"),
                "expiresAt": dateTime, "expiresAtMillis": integer, "pluginRole": string]],
            "HubPendingInvitations": object(["invitations": ["type": "array", "items": [
                "type": "object", "required": ["id", "space", "spaceName", "role", "inviter", "expiresAt", "expiresAtMillis"], "properties": [
                    "id": string, "space": string, "spaceName": string, "role": role, "inviter": ref("HubPerson"),
                    "invitee": ref("HubPerson"), "expiresAt": dateTime, "expiresAtMillis": integer, "pluginRole": string, "email": string]]]]),
            "HubCode": object(["code": string]),
            "HubFileUploadState": object(["held": boolean, "offset": integer]),
            "HubFileUpload": object(["address": string, "offset": integer, "complete": boolean]),
            "HubRole": ["type": "object", "required": ["role"], "properties": ["role": role, "pluginRole": string]],
            "HubMembership": object(["space": string, "person": string, "role": role]),
            "HubPushResult": object([
                "accepted": integer, "stored": integer, "duplicates": integer, "createdSpaces": ["type": "array", "items": string],
                "rejected": ["type": "array", "items": object(["timestamp": string, "column": string, "space": string, "table": string,
                                                                 "row": string, "reason": string, "message": string])],
            ]),
            "HubCheck": object(["spaces": ["type": "object", "additionalProperties": [
                "type": "object", "properties": ["root": ["type": "integer", "minimum": 0, "maximum": 4_294_967_295],
                                                 "trie": ["type": "object", "additionalProperties": ["type": "integer"]]]]]]),
            "HubCheckAnswer": object(["spaces": ["type": "object", "additionalProperties": [
                "type": "object", "required": ["status"], "properties": [
                    "status": ["type": "string", "enum": ["in_sync", "differs", "not_a_member", "deleted"]],
                    "since": dateTime, "sinceMillis": integer, "hubRoot": integer]]]]),
        ]
    }

    private static let string: JSONValue = ["type": "string"]
    private static let pluginID: JSONValue = [
        "type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[a-z0-9._-]+$",
        "description": "Only this plugin's notifications (its id: lowercase letters, digits, '.', '-', '_'); all plugins' when absent."]
    private static let integer: JSONValue = ["type": "integer"]
    private static let boolean: JSONValue = ["type": "boolean"]
    private static let dateTime: JSONValue = ["type": "string", "format": "date-time"]

    /// An object whose listed properties are all required.
    private static func object(_ properties: [String: JSONValue]) -> JSONValue {
        ["type": "object", "required": .array(properties.keys.sorted().map { .string($0) }), "properties": .object(properties)]
    }
}
