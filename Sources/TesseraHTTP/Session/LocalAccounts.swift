import Foundation
import TesseraHub
import TesseraSDK

/// The people who may sign in to this device's console with a name and a password
/// (`<data>/accounts.json`, mode 0600; docs/console.md, "Signing in").
///
/// An account is either the device's own (`local`: made on a device without a hub, the first one
/// from the sign-in page, more by an admin) or the hub person the device is logged in as (`hub`:
/// kept when the person signs in or the device logs in, so that signing in again works offline).
/// Only a yescrypt hash of the password is kept, made as the hub makes its own.
///
/// The file is read on every sign-in rather than cached: sign-ins are rare, and a change made by
/// `tessera account` beside a running server takes effect at once.
public final class LocalAccounts: Sendable {
    /// The file's name in the data directory.
    public static let fileName = "accounts.json"

    /// One account as the file keeps it.
    public struct Account: Sendable, Equatable {
        /// The name as the person typed it when it was made; compared without regard to case.
        public var name: String
        /// `admin` (sees the operator's view) or `user`.
        public var role: Principal.Role
        /// `local` or `hub`.
        public var source: String
        var passwordHash: String
        /// The person's language (`cs`, `sk`, `en`), once they chose one.
        public var language: String?

        var key: String { Self.key(name) }
        static func key(_ name: String) -> String { name.trimmingCharacters(in: .whitespaces).lowercased() }

        var json: JSONValue {
            var object: [String: JSONValue] = ["name": .string(name), "role": .string(role.rawValue), "source": .string(source),
                                               "passwordHash": .string(passwordHash)]
            if let language { object["language"] = .string(language) }
            return .object(object)
        }

        init(name: String, role: Principal.Role, source: String, passwordHash: String, language: String? = nil) {
            self.name = name
            self.role = role
            self.source = source
            self.passwordHash = passwordHash
            self.language = language
        }

        init?(json: JSONValue) {
            guard let name = json["name"]?.stringValue, let role = json["role"]?.stringValue,
                  [Principal.Role.admin.rawValue, Principal.Role.user.rawValue].contains(role),
                  let hash = json["passwordHash"]?.stringValue else { return nil }
            self.init(name: name, role: Principal.Role(rawValue: role), source: json["source"]?.stringValue ?? "local",
                      passwordHash: hash, language: json["language"]?.stringValue)
        }
    }

    private let file: PrivateJSONFile

    public init(dataDirectory: String) {
        file = PrivateJSONFile(path: (dataDirectory as NSString).appendingPathComponent(Self.fileName))
    }

    /// Every account (an unreadable file reads as none: nobody can sign in until it is fixed).
    public func all() -> [Account] {
        guard let document = try? file.read(), let entries = document["accounts"]?.arrayValue else { return [] }
        return entries.compactMap(Account.init(json:))
    }

    /// The account named `name` (in any case), if there is one.
    public func account(named name: String) -> Account? {
        let key = Account.key(name)
        return all().first { $0.key == key }
    }

    /// The account when `password` is its password; `nil` otherwise. An unknown name costs a hash
    /// too, so the answer's timing does not tell which names exist.
    func verify(name: String, password: String) -> Account? {
        guard let account = account(named: name) else {
            _ = PasswordHash.verify(password, against: Self.decoyHash)
            return nil
        }
        return PasswordHash.verify(password, against: account.passwordHash) ? account : nil
    }

    /// A hash of nothing anyone types, checked against when a name is unknown.
    private static let decoyHash = (try? PasswordHash.make(UUID().uuidString)) ?? ""

    /// Makes an account. `onlyIfNone` makes it only while no account exists (the first account,
    /// which anyone who reaches the sign-in page could otherwise claim twice).
    @discardableResult
    public func create(name: String, password: String, role: Principal.Role, source: String = "local",
                       onlyIfNone: Bool = false) throws -> Account {
        try Self.check(name: name, password: password)
        let account = Account(name: name.trimmingCharacters(in: .whitespaces), role: role, source: source,
                              passwordHash: try PasswordHash.make(password))
        try change { accounts in
            if onlyIfNone, !accounts.isEmpty { throw AccountError.accountsExist }
            guard !accounts.contains(where: { $0.key == account.key }) else { throw AccountError.exists(account.name) }
            accounts.append(account)
        }
        return account
    }

    /// Keeps `password` as the hub person's: their account is made (an admin when it is the
    /// device's first) or its password replaced.
    @discardableResult
    public func keepHubPassword(name: String, password: String) throws -> Account {
        let hash = try PasswordHash.make(password)
        return try change { accounts in
            if let i = accounts.firstIndex(where: { $0.key == Account.key(name) }) {
                accounts[i].passwordHash = hash
                return accounts[i]
            }
            let account = Account(name: name, role: accounts.isEmpty ? .admin : .user, source: "hub", passwordHash: hash)
            accounts.append(account)
            return account
        }
    }

    /// Sets the person's language.
    func setLanguage(_ language: String, of name: String) throws {
        try change { accounts in
            guard let i = accounts.firstIndex(where: { $0.key == Account.key(name) }) else { throw AccountError.notFound(name) }
            accounts[i].language = language
        }
    }

    /// Sets a new password for `name` (an admin's reset, or the person's own change).
    public func setPassword(_ password: String, of name: String) throws {
        try Self.check(name: name, password: password)
        let hash = try PasswordHash.make(password)
        try change { accounts in
            guard let i = accounts.firstIndex(where: { $0.key == Account.key(name) }) else { throw AccountError.notFound(name) }
            accounts[i].passwordHash = hash
        }
    }

    /// Removes the account named `name`.
    public func remove(name: String) throws {
        try change { accounts in
            guard let i = accounts.firstIndex(where: { $0.key == Account.key(name) }) else { throw AccountError.notFound(name) }
            accounts.remove(at: i)
        }
    }

    private func change<T>(_ body: (inout [Account]) throws -> T) throws -> T {
        try file.whileLocked {
            var accounts = try file.read()?["accounts"]?.arrayValue?.compactMap(Account.init(json:)) ?? []
            let result = try body(&accounts)
            try file.write(.object(["accounts": .array(accounts.map(\.json))]))
            return result
        }
    }

    /// The hub's rules: a name of 1 to 100 characters on one line, not only blanks; a password of
    /// 8 to 1024 characters.
    static func check(name: String, password: String) throws {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= 100, !trimmed.contains(where: { $0.isNewline || $0.unicodeScalars.contains { $0.properties.generalCategory == .control } }) else {
            throw AccountError.invalidName
        }
        guard password.count >= 8, password.count <= 1024 else { throw AccountError.weakPassword }
    }
}

/// Why an account could not be made or changed.
public enum AccountError: Error, Equatable, CustomStringConvertible {
    case invalidName
    case weakPassword
    case exists(String)
    case notFound(String)
    case accountsExist

    public var description: String {
        switch self {
        case .invalidName: "a name is 1 to 100 characters on one line, not only blanks"
        case .weakPassword: "a password is 8 to 1024 characters"
        case .exists(let name): "an account named '\(name)' exists already"
        case .notFound(let name): "no account named '\(name)'"
        case .accountsExist: "this device has accounts already: sign in with one, or ask its admin for one"
        }
    }
}
