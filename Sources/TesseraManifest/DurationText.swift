/// Durations written the way people write them: `30s`, `15m`, `2h30m`, `6d`, `1w`.
public enum DurationText {
    /// The number of seconds in `text`, or `nil` if it is not a duration. Units: w, d, h, m, s.
    public static func seconds(_ text: String) -> Int64? {
        var total: Int64 = 0
        var number: Int64?
        guard !text.isEmpty else { return nil }
        for ch in text {
            if let digit = ch.wholeNumberValue, ch.isASCII {
                let (times10, o1) = (number ?? 0).multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(Int64(digit))
                if o1 || o2 { return nil }
                number = sum
                continue
            }
            guard let n = number, let unit = unitSeconds[ch] else { return nil }
            let (part, o1) = n.multipliedReportingOverflow(by: unit)
            let (sum, o2) = total.addingReportingOverflow(part)
            if o1 || o2 { return nil }
            total = sum
            number = nil
        }
        return number == nil ? total : nil
    }

    /// Writes a number of seconds back as text, largest units first (`93784` -> `1d2h3m4s`).
    public static func format(seconds: Int64) -> String {
        if seconds == 0 { return "0s" }
        var rest = seconds
        var out = seconds < 0 ? "-" : ""
        rest = abs(rest)
        for (unit, size) in [("w", Int64(604_800)), ("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)] where rest >= size {
            out += "\(rest / size)\(unit)"
            rest %= size
        }
        return out
    }

    private static let unitSeconds: [Character: Int64] = ["w": 604_800, "d": 86_400, "h": 3_600, "m": 60, "s": 1]
}
