import TesseraSDK

/// How the hub signs each POST to a webhook channel (docs/hub.md, "The signature"):
///
///     Tessera-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>
///
/// The key is the channel's secret as shown (`whsec_…`, its UTF-8 bytes); the message is the
/// decimal time, a dot, and the body's exact bytes. The time is in it so that a receiver can
/// refuse an old request replayed (say, older than 5 minutes by its own clock).
public enum WebhookSignature {
    /// The header's name.
    public static let headerName = "Tessera-Signature"

    /// The header's value for `body` sent at `seconds` since 1970 with `secret`.
    public static func header(body: [UInt8], secret: String, at seconds: Int64) -> String {
        let message = Array("\(seconds).".utf8) + body
        return "t=\(seconds),v1=" + SHA256.hex(hmacSHA256(key: Array(secret.utf8), message: message))
    }

    /// HMAC-SHA256 (RFC 2104) of `message` under `key` (the SDK's).
    public static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        SHA256.authenticationCode(for: message, key: key)
    }
}
