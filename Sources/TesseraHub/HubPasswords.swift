import Foundation
import TesseraSDK

/// Changing a password: by the person (who knows the current one), or by the operator (who resets
/// a forgotten one). Either way the new password is hashed (yescrypt) before any transaction.
extension HubStore {
    /// `person` changes their password, proving the current one. With `signOutOtherDevices`
    /// every other device's token stops working (a password that leaked).
    ///
    /// - Throws: `invalid_credentials` (401) for a wrong current password, `weak_password` (400).
    public func changePassword(of person: String, current: String, new: String, keeping device: String,
                               signOutOtherDevices: Bool) async throws(HubError) {
        try Self.checkStrength(new, field: "$.new")
        let stored = try await transaction { connection in
            try await connection.fetchOne("SELECT password_hash FROM hub_people WHERE id = ?", [.text(person)])?[0].text
        }
        guard let stored, PasswordHash.verify(current, against: stored) else {
            throw HubError(.unauthorized, "invalid_credentials", "the current password is wrong", field: "$.current")
        }
        let hash = try PasswordHash.make(new)
        try await transaction { connection in
            try await connection.execute("UPDATE hub_people SET password_hash = ? WHERE id = ?", [.text(hash), .text(person)])
            if signOutOtherDevices {
                try await connection.execute("DELETE FROM hub_devices WHERE person = ? AND id <> ?", [.text(person), .text(device)])
            }
        }
    }

    /// The operator sets `name`'s password (a forgotten one) and signs out all their devices.
    /// Returns how many devices were signed out.
    ///
    /// - Throws: `person_not_found` (404), `weak_password` (400).
    public func resetPassword(ofName name: String, to new: String) async throws(HubError) -> Int {
        try Self.checkStrength(new)
        let hash = try PasswordHash.make(new)
        return try await transaction { connection in
            guard let person = try await connection.fetchOne("SELECT id FROM hub_people WHERE name = ?", [.text(name)])?[0].text else {
                throw HubError(.notFound, "person_not_found", "no person is named '\(name)'")
            }
            try await connection.execute("UPDATE hub_people SET password_hash = ? WHERE id = ?", [.text(hash), .text(person)])
            return try await connection.execute("DELETE FROM hub_devices WHERE person = ?", [.text(person)])
        }
    }

    /// The rule every new password meets.
    static func checkStrength(_ password: String, field: String = "$.password") throws(HubError) {
        guard password.count >= 8, password.utf8.count <= 1024 else {
            throw HubError(.invalidInput, "weak_password", "a password must be 8 to 1024 characters long", field: field)
        }
    }
}
