import TesseraSDK

/// Deterministic SVG charts (spec §7.8): the same data give the same bytes (no time stamps, no
/// random ids), 640×360, with `<title>` and `<desc>` for screen readers; income green, expense red,
/// in a light or a dark theme (NF5; the spec's colours).
enum Charts {
    /// The colours of a theme. The dark one paints its own background, so the chart reads the
    /// same wherever it is placed.
    struct Theme: Sendable {
        var income: String, expense: String, text: String, axis: String, background: String?

        static let light = Theme(income: "#34C759", expense: "#FF3B30", text: "#1C1C1E", axis: "#888888", background: nil)
        static let dark = Theme(income: "#30D158", expense: "#FF453A", text: "#F2F2F7", axis: "#8E8E93", background: "#1C1C1E")

        static func named(_ name: String?) -> Theme { name == "dark" ? .dark : .light }
    }

    /// Expenses by category as horizontal bars, largest first, with amounts.
    static func categories(_ overview: Ledger.Overview, theme: Theme = .light) -> String {
        let shares = Array(overview.byCategory.prefix(10))
        let largest = max(shares.first?.amountMinor ?? 1, 1)
        var bars = ""
        for (i, share) in shares.enumerated() {
            let y = 50 + i * 30
            let width = Int(share.amountMinor * 360 / largest)  // leaves room for the amount after the bar
            bars += #"<text x="150" y="\#(y + 15)" text-anchor="end" font-size="13">\#(escape(share.category))</text>"#
            bars += #"<rect x="160" y="\#(y)" width="\#(max(width, 1))" height="20" fill="\#(theme.expense)"><title>\#(escape(share.category)): \#(share.amount) \#(overview.currency)</title></rect>"#
            bars += #"<text x="\#(168 + width)" y="\#(y + 15)" font-size="12">\#(share.amount) (\#(share.percent) %)</text>"#
        }
        if shares.isEmpty { bars = #"<text x="320" y="60" text-anchor="middle" font-size="14">No expenses</text>"# }
        return svg(title: "Expenses by category, \(overview.from) to \(overview.to)",
                   desc: "Total expenses \(overview.expense) \(overview.currency) in \(shares.count) categories.", body: bars,
                   height: max(120, 70 + shares.count * 30), theme: theme)
    }

    /// Income and expense per day (or month) as paired columns.
    static func series(_ overview: Ledger.Overview, theme: Theme = .light) -> String {
        let points = overview.series
        let largest = max(points.map { max($0.incomeMinor, $0.expenseMinor) }.max() ?? 1, 1)
        let slot = points.isEmpty ? 600 : max(600 / points.count, 2)
        var body = #"<line x1="20" y1="320" x2="620" y2="320" stroke="\#(theme.axis)"/>"#
        for (i, point) in points.enumerated() {
            let x = 20 + i * slot
            let half = max(slot / 2 - 1, 1)
            let ih = Int(point.incomeMinor * 260 / largest), eh = Int(point.expenseMinor * 260 / largest)
            body += #"<rect x="\#(x)" y="\#(320 - ih)" width="\#(half)" height="\#(ih)" fill="\#(theme.income)" data-label="\#(point.label)" data-income="\#(point.income)"/>"#
            body += #"<rect x="\#(x + half)" y="\#(320 - eh)" width="\#(half)" height="\#(eh)" fill="\#(theme.expense)" data-label="\#(point.label)" data-expense="\#(point.expense)"/>"#
        }
        body += #"<text x="20" y="345" font-size="13">Income \#(overview.income) · Expenses \#(overview.expense) \#(overview.currency)</text>"#
        return svg(title: "Income and expenses, \(overview.from) to \(overview.to)",
                   desc: "Income \(overview.income), expenses \(overview.expense), balance \(overview.balance) \(overview.currency).", body: body,
                   theme: theme)
    }

    /// Income and expense over time as two lines (spec §7.8 `monthlyOverview`): one point per day
    /// (per month for a year), each a `<circle>` with `data-date`, `data-income` and
    /// `data-expense` for a client's tap-and-drag readout, and the totals under the chart.
    static func line(_ overview: Ledger.Overview, theme: Theme = .light) -> String {
        let points = overview.series
        let largest = max(points.map { max($0.incomeMinor, $0.expenseMinor) }.max() ?? 1, 1)
        let step = points.count > 1 ? 560.0 / Double(points.count - 1) : 0
        func x(_ i: Int) -> String { format(points.count > 1 ? 50 + step * Double(i) : 330) }
        func y(_ minor: Int64) -> String { format(300 - Double(minor) * 260 / Double(largest)) }
        var body = #"<line x1="50" y1="300" x2="610" y2="300" stroke="\#(theme.axis)"/><line x1="50" y1="40" x2="50" y2="300" stroke="\#(theme.axis)"/>"#
        body += #"<text x="46" y="44" text-anchor="end" font-size="11">\#(Money.plain(largest))</text><text x="46" y="304" text-anchor="end" font-size="11">0</text>"#
        for (kind, colour) in [("income", theme.income), ("expense", theme.expense)] {
            let coordinates = points.enumerated().map { i, p in "\(x(i)),\(y(kind == "income" ? p.incomeMinor : p.expenseMinor))" }
            body += #"<polyline fill="none" stroke="\#(colour)" stroke-width="2" points="\#(coordinates.joined(separator: " "))" data-series="\#(kind)"/>"#
        }
        for (i, p) in points.enumerated() {
            body += #"<circle cx="\#(x(i))" cy="\#(y(p.expenseMinor))" r="3" fill="\#(theme.expense)" data-date="\#(p.label)" data-income="\#(p.income)" data-expense="\#(p.expense)"><title>\#(p.label): +\#(p.income) −\#(p.expense) \#(escape(overview.currency))</title></circle>"#
        }
        if let first = points.first, let last = points.last {
            body += #"<text x="50" y="318" font-size="11">\#(first.label)</text><text x="610" y="318" text-anchor="end" font-size="11">\#(last.label)</text>"#
        }
        body += #"<text x="50" y="345" font-size="13"><tspan fill="\#(theme.income)">Income \#(overview.income)</tspan> · <tspan fill="\#(theme.expense)">Expenses \#(overview.expense)</tspan> \#(escape(overview.currency))</text>"#
        return svg(title: "Income and expenses over time, \(overview.from) to \(overview.to)",
                   desc: "Two lines, income and expenses per \(overview.period == "year" ? "month" : "day"): income \(overview.income), expenses \(overview.expense), balance \(overview.balance) \(overview.currency).",
                   body: body, theme: theme)
    }

    /// A coordinate with at most one decimal, the same text on every machine.
    private static func format(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(abs(tenths % 10))"
    }

    /// 640 wide; the category bars are as tall as they need, the series 360.
    private static func svg(title: String, desc: String, body: String, height: Int = 360, theme: Theme) -> String {
        let background = theme.background.map { #"<rect width="640" height="\#(height)" fill="\#($0)"/>"# } ?? ""
        return #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 640 \#(height)" width="640" height="\#(height)" role="img" font-family="sans-serif" fill="\#(theme.text)"><title>\#(escape(title))</title><desc>\#(escape(desc))</desc>\#(background)\#(body)</svg>"#
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}
