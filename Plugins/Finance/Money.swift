import TesseraSDK

/// Money as integer minor units (cents, haléře): never a floating-point number where money is
/// stored or summed.
///
/// Amounts come in as decimal strings, `"12.50"` or `"12,50"`, with at most two decimals: a third
/// decimal is refused rather than rounded (`"12.345"` is a typo more often than a price, and
/// rounding it silently would change what the person typed). At most 999,999,999.99.
enum Money {
    /// The largest amount accepted, in minor units.
    static let maximum: Int64 = 99_999_999_999

    /// The minor units of `text`, or an `invalid_input` error naming `field`.
    static func parse(_ text: String, field: String) throws -> Int64 {
        let trimmed = text.filter { $0 != " " && $0 != "\u{00A0}" }
        func fail(_ why: String) -> PluginError {
            PluginError(.invalidInput, "amount '\(text)' \(why) (code invalid_amount)", field: field)
        }
        var whole: Int64 = 0, cents: Int64 = 0, decimals = 0, seenSeparator = false, digits = 0
        for character in trimmed {
            if character == "." || character == "," {
                guard !seenSeparator else { throw fail("has two decimal separators") }
                seenSeparator = true
                continue
            }
            guard let digit = character.wholeNumberValue, character.isASCII else { throw fail("is not a number such as 12.50") }
            if seenSeparator {
                decimals += 1
                guard decimals <= 2 else { throw fail("has more than two decimals") }
                cents = cents * 10 + Int64(digit)
            } else {
                digits += 1
                guard digits <= 9 else { throw fail("is more than 999,999,999.99") }
                whole = whole * 10 + Int64(digit)
            }
        }
        guard digits > 0 || decimals > 0 else { throw fail("is empty") }
        if decimals == 1 { cents *= 10 }
        let minor = whole * 100 + cents
        guard minor > 0 else { throw fail("must be more than zero") }
        return minor
    }

    /// `"1234.50"`: minor units as a plain decimal string (the API's and CSV's form).
    static func plain(_ minor: Int64) -> String {
        let sign = minor < 0 ? "-" : ""
        let absolute = minor.magnitude
        let cents = absolute % 100
        return "\(sign)\(absolute / 100).\(cents < 10 ? "0" : "")\(cents)"
    }

    /// For people, in a language: `1 234,50 EUR` (sk, cs) or `1,234.50 EUR` (en).
    static func format(_ minor: Int64, currency: String, language: String) -> String {
        let plainText = plain(abs(minor))
        let parts = plainText.split(separator: ".")
        let grouped = group(String(parts[0]), separator: language == "en" ? "," : "\u{00A0}")
        let decimal = language == "en" ? "." : ","
        return "\(minor < 0 ? "-" : "")\(grouped)\(decimal)\(parts[1]) \(currency)"
    }

    private static func group(_ digits: String, separator: String) -> String {
        var out = ""
        for (i, digit) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out += separator }
            out.append(digit)
        }
        return out
    }

    /// Whole percent of `part` in `whole`, rounded down, in integers; `nil` when `whole` is 0.
    static func percentFloor(_ part: Int64, of whole: Int64) -> Int64? {
        whole > 0 ? part * 100 / whole : nil
    }

    /// Currencies with two decimal places that v1 supports (ISO 4217 codes).
    static let currencies: Set<String> = ["EUR", "CZK", "USD", "GBP", "PLN", "CHF", "HUF"]
}
