import Foundation
@_spi(TesseraHost) import TesseraSDK
import TesseraSyncClient

/// The device's person at the hub: registering (the hub's open registration, UC1–UC2), logging in
/// (UC3) and who is logged in (``PluginSpaces/currentPerson()``). Logging out is HostLogout.swift.
extension HubLink {
    /// Where the logged-in person is kept beside the token: the host's secrets, so a logout that
    /// removes one removes the other, and a plugin never reads either.
    static let hubPersonName = "hub-person"

    /// Registers a person at the deployment's hub and logs this device in as them, in one request
    /// (the hub's `POST /v1/hub/register`). The hub's refusals are ``SyncClientError``s with its
    /// code (`registration_closed`, `email_taken`, `weak_password`, …); no answer is `unavailable`.
    /// A device logged in already is refused (`conflict`): it holds one person's data at a time.
    @discardableResult
    func syncRegister(_ registration: HubRegistration) async throws -> LoggedInPerson {
        let hub = try configuredHub()
        guard !isLoggedInToHub else {
            throw PluginError(.conflict, "this device is logged in to \(hub.hub)\(hubPerson.map { " as \($0.name)" } ?? ""): log out first (tessera sync logout)")
        }
        return try keepLogin(try await HubConnection.register(baseURL: hub.hub, registration, timeout: hub.timeoutSeconds))
    }

    /// The person this device is logged in as, or `nil` when it is not logged in. A device logged
    /// in before the person was kept (a host older than SDK 1.6) has a token and no person: `nil`
    /// too, until it logs in again.
    var hubPerson: LoggedInPerson? {
        guard isLoggedInToHub, let text = try? secrets.value(plugin: Self.hubTokenOwner, name: Self.hubPersonName),
              let json = try? JSONValue(parsing: Array(text.utf8)),
              let id = json["id"]?.stringValue, let name = json["name"]?.stringValue else { return nil }
        return LoggedInPerson(id: id, name: name, displayName: json["displayName"]?.stringValue)
    }

    /// Drops any old token, keeps the person, then the new token: a crash in between leaves a
    /// person without a token, which counts as logged out (``hubPerson`` needs the token), never a
    /// token beside another person.
    func keepLogin(_ login: HubDeviceLogin) throws -> LoggedInPerson {
        let person = LoggedInPerson(id: login.personID, name: login.personName, displayName: login.personDisplayName)
        _ = try secrets.remove(plugin: Self.hubTokenOwner, name: Self.hubTokenName)
        let json = person.wire.serialized()
        try secrets.set(plugin: Self.hubTokenOwner, name: Self.hubPersonName, value: json, at: clock.now())
        try secrets.set(plugin: Self.hubTokenOwner, name: Self.hubTokenName, value: login.token, at: clock.now())
        return person
    }
}
