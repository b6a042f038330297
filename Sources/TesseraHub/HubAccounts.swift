import Foundation
import TesseraSDK

/// People with e-mail addresses (specs/baby-diary.md UC1, UC3, UC5, UC6): open self-registration,
/// login by address, and the password reset by a 7-digit code sent by mail, valid 10 minutes, a
/// few tries per code, every answer given no sooner than 5 s after the request on the hub's clock.
extension HubStore {
    /// How long a reset code lasts, how many wrong tries void it, and the least time any reset
    /// answer takes (brute force of a 7-digit code then takes years).
    public static let resetCodeMillis: Int64 = 10 * 60_000
    public static let maxResetAttempts = 5
    public static let resetAnswerSeconds: TimeInterval = 5

    /// What registration takes.
    public struct Registration: Sendable {
        public var firstName: String
        public var surname: String
        public var email: String
        public var password: String
        /// The terms of use were accepted; registration is refused without.
        public var acceptedTerms: Bool
        /// The name of the device that registers: it is logged in at once.
        public var device: String

        public init(firstName: String, surname: String, email: String, password: String, acceptedTerms: Bool, device: String) {
            self.firstName = firstName
            self.surname = surname
            self.email = email
            self.password = password
            self.acceptedTerms = acceptedTerms
            self.device = device
        }
    }

    /// Creates a person from a registration, with their personal space, and logs the device in.
    /// Their account name is their address; invitations addressed to it become theirs.
    ///
    /// - Throws: `invalid_name` (`$.firstName`, `$.surname`), `invalid_email`, `terms_not_accepted`
    ///   (`$.acceptTerms`), `weak_password`, `invalid_device_name` (400); `email_taken` (409).
    public func register(_ registration: Registration) async throws(HubError) -> DeviceLogin {
        let first = try Self.personalName(registration.firstName, field: "$.firstName")
        let surname = try Self.personalName(registration.surname, field: "$.surname")
        let email = try Self.normalizedEmail(registration.email)
        guard registration.acceptedTerms else {
            throw HubError(.invalidInput, "terms_not_accepted", "registration needs the terms of use accepted", field: "$.acceptTerms")
        }
        try Self.checkStrength(registration.password)
        let deviceName = try Self.deviceName(registration.device)
        let hash = try PasswordHash.make(registration.password)
        let id = UUID().uuidString.lowercased()
        let now = nowMillis
        try await transaction { connection in
            // ON CONFLICT without a target: the name and the address are both unique.
            let added = try await connection.execute("""
                INSERT INTO hub_people(id, name, password_hash, created_ms, email, first_name, surname) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT DO NOTHING
                """, [.text(id), .text(email), .text(hash), .integer(now), .text(email), .text(first), .text(surname)])
            guard added == 1 else {
                throw HubError(.conflict, "email_taken", "an account with the address \(email) exists: log in, or reset its password", field: "$.email")
            }
            try await connection.execute("INSERT INTO hub_spaces(id, name, kind, created_ms) VALUES (?, ?, 'personal', ?)",
                                         [.text(SpaceID.personal(of: id)), .text(email), .integer(now)])
            try await connection.execute("INSERT INTO hub_members(space, person, role) VALUES (?, ?, 'owner')",
                                         [.text(SpaceID.personal(of: id)), .text(id)])
            try await connection.execute("UPDATE hub_invitations SET invitee = ? WHERE invitee_email = ? AND invitee IS NULL AND accepted_by IS NULL",
                                         [.text(id), .text(email)])
        }
        return try await newDevice(for: HubPerson(id: id, name: email, displayName: "\(first) \(surname)"), named: deviceName)
    }

