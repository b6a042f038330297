import Foundation
import TesseraSDK

/// UC32's e-mail: an export sent as an attachment to the address the person gives, through the
/// hub's mail for the person logged in on this device (`PluginSync.sendMail`, SDK 1.6). The hub
/// queues it in its durable outbox and answers at once; it checks its own limits (one address,
/// 10 MiB, 20 messages a day per person) and refuses each by name, which passes on as it is.
/// The subject and text are in the export's language (`ExportWords`); the attachment's name stays
/// ASCII, as the hub takes it.
extension Diary {
    /// An export's bytes as a file to attach.
    struct ExportFile {
        let bytes: [UInt8]
        let mediaType: String
        let fileExtension: String
    }

    /// The address to mail the export to: `nil` when none (or an empty one) is given; otherwise
    /// one address as the hub takes it — no blanks, control characters or `<>,;`, one `@`, a
    /// domain with a dot that neither starts nor ends it — in lowercase.
    static func exportRecipient(_ email: String?) throws -> String? {
        guard let email, !email.isEmpty else { return nil }
        // The manifest's pattern states the same: \s and U+0085, U+0000–U+001F, U+007F–U+009F, <>,;
        let banned = { (scalar: Unicode.Scalar) in
            scalar.properties.isWhitespace || scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || "<>,;".unicodeScalars.contains(scalar)
        }
        // Code points, as the pattern sees them (a combining mark after '.' or '@' leaves it one).
        let parts = email.unicodeScalars.split(separator: "@", omittingEmptySubsequences: false)
        guard email.unicodeScalars.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
              parts[1].first != ".", parts[1].last != ".", !email.unicodeScalars.contains(where: banned) else {
            throw BabyError.invalid("email", "'\(email.prefix(100))' is not one e-mail address (name@domain.tld)", reason: "invalid_recipient")
        }
        return email.lowercased()
    }

    /// Mailing needs the hub: the `sync` grant (403 `not_granted` without it, as sharing; the hub
    /// itself says whether it sends mail: `unavailable`).
    func requireMail() throws {
        guard sync != nil else {
            throw PluginError(.notGranted, "e-mailing an export needs the sync grant and a hub", reason: "mail_unavailable")
        }
    }

    /// Sends `file` to `recipient`, its subject and text in `words`' language; what the answer
    /// says of it (`to`, `id`, `status` `queued`, …).
    func mailExport(_ file: ExportFile, to recipient: String, childID: String, sections: [String], words: ExportWords) async throws -> JSONValue {
        guard let sync else { throw PluginError(.notGranted, "e-mailing an export needs the sync grant and a hub", reason: "mail_unavailable") }
        let profile = try await childProfile(childID)
        let name = profile["name"]?.stringValue ?? ""
        let fileName = Self.mailFileName(childName: name, extension: file.fileExtension)
        let (subject, text) = Self.exportMail(words: words, childName: name, birthDate: profile["birthDate"]?.stringValue ?? "",
                                              exportedAt: dates.moment(of: clock.now()), sections: sections,
                                              fileExtension: file.fileExtension, fileName: fileName)
        let receipt = try await sync.sendMail(HubMailMessage(
            to: recipient, subject: subject, text: text,
            attachment: HubMailAttachment(fileName: fileName, mediaType: file.mediaType, bytes: file.bytes)))
        return ["to": .string(receipt.to), "id": .string(receipt.id), "status": "queued", "fileName": .string(fileName),
                "mediaType": .string(file.mediaType), "size": .integer(Int64(file.bytes.count)),
                "remainingToday": .integer(Int64(receipt.remainingToday))]
    }

    /// The export e-mail's subject (at most 200 characters, as the hub takes it) and text in `words`'
    /// language: the child's name and birth date, when it was exported (`exportedAt`, a local
    /// `YYYY-MM-DDTHH:MM`), the sections, and the attachment.
    static func exportMail(words: ExportWords, childName: String, birthDate: String, exportedAt: String, sections: [String],
                           fileExtension: String, fileName: String) -> (subject: String, text: String) {
        let subject = String(words.mailSubject(childName: childName).prefix(200))
        let text = words.mailText(childName: childName, birthDate: birthDate, exportedAt: exportedAt, sections: sections,
                                  fileType: fileExtension.uppercased(), fileName: fileName)
        return (subject, text)
    }

    /// The attachment's name in the ASCII letters, digits and dashes the hub takes: "Šimon Novák"
    /// → `Simon-Novak-diary.pdf`.
    static func mailFileName(childName: String, extension fileExtension: String) -> String {
        let folded = childName.folding(options: .diacriticInsensitive, locale: Locale(identifier: "en_US_POSIX"))
        let words = folded.split(whereSeparator: { !($0.isASCII && ($0.isLetter || $0.isNumber)) })
        let stem = words.joined(separator: "-").prefix(80)
        return (stem.isEmpty ? "baby" : String(stem)) + "-diary." + fileExtension
    }
}
