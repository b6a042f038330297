import Foundation
import TesseraSDK

/// The hub's store (DESIGN.md §7): people, their devices, spaces with members and roles,
/// invitations, and each (plugin, space)'s change log with its merkle trie, in a ``HubDatabase``:
/// the embedded SQLite file, or PostgreSQL for a hub that runs as several replicas.
///
/// The hub is a relay: it stores each pushed `SyncChange` once and forwards it to the other
/// members' devices; it never materialises rows. Every operation runs in one transaction, so a
/// refused request writes nothing. See docs/hub.md.
public final class HubStore: HubStorePart {
    /// The file name of the embedded store inside the data directory.
    public static let fileName = "hub.sqlite"
    /// How long a device token lasts unused: each use moves its expiry on (a phone that syncs
    /// stays logged in; one in a drawer for half a year must log in again).
    public static let tokenIdleLimitMillis: Int64 = 180 * 86_400_000
    /// A use is written at most this often, so that authenticating is not a write per request.
    static let tokenUseResolutionMillis: Int64 = 3_600_000

    /// How far ahead of the hub's clock a change's timestamp may be (Actual's 5 minutes).
    public static let maxClockAheadMillis: Int64 = 5 * 60_000

    let database: any HubDatabase
    /// Wakes the devices waiting for changes (``waitForChanges(plugin:person:after:seconds:)``).
    let changeSignal = HubChangeSignal()
    /// Set when the hub stops: waits end at once (``endWaits()``).
    let waitsEnded = HubStopFlag()
    /// The outbound mail, kept until the SMTP server takes it (`Mail/`).
    public let mail: HubMailOutbox
    /// People's delivery channels and what is queued for them (`Channels/`).
    public let channels: HubChannelStore
    /// The hub's clock (the host's clock capability; a settable one in tests).
    let now: @Sendable () -> Date
    /// Waits until a moment on that clock: the least time a password-reset answer takes is
    /// measured on it, so tests move a settable clock instead of sleeping.
    let sleepUntil: @Sendable (Date) async -> Void

    /// Waits on the system's clock: for a hub whose clock is the system's.
    public static let systemSleep: @Sendable (Date) async -> Void = { deadline in
        let seconds = deadline.timeIntervalSinceNow
        if seconds > 0 { try? await Task.sleep(for: .milliseconds(Int64((seconds * 1000).rounded(.up)))) }
    }

    /// Opens the store on `database`, creating its tables or upgrading them.
    public init(database: any HubDatabase, now: @escaping @Sendable () -> Date,
                sleepUntil: @escaping @Sendable (Date) async -> Void = HubStore.systemSleep) async throws {
        self.database = database
        self.now = now
        self.sleepUntil = sleepUntil
        mail = HubMailOutbox(database: database, now: now)
        channels = HubChannelStore(database: database, now: now, mail: mail)
        let millis = Int64((now().timeIntervalSince1970 * 1000).rounded(.down))
        try await HubSchemaMigrator.migrate(database, nowMillis: millis)
    }

    /// Opens (creating if needed) the embedded store at `path`.
    public convenience init(path: String, now: @escaping @Sendable () -> Date,
                            sleepUntil: @escaping @Sendable (Date) async -> Void = HubStore.systemSleep) async throws {
        try await self.init(database: SQLiteHubDatabase(path: path), now: now, sleepUntil: sleepUntil)
    }

    /// Opens the embedded store in a data directory (`<dataDirectory>/hub.sqlite`).
    public convenience init(dataDirectory: String, now: @escaping @Sendable () -> Date,
                            sleepUntil: @escaping @Sendable (Date) async -> Void = HubStore.systemSleep) async throws {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        try await self.init(path: dataDirectory + "/" + Self.fileName, now: now, sleepUntil: sleepUntil)
    }

    // MARK: People and devices

    /// Creates a person with their personal space (`personal:<id>`).
    ///
    /// - Throws: `invalid_name` (400) for an empty or over-long name, `weak_password` (400) for a
    ///   password under 8 characters, `name_taken` (409).
    public func createPerson(name: String, password: String) async throws(HubError) -> HubPerson {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= 100, !name.contains(where: { $0.isNewline }) else {
            throw HubError(.invalidInput, "invalid_name", "a person's name must be 1 to 100 characters on one line", field: "$.name")
        }
        try Self.checkStrength(password)
        // Hash outside the transaction: it takes tens of milliseconds and needs no lock.
        let hash = try PasswordHash.make(password)
        let id = UUID().uuidString.lowercased()
        let now = nowMillis
        return try await transaction { connection in
            // ON CONFLICT rather than a look first: two hub replicas may add the same name at once.
            let added = try await connection.execute("""
                INSERT INTO hub_people(id, name, password_hash, created_ms) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO NOTHING
                """, [.text(id), .text(name), .text(hash), .integer(now)])
            guard added == 1 else {
                throw HubError(.conflict, "name_taken", "a person named '\(name)' already exists", field: "$.name")
            }
            let space = SpaceID.personal(of: id)
            try await connection.execute("INSERT INTO hub_spaces(id, name, kind, created_ms) VALUES (?, ?, 'personal', ?)",
                                   [.text(space), .text(name), .integer(now)])
            try await connection.execute("INSERT INTO hub_members(space, person, role) VALUES (?, ?, 'owner')", [.text(space), .text(id)])
            return HubPerson(id: id, name: name)
        }
    }