    /// Starts a password reset for the account with `email`: a new 7-digit code, valid 10 minutes,
    /// is mailed to it (replacing an earlier one). The answer is the same, and comes no sooner than
    /// 5 s, whether or not the address has an account.
    public func requestPasswordReset(email: String) async throws(HubError) {
        let deadline = now().addingTimeInterval(Self.resetAnswerSeconds)
        let outcome: Result<Void, HubError>
        do {
            let address = try Self.normalizedEmail(email)
            let code = HubSecrets.resetCode()
            let now = nowMillis
            let queued = try await transaction { connection -> Bool in
                guard let person = try await connection.fetchOne("SELECT id FROM hub_people WHERE email = ?", [.text(address)])?[0].text else {
                    return false
                }
                try await connection.execute("""
                    INSERT INTO hub_password_resets(person, code_sha256, expires_ms, attempts) VALUES (?, ?, ?, 0)
                    ON CONFLICT (person) DO UPDATE SET code_sha256 = excluded.code_sha256, expires_ms = excluded.expires_ms, attempts = 0
                    """, [.text(person), .blob(HubSecrets.sha256(code)), .integer(now + Self.resetCodeMillis)])
                try await HubMailOutbox.queueMail(OutgoingMail(to: address, subject: "Your password reset code", body: """
                    Your code to set a new password: \(code)

                    Type it in the app within 10 minutes. If you did not ask for it, ignore this mail: your password stays as it is.
                    """), now: now, on: connection)
                return true
            }
            if queued { mail.mailQueued() }
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        await sleepUntil(deadline)
        try outcome.get()
    }

    /// Sets a new password with a reset code: the code must be the last one mailed to `email`,
    /// not expired, and tried fewer than ``maxResetAttempts`` times. It is used up, and every
    /// device of the person is signed out. Answered no sooner than 5 s, whatever the outcome.
    ///
    /// - Throws: `invalid_code` (400, `$.code`) for a wrong, used-up or expired code and an
    ///   address without an account alike; `weak_password` (400, `$.password`).
    public func confirmPasswordReset(email: String, code: String, newPassword: String) async throws(HubError) {
        let deadline = now().addingTimeInterval(Self.resetAnswerSeconds)
        let outcome: Result<Void, HubError>
        do {
            try Self.checkStrength(newPassword)
            let hash = try PasswordHash.make(newPassword)
            let address = try Self.normalizedEmail(email)
            let given = code.filter { !$0.isWhitespace }
            let now = nowMillis
            let verdict = try await transaction { connection -> ResetVerdict in
                guard let row = try await connection.fetchOne("""
                    SELECT r.person, r.code_sha256, r.expires_ms, r.attempts FROM hub_password_resets r JOIN hub_people p ON p.id = r.person
                    WHERE p.email = ?
                    """, [.text(address)]), let person = row[0].text else { return .refused }
                guard now <= row[2].integer ?? 0, (row[3].integer ?? 0) < Int64(Self.maxResetAttempts) else { return .refused }
                guard given.count == 7, HubSecrets.sha256(given) == row[1].blob ?? [] else {
                    // A wrong try counts: the code is void after the last one.
                    try await connection.execute("UPDATE hub_password_resets SET attempts = attempts + 1 WHERE person = ?", [.text(person)])
                    return .refused
                }
                try await connection.execute("UPDATE hub_people SET password_hash = ? WHERE id = ?", [.text(hash), .text(person)])
                try await connection.execute("DELETE FROM hub_password_resets WHERE person = ?", [.text(person)])
                try await connection.execute("DELETE FROM hub_devices WHERE person = ?", [.text(person)])
                return .done
            }
            outcome = verdict == .done ? .success(()) : .failure(HubError(
                .invalidInput, "invalid_code",
                "the code is wrong, used up or expired (a code lasts 10 minutes and allows \(Self.maxResetAttempts) tries): ask for a new one",
                field: "$.code"))
        } catch {
            outcome = .failure(error)
        }
        await sleepUntil(deadline)
        try outcome.get()
    }

    private enum ResetVerdict: Sendable { case done, refused }

    // MARK: Checks

    /// An address as stored and compared: trimmed, lowercase, one `@`, a dot in the domain.
    static func normalizedEmail(_ email: String) throws(HubError) -> String {
        let address = email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard address.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
              !address.contains(where: { $0.isWhitespace || $0 == "<" || $0 == ">" || $0 == "," || $0 == ";" }) else {
            throw HubError(.invalidInput, "invalid_email", "'\(email.prefix(100))' is not an e-mail address (name@domain.tld)", field: "$.email")
        }
        return address
    }

    static func personalName(_ name: String, field: String) throws(HubError) -> String {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= 100, !name.contains(where: { $0.isNewline }) else {
            throw HubError(.invalidInput, "invalid_name", "a name must be 1 to 100 characters on one line", field: field)
        }
        return name
    }
}

/// Invitations by e-mail address.
extension HubStore {
    /// Whom an invitation is addressed to: a person (by account name, or by the address they
    /// registered) and the address its code is mailed to, if there is one. A name that is an
    /// address nobody registered is an invitation by address.
    static func resolveInvitee(name: String?, email: String?, in space: String,
                               on connection: any HubSQL) async throws -> (person: HubPerson?, address: String?) {
        if let email {
            let address = try normalizedEmail(email)
            guard let row = try await connection.fetchOne("SELECT name FROM hub_people WHERE email = ?", [.text(address)]) else { return (nil, address) }
            return (try await invitee(named: row[0].text ?? "", in: space, on: connection), address)
        }
        guard let name else { return (nil, nil) }
        if let row = try await connection.fetchOne("SELECT email FROM hub_people WHERE name = ?", [.text(name)]) {
            return (try await invitee(named: name, in: space, on: connection), row[0].text)
        }
        guard name.contains("@"), let address = try? normalizedEmail(name) else {
            return (try await invitee(named: name, in: space, on: connection), nil)  // person_not_found
        }
        return try await resolveInvitee(name: nil, email: address, in: space, on: connection)
    }

    /// The mail that carries an invitation's code to its address.
    static func queueInvitationMail(to address: String, code: String, space: String, by inviter: String, expires: Int64, now: Int64,
                                    on connection: any HubSQL) async throws {
        let spaceName = try await connection.fetchOne("SELECT name FROM hub_spaces WHERE id = ?", [.text(space)])?[0].text ?? space
        let row = try await connection.fetchOne("SELECT name, first_name, surname FROM hub_people WHERE id = ?", [.text(inviter)])
        let inviterName = [row?[1].text, row?[2].text].compactMap { $0 }.joined(separator: " ")
        let who = inviterName.isEmpty ? (row?[0].text ?? "Someone") : inviterName
        try await HubMailOutbox.queueMail(OutgoingMail(to: address, subject: "\(who) invites you to share \"\(spaceName)\"", body: """
            \(who) invites you to share "\(spaceName)".

            Your invitation code: \(code)

            Open the app, sign in or register with this address, and accept the invitation (or type the code). It is valid until \(iso(expires)).
            """), now: now, on: connection)
    }
}
