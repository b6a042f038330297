import Foundation
import TesseraSDK

/// Import from Fio banka's REST API (specs/finance.md §4, research §3.4) through the host's HTTP
/// client, granted only `fioapi.fio.cz`; the token is kept as a secret, never in the database.
///
/// The first import asks for the last 90 days (Fio refuses older data without strong
/// authorisation, HTTP 422); later ones ask from the day of the previous import to today. Fio's
/// own server-side cursor (`last/`) is not used: it is shared by every system using the token, and
/// a range plus de-duplication does not depend on it. Each movement becomes the transaction
/// `fio-<movement id>` (column22), so importing twice, or on two devices that sync, never doubles
/// one. Fio allows one request per 30 s per token and answers 409 to a faster one: the module
/// refuses a second request within 30 s itself, without sending it, and either refusal is
/// `rate_limited` with nothing written. Amounts come as JSON numbers and are converted once to
/// minor units, rounded to the cent (exact for any amount with two decimals). The daily import and
/// the token-expiry reminder are in FioSchedule.swift.
extension Ledger {
    static let fioBase = "https://fioapi.fio.cz/v1/rest"
    static let fioTokenSecret = "fio-token"

    struct FioToken: Decodable, Sendable { var token: String }
    struct FioResult: Codable, Sendable, Equatable {
        var imported: Int
        var alreadyThere: Int
        var from: String
        var to: String
        /// Set when `resolveMismatch: abort` was answered (nothing imported, nothing sent).
        var aborted: Bool?
    }
    struct FioStatus: Codable, Sendable, Equatable {
        var hasToken: Bool
        var lastImport: String?
        /// The day this device's token was set, and when its expiry reminder comes.
        var tokenSetOn: String?
        var tokenReminderAt: String?
        /// Whether this device imports by itself every day at 07:00.
        var autoImport: Bool
    }

