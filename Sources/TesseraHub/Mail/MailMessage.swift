import Foundation

/// A mail's text as DATA sends it (RFC 5322): headers, a blank line, the body in base64 when it
/// is not plain ASCII (so no 8BITMIME is needed), CRLF line ends, dot-stuffed.
struct MailMessage {
    let text: String

    init(from: String, mail: OutgoingMail, messageID: String, date: Date) {
        // The body's last line ends like the others, however it is encoded.
        let body = mail.body.hasSuffix("\n") ? mail.body : mail.body + "\n"
        let ascii = body.unicodeScalars.allSatisfy { $0.isASCII }
        var lines = [
            "From: " + from,
            "To: " + mail.to,
            "Subject: " + Self.encodedWord(mail.subject),
            "Date: " + Self.rfc5322(date),
            "Message-ID: <\(messageID)@tessera-hub>",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: " + (ascii ? "7bit" : "base64"),
            "",
        ]
        if ascii {
            lines += body.dropLast().split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map { $0.hasPrefix(".") ? "." + $0 : String($0) }
        } else {
            let encoded = Data(body.utf8).base64EncodedString()
            lines += stride(from: 0, to: encoded.count, by: 76).map { start in
                let from = encoded.index(encoded.startIndex, offsetBy: start)
                return String(encoded[from..<(encoded.index(from, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex)])
            }
        }
        text = lines.joined(separator: "\r\n") + "\r\n"
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
