import TesseraSDK

/// Deterministic SVG charts (spec §7.8): the same data give the same bytes (no time stamps, no
/// random ids), 640×360, with `<title>` and `<desc>` for screen readers; income green, expense red.
enum Charts {
    static let income = "#34C759", expense = "#FF3B30"

    /// Expenses by category as horizontal bars, largest first, with amounts.
    static func categories(_ overview: Ledger.Overview) -> String {
        let shares = Array(overview.byCategory.prefix(10))
        let largest = max(shares.first?.amountMinor ?? 1, 1)
        var bars = ""
        for (i, share) in shares.enumerated() {
            let y = 50 + i * 30
            let width = Int(share.amountMinor * 360 / largest)  // leaves room for the amount after the bar
            bars += #"<text x="150" y="\#(y + 15)" text-anchor="end" font-size="13">\#(escape(share.category))</text>"#
            bars += #"<rect x="160" y="\#(y)" width="\#(max(width, 1))" height="20" fill="\#(expense)"><title>\#(escape(share.category)): \#(share.amount) \#(overview.currency)</title></rect>"#
            bars += #"<text x="\#(168 + width)" y="\#(y + 15)" font-size="12">\#(share.amount) (\#(share.percent) %)</text>"#
        }
        if shares.isEmpty { bars = #"<text x="320" y="60" text-anchor="middle" font-size="14">No expenses</text>"# }
        return svg(title: "Expenses by category, \(overview.from) to \(overview.to)",
                   desc: "Total expenses \(overview.expense) \(overview.currency) in \(shares.count) categories.", body: bars,
                   height: max(120, 70 + shares.count * 30))
    }

    /// Income and expense per day (or month) as paired columns.
    static func series(_ overview: Ledger.Overview) -> String {
        let points = overview.series
        let largest = max(points.map { max($0.incomeMinor, $0.expenseMinor) }.max() ?? 1, 1)
        let slot = points.isEmpty ? 600 : max(600 / points.count, 2)
        var body = ##"<line x1="20" y1="320" x2="620" y2="320" stroke="#888"/>"##
        for (i, point) in points.enumerated() {
            let x = 20 + i * slot
            let half = max(slot / 2 - 1, 1)
            let ih = Int(point.incomeMinor * 260 / largest), eh = Int(point.expenseMinor * 260 / largest)
            body += #"<rect x="\#(x)" y="\#(320 - ih)" width="\#(half)" height="\#(ih)" fill="\#(income)" data-label="\#(point.label)" data-income="\#(point.income)"/>"#
            body += #"<rect x="\#(x + half)" y="\#(320 - eh)" width="\#(half)" height="\#(eh)" fill="\#(expense)" data-label="\#(point.label)" data-expense="\#(point.expense)"/>"#
        }
        body += #"<text x="20" y="345" font-size="13">Income \#(overview.income) · Expenses \#(overview.expense) \#(overview.currency)</text>"#
        return svg(title: "Income and expenses, \(overview.from) to \(overview.to)",
                   desc: "Income \(overview.income), expenses \(overview.expense), balance \(overview.balance) \(overview.currency).", body: body)
    }

    /// 640 wide; the category bars are as tall as they need, the series 360.
    private static func svg(title: String, desc: String, body: String, height: Int = 360) -> String {
        #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 640 \#(height)" width="640" height="\#(height)" role="img" font-family="sans-serif"><title>\#(escape(title))</title><desc>\#(escape(desc))</desc>\#(body)</svg>"#
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