    func setFioToken(_ token: String, secrets: (any PluginSecrets)?) async throws -> FioStatus {
        guard let secrets else { throw PluginError(.notGranted, "the operator has not granted secrets to this module, so it cannot keep a Fio token") }
        guard (20...128).contains(token.count), token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw PluginError(.invalidInput, "a Fio token is the 64 letters and digits from internet banking → Settings → API", field: "$.token")
        }
        try await secrets.store(Secret(token), named: Self.fioTokenSecret)
        try await scheduleTokenReminder()
        return try await fioStatus(secrets: secrets)
    }

    func clearFioToken(secrets: (any PluginSecrets)?) async throws -> FioStatus {
        try await secrets?.removeSecret(named: Self.fioTokenSecret)
        try await cancelTokenReminder()
        return try await fioStatus(secrets: secrets)
    }

    func fioStatus(secrets: (any PluginSecrets)?) async throws -> FioStatus {
        let last = try await storage.query("SELECT value FROM settings WHERE id = 'fioLastImport'").first?["value"].text
        let setAt = try await local(Self.tokenSetKey).flatMap { try? Date($0, strategy: .iso8601) }
        let dates = try await dates()
        return FioStatus(hasToken: try await secrets?.secret(named: Self.fioTokenSecret) != nil, lastImport: last,
                         tokenSetOn: setAt.map { dates.day($0) },
                         tokenReminderAt: setAt.map { iso($0.addingTimeInterval(Self.tokenReminderAfter)) },
                         autoImport: try await local(Self.autoImportKey) == "1")
    }

    /// `resolveMismatch`: without it, an account in another currency than the app's is refused
    /// and its statement kept for 10 minutes; `switchCurrencyAndWipe` makes the account's
    /// currency the app's, deletes the existing transactions (goals, budgets and settings stay:
    /// spec §7.11 q7) and imports the kept statement; `abort` imports nothing and keeps the
    /// statement for the rest of its 10 minutes, so switching after an abort still sends nothing.
    /// Neither answer sends a request when a statement is kept, and `abort` never sends one.
    ///
    /// The module keeps Fio's one-request-per-30-seconds rule itself (spec §4.7): the time of
    /// this device's last request is kept (device-local, so that every `tessera call`, a process
    /// of its own, sees it), and a request inside the window is refused without touching the
    /// network, saying how many seconds are truly left.
    func importFromFio(http: (any PluginHTTPClient)?, secrets: (any PluginSecrets)?, resolveMismatch: String?) async throws -> FioResult {
        guard let http, let secrets else {
            throw PluginError(.notGranted, "bank import needs the http (fioapi.fio.cz) and secrets grants")
        }
        let today = try await today().day
        let last = try await storage.query("SELECT value FROM settings WHERE id = 'fioLastImport'").first?["value"].text
        let from = last ?? LocalDates.adding(-89, to: today)
        let kept = try await keptStatement()
        if resolveMismatch == "abort" {
            // Nothing imported, nothing sent; the kept statement stays for its 10 minutes, so a
            // person who changes their mind (switchCurrencyAndWipe) needs no second request,
            // which Fio's 30-second rule would refuse.
            return FioResult(imported: 0, alreadyThere: 0, from: from, to: today, aborted: true)
        }
        guard let token = try await secrets.secret(named: Self.fioTokenSecret) else {
            throw PluginError(.conflict, "no Fio token: set one with fio-token-set", reason: "no_token")
        }
        let settings = try await settings()
        let body: [UInt8]
        if resolveMismatch == "switchCurrencyAndWipe", let kept {
            body = kept
        } else {
            try await checkRateWindow()
            try await setLocal([Self.lastCallKey: iso(clock.now())])  // before sending: a crash mid-request still counts
            let response = try await http.send(OutboundRequest(url: "\(Self.fioBase)/periods/\(token.revealed)/\(from)/\(today)/transactions.json",
                                                              headers: ["Accept": "application/json"], timeout: .seconds(30)))
            try Self.checkFio(response, now: clock.now())
            body = response.body
        }
        let statement = try Self.statement(body)
        var wipe = false
        if statement.currency != settings.currency {
            guard resolveMismatch == "switchCurrencyAndWipe" else {
                try await setLocal([Self.pendingKey: String(decoding: body, as: UTF8.self), Self.pendingAtKey: iso(clock.now())])
                throw PluginError(.conflict, "the account is in \(statement.currency) but the app's currency is \(settings.currency): call fio-import again within 10 minutes with resolveMismatch switchCurrencyAndWipe to switch to \(statement.currency) and delete the existing transactions, or abort", reason: "currency_mismatch")
            }
            wipe = true
        }
        let rules = try await categoryRules()
        let existing = try await storage.query("SELECT id FROM transactions").compactMap { $0["id"].text }
        // A split transaction's parts go with it: left behind, they would count in the new currency.
        let parts = wipe ? try await storage.query("SELECT id FROM splits").compactMap { $0["id"].text } : []
        let known = wipe ? Set<String>() : Set(existing.filter { $0.hasPrefix("fio-") })
        let fresh = statement.movements.filter { !known.contains($0.id) }
        let now = iso(clock.now()), emits = emitsEvents
        try await storage.write { batch in
            if wipe {
                for id in existing { batch.delete("transactions", id: id) }
                for id in parts { batch.delete("splits", id: id) }
                batch.put("settings", id: "currency", ["value": .text(statement.currency)])
            }
            for m in fresh {
                let subject = RuleSubject(name: m.name, counterparty: m.counterparty, kind: m.kind, minor: m.minor, account: "bank")
                batch.recordTransaction(m.id, ["kind": .text(m.kind), "name": .text(m.name), "amount_minor": .integer(m.minor),
                                               "category": .text(Self.category(for: subject, rules: rules)), "occurred_on": .text(m.date),
                                               "account": .text("bank"), "created_at": .text(now), "counterparty": .text(m.counterparty ?? "")],
                                        currency: statement.currency, source: "fio", emits: emits)
            }
            batch.put("settings", id: "fioLastImport", ["value": .text(today)])
            batch.delete("device_local", id: Self.pendingKey)
            batch.delete("device_local", id: Self.pendingAtKey)
        }
        try await afterTransactionsChanged(month: String(today.prefix(7)))
        return FioResult(imported: fresh.count, alreadyThere: statement.movements.count - fresh.count, from: from, to: today)
    }

    static let lastCallKey = "fioLastCall", pendingKey = "fioPendingStatement", pendingAtKey = "fioPendingAt"

    /// Refuses a request within 30 s of this device's last one, with the seconds truly left.
    private func checkRateWindow() async throws {
        guard let text = try await local(Self.lastCallKey), let lastCall = try? Date(text, strategy: .iso8601) else { return }
        let now = clock.now(), elapsed = now.timeIntervalSince(lastCall)
        guard elapsed < 30, elapsed >= 0 else { return }
        let left = Int((30 - elapsed).rounded(.up))
        throw PluginError(.conflict, "Fio allows one request per 30 seconds for a token and the last one went \(Int(elapsed)) s ago: try again in \(left) s, after \(iso(lastCall.addingTimeInterval(30))); nothing was sent to the bank", reason: "rate_limited")
    }

    /// The statement a refused import kept, if it is under 10 minutes old.
    private func keptStatement() async throws -> [UInt8]? {
        guard let body = try await local(Self.pendingKey), let at = try await local(Self.pendingAtKey).flatMap({ try? Date($0, strategy: .iso8601) }),
              clock.now().timeIntervalSince(at) < 600 else { return nil }
        return Array(body.utf8)
    }

    /// Turns Fio's refusals into errors a person can act on; nothing is written after one.
    /// A refusal is `conflict` (Fio's own 409, a second request too soon), `forbidden` (the saved
    /// token refused: a credential, as STAG's refused login is) or `unprocessable` (the range
    /// refused); only a bank that does not answer properly is `unavailable`.
    static func checkFio(_ response: OutboundResponse, now: Date) throws {
        switch response.status {
        case 200: return
        case 409:
            let retry = now.addingTimeInterval(30).formatted(.iso8601)
            throw PluginError(.conflict, "Fio allows one request per 30 seconds for a token and says another request used it just now (another device or program?): try again in 30 s, after \(retry)", reason: "rate_limited")
        case 422: throw PluginError(.unprocessable, "Fio gives data older than 90 days only after strong authorisation in internet banking", reason: "strong_authorization")
        case 400...499: throw PluginError(.forbidden, "Fio refused the token (HTTP \(response.status)): check it in internet banking → Settings → API, or set a new one with fio-token-set", reason: "token_refused")
        default: throw PluginError(.unavailable, "Fio is not available (HTTP \(response.status)); nothing was imported", reason: "bank_unavailable")
        }
    }

    /// Komentář, Zpráva pro příjemce, Uživatelská identifikace, Název protiúčtu, Typ.
    static let nameColumns = [25, 16, 7, 10, 8]

    struct Movement: Sendable { var id: String; var kind: String; var name: String; var minor: Int64; var date: String; var counterparty: String? }

    /// The account's currency and its movements, from a Fio statement; throws for a malformed one.
    static func statement(_ body: [UInt8]) throws -> (currency: String, movements: [Movement]) {
        let json: JSONValue
        do { json = try JSONValue(parsing: body) } catch {
            throw PluginError(.unavailable, "Fio answered with data that is not JSON; nothing was imported", reason: "bank_malformed")
        }
        guard let statement = json["accountStatement"], let info = statement["info"], let currency = info["currency"]?.stringValue else {
            throw PluginError(.unavailable, "Fio's answer has no accountStatement with a currency; nothing was imported", reason: "bank_malformed")
        }
        var out: [Movement] = []
        for (i, t) in (statement["transactionList"]?["transaction"]?.arrayValue ?? []).enumerated() {
            guard let id = t["column22"]?["value"]?.integerValue, let amount = t["column1"]?["value"]?.doubleValue, amount != 0,
                  let rawDate = t["column0"]?["value"]?.stringValue, LocalDates.isDay(String(rawDate.prefix(10))) else {
                throw PluginError(.unavailable, "Fio's movement #\(i + 1) lacks an id, an amount or a date; nothing was imported", reason: "bank_malformed")
            }
            // Spec §4.7: the person's own words first — comment, message for the recipient, user
            // identification — then the counterparty's name, then the movement's type.
            let name = Self.nameColumns.lazy.compactMap { t["column\($0)"]?["value"]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines) }
                .first { !$0.isEmpty } ?? "Fio \(id)"
            let minor = Int64((abs(amount) * 100).rounded())
            // Název protiúčtu: for the rules' counterparty condition.
            let counterparty = t["column10"]?["value"]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines)
            out.append(Movement(id: "fio-\(id)", kind: amount < 0 ? "expense" : "income", name: String(name.prefix(120)), minor: minor,
                                date: String(rawDate.prefix(10)), counterparty: counterparty?.isEmpty == false ? String(counterparty!.prefix(120)) : nil))
        }
        return (currency, out)
    }
}
