import TesseraSDK

/// Money as integer minor units (cents, haléře): never a floating-point number where money is
/// stored or summed.
///
/// Amounts come in as decimal strings, `"12.50"` or `"12,50"`, with at most two decimals: a third
/// decimal is refused rather than rounded half-up as the spec's §7.2 proposes. `"1.234"` is one
/// thousand two hundred and thirty-four to a Czech or Slovak reader who groups with a dot, and
/// 1.23 after rounding: refusing with "at most two decimals" lets the person say which they meant,
/// where rounding would silently store a thousandth of it (docs/finance.md, "Money"). At most
/// 999,999,999.99.
enum Money {
    /// The largest amount accepted, in minor units.
    static let maximum: Int64 = 99_999_999_999

    /// The minor units of `text`, or an `invalid_input` error naming `field`.
    static func parse(_ text: String, field: String) throws -> Int64 {
        let trimmed = text.filter { $0 != " " && $0 != "\u{00A0}" }
        func fail(_ why: String) -> PluginError {
            PluginError(.invalidInput, "amount '\(text)': \(why)", field: field, reason: "invalid_amount")
        }
        if trimmed.hasPrefix("-") { throw fail("must be more than zero (the kind, income or expense, gives the direction)") }
        if trimmed.filter({ $0 == "." || $0 == "," }).count > 1 {
            throw fail("not a number: it has two decimal separators; write 1234.50 without grouping dots or commas")
        }
        var whole: Int64 = 0, cents: Int64 = 0, decimals = 0, seenSeparator = false, digits = 0
        for character in trimmed {
            if character == "." || character == "," {
                seenSeparator = true
                continue
            }
            guard let digit = character.wholeNumberValue, character.isASCII else { throw fail("not a number; write it like 12.50 or 12,50") }
            if seenSeparator {
                decimals += 1
                guard decimals <= 2 else { throw fail("at most two decimals (a dot or a comma separates the decimals; thousands are not grouped with them)") }
                cents = cents * 10 + Int64(digit)
            } else {
                digits += 1
                guard digits <= 9 else { throw fail("at most 999,999,999.99") }
                whole = whole * 10 + Int64(digit)
            }
        }
        guard digits > 0 || decimals > 0 else { throw fail("empty; write an amount like 12.50") }
        if decimals == 1 { cents *= 10 }
        let minor = whole * 100 + cents
        guard minor > 0 else { throw fail("must be more than zero") }
        return minor
    }

    /// An amount for a notification's message, in major units (the reader's console formats the
    /// number; the currency goes beside it as text).
    static func value(_ minor: Int64) -> NotificationValue { .number(Double(minor) / 100) }

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

    /// Whole percents of each part in their sum that add up to exactly 100 (largest remainder,
    /// Hamilton's method): each part gets its floor, and the points still missing go to the parts
    /// with the largest remainders, ties to the earlier part. All zeros when the sum is 0.
    static func percentShares(_ parts: [Int64]) -> [Int64] {
        largestRemainder(parts, total: 100)
    }

    /// Each part's share of their sum in hundredths of a percent, adding up to exactly 10 000 (so
    /// the two-decimal percents a chart shows add up to 100.00: 55.56 / 33.33 / 11.11), by the
    /// same largest-remainder rule as ``percentShares(_:)``; as text with two decimals.
    static func percentSharesTwoDecimals(_ parts: [Int64]) -> [String] {
        largestRemainder(parts, total: 10_000).map { "\($0 / 100).\($0 % 100 < 10 ? "0" : "")\($0 % 100)" }
    }

    /// `parts` scaled to add up to `total`: each floored, and the units still missing given to the
    /// parts with the largest remainders (the earlier part first on a tie). All zeros for a zero sum.
    private static func largestRemainder(_ parts: [Int64], total scale: Int64) -> [Int64] {
        let total = parts.reduce(0, +)
        guard total > 0 else { return parts.map { _ in 0 } }
        var shares = parts.map { $0 * scale / total }
        let remainders = parts.map { $0 * scale % total }
        let missing = scale - shares.reduce(0, +)
        let order = remainders.indices.sorted { remainders[$0] != remainders[$1] ? remainders[$0] > remainders[$1] : $0 < $1 }
        for index in order.prefix(Int(missing)) { shares[index] += 1 }
        return shares
    }

    /// `part` in `whole` as a percent with two decimals, rounded half-up, capped at 100 (spec
    /// §7.2: the display caps progress; the raw floor percent is returned beside it): `"33.50"`.
    static func progress(_ part: Int64, of whole: Int64) -> String {
        guard whole > 0 else { return "0.00" }
        let hundredths = min((part * 10_000 * 2 + whole) / (2 * whole), 10_000)
        return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
    }

    /// Currencies with two decimal places that v1 supports (ISO 4217 codes).
    static let currencies: Set<String> = ["EUR", "CZK", "USD", "GBP", "PLN", "CHF", "HUF"]
}