    /// Checks a name (or a registered person's e-mail address) and password and registers a new
    /// device for that person; its token is in the answer, and only there.
    ///
    /// - Throws: `invalid_credentials` (401) for an unknown name or a wrong password alike.
    public func login(name: String, password: String, deviceName: String) async throws(HubError) -> DeviceLogin {
        let deviceName = try Self.deviceName(deviceName)
        let address = name.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let found = try await transaction { connection in
            try await connection.fetchOne("""
                SELECT id, password_hash, name, first_name, surname FROM hub_people WHERE name = ? OR email = ? ORDER BY name = ? DESC LIMIT 1
                """, [.text(name), .text(address), .text(name)])
                .map { Credentials(id: $0[0].text ?? "", hash: $0[1].text ?? "", name: $0[2].text ?? "",
                                   displayName: Self.displayName(first: $0[3].text, surname: $0[4].text)) }
        }
        // An unknown name costs a hash too, so the answer's time does not tell which names exist.
        let verified = PasswordHash.verify(password, against: found?.hash ?? Self.decoyHash)
        guard let found, verified else {
            throw HubError(.unauthorized, "invalid_credentials", "the name or the password is wrong")
        }
        return try await newDevice(for: HubPerson(id: found.id, name: found.name, displayName: found.displayName), named: deviceName)
    }

    /// Registers a new device of `person`; its token is in the answer, and only there.
    func newDevice(for person: HubPerson, named deviceName: String) async throws(HubError) -> DeviceLogin {
        let token = HubSecrets.deviceToken()
        let deviceID = UUID().uuidString.lowercased()
        let now = nowMillis
        try await transaction { connection in
            try await connection.execute("INSERT INTO hub_devices(id, person, name, token_sha256, created_ms) VALUES (?, ?, ?, ?, ?)",
                                   [.text(deviceID), .text(person.id), .text(deviceName), .blob(HubSecrets.sha256(token)), .integer(now)])
        }
        return DeviceLogin(person: person, deviceID: deviceID, token: token)
    }

    /// A device's name as given at login: 1 to 100 characters.
    static func deviceName(_ name: String) throws(HubError) -> String {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= 100 else {
            throw HubError(.invalidInput, "invalid_device_name", "a device name must be 1 to 100 characters", field: "$.device")
        }
        return name
    }

    /// The device a bearer token stands for, or `nil`; records the use.
    ///
    /// - Throws: `token_expired` (401) for a token unused for ``tokenIdleLimitMillis``.
    public func device(forToken token: String) async throws(HubError) -> HubDevice? {
        let now = nowMillis
        let found = try await transaction { connection in
            try await connection.fetchOne("SELECT id, person, name, COALESCE(last_used_ms, created_ms) FROM hub_devices WHERE token_sha256 = ?",
                                          [.blob(HubSecrets.sha256(token))])
                .map { DeviceUse(device: HubDevice(id: $0[0].text ?? "", person: $0[1].text ?? "", name: $0[2].text ?? ""), lastUsed: $0[3].integer ?? 0) }
        }
        guard let found else { return nil }
        guard now - found.lastUsed <= Self.tokenIdleLimitMillis else {
            throw HubError(.unauthorized, "token_expired", "this device's token was not used for \(Self.tokenIdleLimitMillis / 86_400_000) days and expired: log in again")
        }
        if now - found.lastUsed >= Self.tokenUseResolutionMillis {
            try await transaction { connection in
                try await connection.execute("UPDATE hub_devices SET last_used_ms = ? WHERE id = ?", [.integer(now), .text(found.device.id)])
            }
        }
        return found.device
    }

    private struct Credentials: Sendable { let id: String; let hash: String; let name: String; let displayName: String? }

    /// "Jana Nováková" from a registered person's names; nil for an account the operator made.
    static func displayName(first: String?, surname: String?) -> String? {
        let name = [first, surname].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        return name.isEmpty ? nil : name
    }
    private struct DeviceUse: Sendable { let device: HubDevice; let lastUsed: Int64 }

    /// A yescrypt hash of a random password nobody knows: what an unknown name is checked against.
    private static let decoyHash: String = (try? PasswordHash.make(HubSecrets.hex(HubSecrets.randomBytes(16)))) ?? "*"
}

/// How the hub names spaces internally.
enum SpaceID {
    /// What a device sends for its person's own space.
    static let personalAlias = "personal"

    /// The stored id of a person's personal space.
    static func personal(of person: String) -> String { "personal:" + person }

    /// The id a device uses for a stored space: `personal` for its own personal space.
    static func forDevice(_ stored: String, person: String) -> String {
        stored == personal(of: person) ? personalAlias : stored
    }

    /// Whether `id` has the form of a shared space's id: a UUID in lowercase canonical text (ids are
    /// compared as text, so one spelling per space).
    static func isSharedForm(_ id: String) -> Bool {
        id.utf8.count == 36 && id == id.lowercased() && UUID(uuidString: id) != nil
    }
}
