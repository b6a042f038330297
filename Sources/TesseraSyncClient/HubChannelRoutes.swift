import Foundation
import TesseraSDK

/// The hub's delivery channels of this device's person (docs/hub.md, "Delivery channels"): list,
/// add, remove. The answers are the hub's JSON, as `tessera sync channels` prints them.
extension HubConnection {
    /// My channels, oldest first (never their secrets).
    public func channels() async throws -> [JSONValue] {
        let answer = try await send("GET", "/v1/hub/channels")
        guard answer.status == 200, let json = try? JSONValue(parsing: answer.body) else { throw SyncClientError(answer) }
        return json["channels"]?.arrayValue ?? []
    }

    /// Adds a channel: `kind` `webhook` (with `url`) or `email`, optionally only `plugin`'s
    /// notifications. A webhook's signing secret is in the answer, and only there.
    public func addChannel(kind: String, url: String? = nil, address: String? = nil, plugin: String? = nil) async throws -> JSONValue {
        var json: [String: JSONValue] = ["kind": .string(kind)]
        if let url { json["url"] = .string(url) }
        if let address { json["address"] = .string(address) }
        if let plugin { json["plugin"] = .string(plugin) }
        let answer = try await send("POST", "/v1/hub/channels", body: Array(JSONValue.object(json).serialized().utf8), contentType: "application/json")
        guard answer.status == 201, let added = try? JSONValue(parsing: answer.body) else { throw SyncClientError(answer) }
        return added
    }

    /// Confirms an e-mail channel with the code mailed to its address.
    public func confirmChannel(_ id: String, code: String) async throws -> JSONValue {
        let body = JSONValue.object(["code": .string(code)]).serialized()
        let answer = try await send("POST", "/v1/hub/channels/\(Self.pathSegment(id))/confirm", body: Array(body.utf8), contentType: "application/json")
        guard answer.status == 200, let channel = try? JSONValue(parsing: answer.body) else { throw SyncClientError(answer) }
        return channel
    }

    /// Removes one of my channels.
    public func removeChannel(_ id: String) async throws {
        let answer = try await send("DELETE", "/v1/hub/channels/\(Self.pathSegment(id))")
        guard answer.status == 204 else { throw SyncClientError(answer) }
    }

    static func pathSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? text
    }
}
