import Foundation
import TesseraSDK

/// The finance module's logic over its capabilities. Split by concern into extensions:
/// settings and categories here, then transactions, budget, goals, reminders, overviews and CSV.
struct Ledger: Sendable {
    let storage: any PluginStorage
    let clock: any HostClock
    let notifications: (any PluginNotifications)?
    /// Whether the operator granted `events`: the module then publishes what it records
    /// (Events.swift).
    var emitsEvents = false

    /// The thesis's categories (travel, food, health "etc.") completed with the usual ones.
    static let builtinCategories = ["travel", "food", "health", "housing", "transport", "shopping", "entertainment",
                                    "subscriptions", "salary", "gifts", "other"]
    static let builtinAccounts = [("cash", "Cash", "cash"), ("bank", "Bank account", "bank")]

    // MARK: Settings

    struct Settings: Codable, Sendable {
        var currency = "EUR"
        var language = "en"
        var timeZone = "Europe/Bratislava"
        var weeklyBudget = false
        var logReminder = false
        var repeatBudget = false
        /// Whether a currency was ever chosen; until then `currency` is the default, EUR, and a
        /// page may propose the one of the person's country.
        var currencyChosen = false
    }

    func settings() async throws -> Settings {
        var settings = Settings()
        for row in try await storage.query("SELECT id, value FROM settings") {
            let value = row["value"].text ?? ""
            switch row["id"].text {
            case "currency": settings.currency = value; settings.currencyChosen = true
            case "language": settings.language = value
            case "timeZone": settings.timeZone = value
            case "weeklyBudget": settings.weeklyBudget = value == "1"
            case "logReminder": settings.logReminder = value == "1"
            case "repeatBudget": settings.repeatBudget = value == "1"
            default: break
            }
        }
        return settings
    }

    struct SettingsInput: Decodable, Sendable {
        var currency: String?
        var language: String?
        var timeZone: String?
        var confirm: Bool?
    }

    /// Changes the currency label (never converts amounts: the thesis's rule; it asks to confirm),
    /// the language of notification texts, or the time zone that decides "today" and "this month".
    func setSettings(_ input: SettingsInput) async throws -> Settings {
        let current = try await settings()
        if let currency = input.currency {
            guard Money.currencies.contains(currency) else {
                throw PluginError(.invalidInput, "currency '\(currency)' is not one of \(Money.currencies.sorted().joined(separator: ", "))", field: "$.currency")
            }
            if currency != current.currency && input.confirm != true {
                throw PluginError.confirmationRequired("changing the currency relabels every amount without converting it")
            }
        }
        if let language = input.language, !Strings.languages.contains(language) {
            throw PluginError(.invalidInput, "language '\(language)' is not one of en, sk, cs", field: "$.language")
        }
        if let zone = input.timeZone, TimeZone(identifier: zone) == nil {
            throw PluginError(.invalidInput, "'\(zone)' is not an IANA time zone such as Europe/Prague", field: "$.timeZone")
        }
        try await storage.write { batch in
            if let value = input.currency { batch.put("settings", id: "currency", ["value": .text(value)]) }
            if let value = input.language { batch.put("settings", id: "language", ["value": .text(value)]) }
            if let value = input.timeZone { batch.put("settings", id: "timeZone", ["value": .text(value)]) }
        }
        try await rescheduleReminders()
        return try await settings()
    }

    func dates() async throws -> LocalDates { LocalDates(timeZone: try await settings().timeZone) }

    // MARK: Categories and accounts

    func categories() async throws -> [String] {
        let own = try await storage.query("SELECT id FROM categories ORDER BY id").compactMap { $0["id"].text }
        return Self.builtinCategories + own.filter { !Self.builtinCategories.contains($0) }
    }

    func addCategory(_ name: String) async throws -> [String] {
        let key = name.lowercased().trimmingCharacters(in: .whitespaces)
        guard !key.isEmpty, key.count <= 40, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == " " }) else {
            throw PluginError(.invalidInput, "a category is 1–40 letters, digits, spaces or dashes", field: "$.name")
        }
        try await storage.write { $0.put("categories", id: key, [:]) }
        return try await categories()
    }

    func accounts() async throws -> [(id: String, name: String, kind: String)] {
        let own = try await storage.query("SELECT id, name, kind FROM accounts ORDER BY id")
            .map { ($0["id"].text ?? "", $0["name"].text ?? "", $0["kind"].text ?? "cash") }
        return Self.builtinAccounts.map { (id: $0.0, name: $0.1, kind: $0.2) } + own.filter { row in !Self.builtinAccounts.contains { $0.0 == row.0 } }
    }

    func addAccount(id: String, name: String, kind: String) async throws {
        guard !id.isEmpty, id.count <= 40, id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }), id == id.lowercased() else {
            throw PluginError(.invalidInput, "an account id is 1–40 lowercase letters, digits or dashes", field: "$.id")
        }
        guard kind == "cash" || kind == "bank" else { throw PluginError(.invalidInput, "an account is cash or bank", field: "$.kind") }
        try await storage.write { $0.put("accounts", id: id, ["name": .text(name), "kind": .text(kind)]) }
    }

    func iso(_ date: Date) -> String { date.formatted(.iso8601) }

    // MARK: Device-local values

    // The `device_local` table is not synced (the manifest's `sync` leaves it out): what belongs
    // to this device alone — when it last asked Fio, the statement a refused import fetched, when
    // its token was set.

    func local(_ key: String) async throws -> String? {
        try await storage.query("SELECT value FROM device_local WHERE id = ?", [.text(key)]).first?["value"].text
    }

    func setLocal(_ values: [String: String?]) async throws {
        try await storage.write { batch in
            for (key, value) in values {
                if let value { batch.put("device_local", id: key, ["value": .text(value)]) } else { batch.delete("device_local", id: key) }
            }
        }
    }
}

extension Ledger {
    // MARK: Timers that set their own next time

    // A timer the host keeps is removed once its handler has returned, by key; a handler that set
    // the next occurrence under the same key would lose it. So each occurrence has a key of its
    // own, `<name>@<instant>`, and setting one cancels this name's others.

    /// Makes `at` the one pending timer called `name`.
    func scheduleOnly(_ name: String, at date: Date) async throws {
        let key = "\(name)@\(iso(date))"
        for timer in try await clock.pendingTimers() where timer.name == name && timer.key != key {
            try await clock.cancelTimer(key: timer.key)
        }
        try await clock.schedule(TimerRequest(key: key, name: name, fireAt: date))
    }

    /// Cancels every pending timer called `name`.
    func cancelTimers(_ name: String) async throws {
        for timer in try await clock.pendingTimers() where timer.name == name { try await clock.cancelTimer(key: timer.key) }
    }
}

extension PluginError {
    /// The one shape of a refusal for want of `confirm: true`, shared by every module
    /// (docs/http.md, "Errors"): `invalid_input` at `$.confirm`, reason code `confirmation_required`.
    static func confirmationRequired(_ consequence: String) -> PluginError {
        PluginError(.invalidInput, "\(consequence); send confirm: true to go ahead", field: "$.confirm", reason: "confirmation_required")
    }
}
