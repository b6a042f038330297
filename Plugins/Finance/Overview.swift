import Foundation
import TesseraSDK

/// Overviews by period (spec §7.4 `stats.period`: a day, a week from Monday to Sunday, a month, a
/// year, or any range of days): totals, expenses by category with whole percents that add up to
/// 100 (largest remainder), and a series over time (days of a day, week, month or range, months
/// of a year), as JSON.
extension Ledger {
    struct OverviewInput: Decodable, Sendable {
        var period: String
        var month: String?
        var year: Int?
        var date: String?
        var from: String?
        var to: String?
    }

    struct Overview: Codable, Sendable, Equatable {
        /// A category's expenses: `percent` whole (adding up to 100), `share` to two decimals
        /// (adding up to 100.00), both by the largest remainder.
        struct Share: Codable, Sendable, Equatable { var category: String; var amount: String; var amountMinor: Int64; var percent: Int64; var share: String }
        struct Point: Codable, Sendable, Equatable { var label: String; var income: String; var expense: String; var incomeMinor: Int64; var expenseMinor: Int64 }
        var period: String
        var from: String
        var to: String
        var currency: String
        var income: String
        var expense: String
        var balance: String
        var byCategory: [Share]
        var series: [Point]
    }

    func overview(_ input: OverviewInput) async throws -> Overview {
        let dates = try await dates()
        let (from, to, byMonth) = try range(input, dates: dates)
        let rows = try await storage.query("""
            SELECT occurred_on, kind, amount_minor FROM transactions WHERE occurred_on BETWEEN ? AND ?
            """, [.text(from), .text(to)])
        var income: Int64 = 0, expense: Int64 = 0
        // By category, a split transaction counts by its parts.
        let categories = try await expensesByCategory(first: from, last: to, byMonth: false)[""] ?? [:]
        var buckets: [String: (Int64, Int64)] = [:]
        for row in rows {
            let amount = row["amount_minor"].integer ?? 0, day = row["occurred_on"].text ?? ""
            let bucket = byMonth ? String(day.prefix(7)) : day
            if row["kind"].text == "income" {
                income += amount
                buckets[bucket, default: (0, 0)].0 += amount
            } else {
                expense += amount
                buckets[bucket, default: (0, 0)].1 += amount
            }
        }
        let ordered = categories.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        let percents = Money.percentShares(ordered.map(\.value)), twoDecimals = Money.percentSharesTwoDecimals(ordered.map(\.value))
        let shares = zip(ordered, zip(percents, twoDecimals)).map { entry, percent in
            Overview.Share(category: entry.key, amount: Money.plain(entry.value), amountMinor: entry.value, percent: percent.0, share: percent.1)
        }
        let series = labels(from: from, to: to, byMonth: byMonth).map { label in
            let (i, e) = buckets[label] ?? (0, 0)
            return Overview.Point(label: label, income: Money.plain(i), expense: Money.plain(e), incomeMinor: i, expenseMinor: e)
        }
        return Overview(period: input.period, from: from, to: to, currency: try await settings().currency, income: Money.plain(income),
                        expense: Money.plain(expense), balance: Money.plain(income - expense), byCategory: shares, series: series)
    }

    /// The first and last day of the period, and whether the series counts months.
    private func range(_ input: OverviewInput, dates: LocalDates) throws -> (String, String, Bool) {
        switch input.period {
        case "month":
            let month = input.month ?? dates.month(clock.now())
            guard let (first, last) = dates.bounds(ofMonth: month) else { throw PluginError(.invalidInput, "'\(month)' is not a month YYYY-MM", field: "$.month") }
            return (first, last, false)
        case "day", "week":
            let day = input.date ?? dates.day(clock.now())
            guard LocalDates.isDay(day), let week = LocalDates.week(containing: day) else {
                throw PluginError(.invalidInput, "'\(day)' is not a date YYYY-MM-DD", field: "$.date")
            }
            return input.period == "day" ? (day, day, false) : (week.first, week.last, false)
        case "year":
            let year = input.year ?? Int(dates.day(clock.now()).prefix(4))!
            guard (1970...9999).contains(year) else { throw PluginError(.invalidInput, "\(year) is not a year", field: "$.year") }
            return ("\(year)-01-01", "\(year)-12-31", true)
        case "custom":
            guard let from = input.from, LocalDates.isDay(from) else { throw PluginError(.invalidInput, "from is a date YYYY-MM-DD", field: "$.from") }
            guard let to = input.to, LocalDates.isDay(to), to >= from else { throw PluginError(.invalidInput, "to is a date YYYY-MM-DD, not before from", field: "$.to") }
            guard LocalDates.daysBetween(from, to) <= 366 else { throw PluginError(.invalidInput, "a custom period is at most 366 days", field: "$.to") }
            return (from, to, false)
        default:
            throw PluginError(.invalidInput, "period is day, week, month, year or custom", field: "$.period")
        }
    }

    /// Every day (or month) label from `from` to `to`.
    private func labels(from: String, to: String, byMonth: Bool) -> [String] {
        guard var (y, m, d) = LocalDates.parseDay(from) else { return [] }
        var out: [String] = []
        while true {
            let label = byMonth ? String(LocalDates.text(y, m, 1).prefix(7)) : LocalDates.text(y, m, d)
            if byMonth ? label > String(to.prefix(7)) : label > to { break }
            out.append(label)
            if byMonth { d = 1; m += 1 } else { d += 1 }
            if d > LocalDates.daysIn(year: y, month: m > 12 ? 1 : m) { d = 1; m += 1 }
            if m > 12 { m = 1; y += 1 }
        }
        return out
    }
}
