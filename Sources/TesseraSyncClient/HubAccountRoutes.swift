import Foundation
import TesseraSDK

/// A device logged in at the hub: its token (kept as a secret) and the person it is logged in as.
public struct HubDeviceLogin: Sendable, Hashable {
    /// The device token (`tsd_…`); never logged.
    public var token: String
    /// The person's hub id.
    public var personID: String
    /// The person's account name (their e-mail address when they registered themselves).
    public var personName: String
    /// The person's first name and surname, when they registered themselves.
    public var personDisplayName: String?
}

/// What a person gives to register themselves at a hub with open registration (docs/hub.md,
/// `POST /v1/hub/register`). The password is never part of a description or a log line.
public struct HubRegistration: Sendable {
    public var firstName: String
    public var surname: String
    public var email: String
    public var password: String
    public var acceptTerms: Bool
    public var device: String

    public init(firstName: String, surname: String, email: String, password: String, acceptTerms: Bool, device: String) {
        self.firstName = firstName
        self.surname = surname
        self.email = email
        self.password = password
        self.acceptTerms = acceptTerms
        self.device = device
    }
}

/// The hub's account routes a device calls without a token: logging in and registering.
extension HubConnection {
    /// Logs a new device in by account name (`POST /v1/hub/login`); the token and the person.
    /// `timeout`: seconds without an answer before it fails (`unavailable`).
    public static func logIn(baseURL: String, name: String, password: String, device: String,
                             timeout: TimeInterval = HubConnection.defaultTimeout) async throws -> HubDeviceLogin {
        let body = JSONValue.object(["name": .string(name), "password": .string(password), "device": .string(device)])
        return try await deviceLogin(baseURL: baseURL, path: "/v1/hub/login", body: body, timeout: timeout)
    }

    /// Registers a person and logs this device in as them at once (`POST /v1/hub/register`).
    /// The hub's refusals come back as ``SyncClientError`` with its code and field:
    /// `registration_closed`, `email_taken`, `weak_password`, `invalid_email`, `invalid_name`,
    /// `terms_not_accepted`; no answer at all is `unavailable`.
    public static func register(baseURL: String, _ registration: HubRegistration,
                                timeout: TimeInterval = HubConnection.defaultTimeout) async throws -> HubDeviceLogin {
        let body = JSONValue.object([
            "firstName": .string(registration.firstName), "surname": .string(registration.surname),
            "email": .string(registration.email), "password": .string(registration.password),
            "acceptTerms": .bool(registration.acceptTerms), "device": .string(registration.device),
        ])
        return try await deviceLogin(baseURL: baseURL, path: "/v1/hub/register", body: body, timeout: timeout)
    }

    /// Both routes answer 201 `{"person": {"id", "name", "displayName"?}, "device", "token"}`.
    private static func deviceLogin(baseURL: String, path: String, body: JSONValue, timeout: TimeInterval) async throws -> HubDeviceLogin {
        let anonymous = HubConnection(baseURL: baseURL, token: "", timeout: timeout)
        let answer = try await anonymous.send("POST", path, body: Array(body.serialized().utf8), contentType: "application/json", authorized: false)
        guard answer.status == 201, let json = try? JSONValue(parsing: answer.body), let token = json["token"]?.stringValue,
              let id = json["person"]?["id"]?.stringValue, let name = json["person"]?["name"]?.stringValue else {
            throw SyncClientError(answer)
        }
        return HubDeviceLogin(token: token, personID: id, personName: name, personDisplayName: json["person"]?["displayName"]?.stringValue)
    }
}
