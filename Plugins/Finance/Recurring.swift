import Foundation
import TesseraSDK

/// Recurring transactions (rent, salary, subscriptions), which the thesis lacks and its users'
/// other apps all have: every N days, weeks or months from a start day, until an optional end.
/// The hourly job, and adding or listing them, write each occurrence up to today as an ordinary
/// transaction with the id `rec-<rule>-<day>`, so an occurrence is written once however often the
/// job runs (or on however many devices). A monthly rule on the 31st falls on the last day of
/// shorter months. Deleting a rule stops it; what it wrote stays.
extension Ledger {
    struct NewRecurring: Decodable, Sendable {
        var kind: String
        var name: String
        var amount: String
        var category: String
        var account: String?
        var every: String
        var interval: Int?
        var start: String
        var until: String?
    }

    struct Recurring: Codable, Sendable, Equatable {
        var id: String, kind: String, name: String, amount: String, amountMinor: Int64, category: String, account: String
        var every: String, interval: Int, start: String, until: String?
    }

    func addRecurring(_ input: NewRecurring) async throws -> Recurring {
        guard ["day", "week", "month"].contains(input.every) else { throw PluginError(.invalidInput, "every is day, week or month", field: "$.every") }
        let interval = input.interval ?? 1
        guard (1...366).contains(interval) else { throw PluginError(.invalidInput, "interval is 1–366", field: "$.interval") }
        guard LocalDates.isDay(input.start) else { throw PluginError(.invalidInput, "start is a date YYYY-MM-DD", field: "$.start") }
        if let until = input.until {
            guard LocalDates.isDay(until), until >= input.start else { throw PluginError(.invalidInput, "until is a date, not before start", field: "$.until") }
        }
        // The same checks as a transaction's (kind, name, amount, category, account).
        let amount = try Money.parse(input.amount, field: "$.amount")
        guard input.kind == "income" || input.kind == "expense" else { throw PluginError(.invalidInput, "kind is income or expense", field: "$.kind") }
        guard try await categories().contains(input.category) else { throw PluginError(.notFound, "no category '\(input.category)'", field: "$.category") }
        let account = input.account ?? "cash"
        guard try await accounts().contains(where: { $0.id == account }) else { throw PluginError(.notFound, "no account '\(account)'", field: "$.account") }
        let id = String(UUID().uuidString.lowercased().prefix(8))
        try await storage.write {
            $0.put("recurring", id: id, ["kind": .text(input.kind), "name": .text(input.name), "amount_minor": .integer(amount),
                                         "category": .text(input.category), "account": .text(account), "every": .text(input.every),
                                         "interval": .integer(Int64(interval)), "start": .text(input.start), "until": input.until.map { .text($0) } ?? .null])
        }
        _ = try await materializeRecurring()
        return try await recurring().first { $0.id == id }!
    }

    func recurring() async throws -> [Recurring] {
        try await storage.query("SELECT * FROM recurring ORDER BY start, id").map { row in
            Recurring(id: row["id"].text ?? "", kind: row["kind"].text ?? "", name: row["name"].text ?? "",
                      amount: Money.plain(row["amount_minor"].integer ?? 0), amountMinor: row["amount_minor"].integer ?? 0, category: row["category"].text ?? "",
                      account: row["account"].text ?? "", every: row["every"].text ?? "", interval: Int(row["interval"].integer ?? 1),
                      start: row["start"].text ?? "", until: row["until"].text)
        }
    }

    func deleteRecurring(_ id: String) async throws {
        guard try await recurring().contains(where: { $0.id == id }) else { throw PluginError(.notFound, "no recurring transaction '\(id)'", field: "$.id") }
        try await storage.write { $0.delete("recurring", id: id) }
    }

    /// Writes every occurrence due up to today that is not written yet; returns how many it wrote.
    func materializeRecurring() async throws -> Int {
        let today = try await today().day
        let existing = Set(try await storage.query("SELECT id FROM transactions WHERE id LIKE 'rec-%'").compactMap { $0["id"].text })
        var puts: [(String, [String: SQLValue])] = []
        let now = iso(clock.now())
        for rule in try await recurring() {
            for day in Self.occurrences(of: rule, through: min(today, rule.until ?? today)) where !existing.contains("rec-\(rule.id)-\(day)") {
                puts.append(("rec-\(rule.id)-\(day)", ["kind": .text(rule.kind), "name": .text(rule.name),
                    "amount_minor": .integer(rule.amountMinor), "category": .text(rule.category),
                    "occurred_on": .text(day), "account": .text(rule.account), "created_at": .text(now)]))
            }
        }
        guard !puts.isEmpty else { return 0 }
        let currency = try await settings().currency, emits = emitsEvents
        try await storage.write { batch in
            for (id, values) in puts { batch.recordTransaction(id, values, currency: currency, source: "recurring", emits: emits) }
        }
        try await afterTransactionsChanged(month: String(today.prefix(7)))
        return puts.count
    }

    /// The days a rule falls on, from its start through `last`.
    static func occurrences(of rule: Recurring, through last: String) -> [String] {
        guard let (y0, m0, d0) = LocalDates.parseDay(rule.start) else { return [] }
        var out: [String] = []
        var n = 0
        while out.count < 5000 {
            let day: String
            switch rule.every {
            case "month":
                let months = (m0 - 1) + n * rule.interval
                let (y, m) = (y0 + months / 12, months % 12 + 1)
                day = LocalDates.text(y, m, min(d0, LocalDates.daysIn(year: y, month: m)))
            default:
                day = LocalDates.adding(n * rule.interval * (rule.every == "week" ? 7 : 1), to: rule.start)
            }
            if day > last { break }
            out.append(day)
            n += 1
        }
        return out
    }
}
