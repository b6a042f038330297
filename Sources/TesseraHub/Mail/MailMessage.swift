import Foundation

/// A mail's text as DATA sends it (RFC 5322): headers, a blank line, the body in base64 when it
/// is not plain ASCII in lines SMTP takes (so no 8BITMIME is needed), CRLF line ends,
/// dot-stuffed. With an attachment it is `multipart/mixed` (RFC 2046): the text part, then the
/// file as base64 with `Content-Disposition: attachment; filename=…` (RFC 2045, RFC 2183).
struct MailMessage {
    let text: String

    init(from: String, mail: OutgoingMail, messageID: String, date: Date) {
        var lines = [
            "From: " + from,
            "To: " + mail.to,
        ]
        if let replyTo = mail.replyTo { lines.append("Reply-To: " + replyTo) }
        lines += [
            "Subject: " + Self.encodedWord(mail.subject),
            "Date: " + Self.rfc5322(date),
            "Message-ID: <\(messageID)@tessera-hub>",
            "MIME-Version: 1.0",
        ]
        if let attachment = mail.attachment {
            // A boundary no base64 line and no line of the text can hold ("=_" never occurs in base64).
            var boundary = "=_tessera_" + messageID.filter { $0.isLetter || $0.isNumber }
            while mail.body.contains(boundary) { boundary += "_" }
            lines += ["Content-Type: multipart/mixed; boundary=\"\(boundary)\"", "", "This is a message in MIME format.", "--" + boundary]
            lines += Self.textPart(mail.body)
            lines += [
                "--" + boundary,
                "Content-Type: \(attachment.mediaType); name=\"\(attachment.fileName)\"",
                "Content-Disposition: attachment; filename=\"\(attachment.fileName)\"; size=\(attachment.bytes.count)",
                "Content-Transfer-Encoding: base64",
                "",
            ]
            lines += Self.base64Lines(attachment.bytes)
            lines.append("--" + boundary + "--")
        } else {
            lines += Self.textPart(mail.body)
        }
        text = lines.joined(separator: "\r\n") + "\r\n"
    }

    /// The text's own headers, a blank line and its lines: 7bit when ASCII in lines of at most
    /// 998 characters (RFC 5322's limit), else base64.
    static func textPart(_ text: String) -> [String] {
        // The body's last line ends like the others, however it is encoded.
        let body = text.hasSuffix("\n") ? text : text + "\n"
        let lines = body.dropLast().split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        let plain = body.unicodeScalars.allSatisfy { $0.isASCII } && lines.allSatisfy { $0.utf8.count <= 998 }
        var part = ["Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: " + (plain ? "7bit" : "base64"), ""]
        if plain {
            part += lines.map { $0.hasPrefix(".") ? "." + $0 : String($0) }
        } else {
            part += base64Lines(Data(body.utf8))
        }
        return part
    }

    /// `bytes` in base64, 76 characters a line (RFC 2045 §6.8).
    static func base64Lines(_ bytes: Data) -> [String] {
        let encoded = Array(bytes.base64EncodedString().utf8)
        return stride(from: 0, to: encoded.count, by: 76).map { start in
            String(decoding: encoded[start..<min(start + 76, encoded.count)], as: UTF8.self)
        }
    }

    /// A header value as is when ASCII, else as one RFC 2047 encoded word (UTF-8, base64).
    static func encodedWord(_ value: String) -> String {
        value.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 0x20 }) ? value
            : "=?utf-8?B?" + Data(value.utf8).base64EncodedString() + "?="
    }

    static func rfc5322(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}
