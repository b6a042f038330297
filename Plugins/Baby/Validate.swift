import Foundation
import TesseraSDK

/// Checks of free text shared by every area.
enum Validate {
    /// A name: trimmed, not empty, at most 200 characters.
    static func name(_ text: String, field: String) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw BabyError.invalid(field, "must not be empty") }
        // Issue 41: a name is one line of text; a NUL or a line break in it is a slip or an attack.
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw BabyError.invalid(field, "must not contain control characters such as NUL or a line break")
        }
        guard trimmed.count <= 200 else { throw BabyError.invalid(field, "is longer than 200 characters") }
        return trimmed
    }

    /// A note: trimmed, at most 10,000 characters; empty is allowed.
    static func note(_ text: String?, field: String = "note") throws -> String {
        let trimmed = (text ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count <= 10_000 else { throw BabyError.invalid(field, "is longer than 10000 characters") }
        return trimmed
    }

    /// One of `options`.
    static func oneOf(_ text: String, _ options: [String], field: String) throws -> String {
        guard options.contains(text) else { throw BabyError.invalid(field, "'\(text)' is not one of \(options.joined(separator: ", "))") }
        return text
    }
}
