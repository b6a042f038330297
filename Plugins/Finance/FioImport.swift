import Foundation
import Synchronization
import TesseraSDK

/// Import from Fio banka's REST API (specs/finance.md §4, research §3.4) through the host's HTTP
/// client, granted only `fioapi.fio.cz`; the token is kept as a secret, never in the database.
///
/// The first import asks for the last 90 days (Fio refuses older data without strong
/// authorisation, HTTP 422); later ones ask from the day of the previous import to today. Fio's
/// own server-side cursor (`last/`) is not used: it is shared by every system using the token, and
/// a range plus de-duplication does not depend on it. Each movement becomes the transaction
/// `fio-<movement id>` (column22), so importing twice, or on two devices that sync, never doubles
/// one. Fio allows one request per 30 s per token and answers 409 to a faster one: the import
/// then fails with `rate_limited` and writes nothing. Amounts come as JSON numbers and are
/// converted once to minor units, rounded to the cent (exact for any amount with two decimals).
extension Ledger {
    static let fioBase = "https://fioapi.fio.cz/v1/rest"
    static let fioTokenSecret = "fio-token"

    struct FioToken: Decodable, Sendable { var token: String }
    struct FioResult: Codable, Sendable, Equatable { var imported: Int; var alreadyThere: Int; var from: String; var to: String }
    struct FioStatus: Codable, Sendable, Equatable { var hasToken: Bool; var lastImport: String? }

    func setFioToken(_ token: String, secrets: (any PluginSecrets)?) async throws -> FioStatus {
        guard let secrets else { throw PluginError(.notGranted, "the operator has not granted secrets to this module, so it cannot keep a Fio token") }
        guard (20...128).contains(token.count), token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw PluginError(.invalidInput, "a Fio token is the 64 letters and digits from internet banking → Settings → API", field: "$.token")
        }
        try await secrets.store(Secret(token), named: Self.fioTokenSecret)
        return try await fioStatus(secrets: secrets)
    }

    func clearFioToken(secrets: (any PluginSecrets)?) async throws -> FioStatus {
        try await secrets?.removeSecret(named: Self.fioTokenSecret)
        return try await fioStatus(secrets: secrets)
    }

    func fioStatus(secrets: (any PluginSecrets)?) async throws -> FioStatus {
        let last = try await storage.query("SELECT value FROM settings WHERE id = 'fioLastImport'").first?["value"].text
        return FioStatus(hasToken: try await secrets?.secret(named: Self.fioTokenSecret) != nil, lastImport: last)
    }

    /// `resolveMismatch`: `abort` (the default) refuses an account in another currency than the
    /// app's; `switchCurrencyAndWipe` makes the account's currency the app's, deletes the existing
    /// transactions (goals, budgets and settings stay: spec §7.11 q7) and imports — from the
    /// statement fetched by the refused call if it is under 10 minutes old, so resolving costs no
    /// second request against Fio's 30-second limit.
    func importFromFio(http: (any PluginHTTPClient)?, secrets: (any PluginSecrets)?, resolveMismatch: String?,
                       cache: FioStatementCache) async throws -> FioResult {
        guard let http, let secrets else {
            throw PluginError(.notGranted, "bank import needs the http (fioapi.fio.cz) and secrets grants")
        }
        guard let token = try await secrets.secret(named: Self.fioTokenSecret) else {
            throw PluginError(.conflict, "no Fio token: set one with fio-token-set (code no_token)")
        }
        let today = try await today().day
        let last = try await storage.query("SELECT value FROM settings WHERE id = 'fioLastImport'").first?["value"].text
        let from = last ?? LocalDates.adding(-89, to: today)
        let settings = try await settings()
        let body: [UInt8]
        if resolveMismatch == "switchCurrencyAndWipe", let cached = cache.take(now: clock.now()) {
            body = cached
        } else {
            let response = try await http.send(OutboundRequest(url: "\(Self.fioBase)/periods/\(token.revealed)/\(from)/\(today)/transactions.json",
                                                              headers: ["Accept": "application/json"], timeout: .seconds(30)))
            try Self.checkFio(response, now: clock.now())
            body = response.body
        }
        let statement = try Self.statement(body)
        var wipe = false
        if statement.currency != settings.currency {
            guard resolveMismatch == "switchCurrencyAndWipe" else {
                cache.keep(body, now: clock.now())
                throw PluginError(.conflict, "the account is in \(statement.currency) but the app's currency is \(settings.currency): call fio-import again with resolveMismatch switchCurrencyAndWipe to switch to \(statement.currency) and delete the existing transactions, or leave it (code currency_mismatch)")
            }
            wipe = true
        }
        let rules = try await categoryRules()
        let existing = try await storage.query("SELECT id FROM transactions").compactMap { $0["id"].text }
        let known = wipe ? Set<String>() : Set(existing.filter { $0.hasPrefix("fio-") })
        let fresh = statement.movements.filter { !known.contains($0.id) }
        let now = iso(clock.now())
        try await storage.write { batch in
            if wipe {
                for id in existing { batch.delete("transactions", id: id) }
                batch.put("settings", id: "currency", ["value": .text(statement.currency)])
            }
            for m in fresh {
                batch.put("transactions", id: m.id, ["kind": .text(m.kind), "name": .text(m.name), "amount_minor": .integer(m.minor),
                                                     "category": .text(Self.category(for: m.name, rules: rules)), "occurred_on": .text(m.date),
                                                     "account": .text("bank"), "created_at": .text(now)])
            }
            batch.put("settings", id: "fioLastImport", ["value": .text(today)])
        }
        try await afterTransactionsChanged(month: String(today.prefix(7)))
        return FioResult(imported: fresh.count, alreadyThere: statement.movements.count - fresh.count, from: from, to: today)
    }

    /// Turns Fio's refusals into errors a person can act on; nothing is written after one.
    static func checkFio(_ response: OutboundResponse, now: Date) throws {
        switch response.status {
        case 200: return
        case 409:
            let retry = now.addingTimeInterval(30).formatted(.iso8601)
            throw PluginError(.unavailable, "Fio allows one request per 30 seconds for a token; try again after \(retry) (code rate_limited)")
        case 422: throw PluginError(.unavailable, "Fio gives data older than 90 days only after strong authorisation in internet banking (code strong_authorization)")
        case 400...499: throw PluginError(.unavailable, "Fio refused the token (HTTP \(response.status)): check it in internet banking → Settings → API (code token_refused)")
        default: throw PluginError(.unavailable, "Fio is not available (HTTP \(response.status)); nothing was imported (code bank_unavailable)")
        }
    }

    struct Movement: Sendable { var id: String; var kind: String; var name: String; var minor: Int64; var date: String }

    /// The account's currency and its movements, from a Fio statement; throws for a malformed one.
    static func statement(_ body: [UInt8]) throws -> (currency: String, movements: [Movement]) {
        let json: JSONValue
        do { json = try JSONValue(parsing: body) } catch {
            throw PluginError(.unavailable, "Fio answered with data that is not JSON; nothing was imported (code bank_malformed)")
        }
        guard let statement = json["accountStatement"], let info = statement["info"], let currency = info["currency"]?.stringValue else {
            throw PluginError(.unavailable, "Fio's answer has no accountStatement with a currency; nothing was imported (code bank_malformed)")
        }
        var out: [Movement] = []
        for (i, t) in (statement["transactionList"]?["transaction"]?.arrayValue ?? []).enumerated() {
            guard let id = t["column22"]?["value"]?.integerValue, let amount = t["column1"]?["value"]?.doubleValue, amount != 0,
                  let rawDate = t["column0"]?["value"]?.stringValue, LocalDates.isDay(String(rawDate.prefix(10))) else {
                throw PluginError(.unavailable, "Fio's movement #\(i + 1) lacks an id, an amount or a date; nothing was imported (code bank_malformed)")
            }
            let name = [10, 16, 8, 25].lazy.compactMap { t["column\($0)"]?["value"]?.stringValue }.first { !$0.isEmpty } ?? "Fio \(id)"
            let minor = Int64((abs(amount) * 100).rounded())
            out.append(Movement(id: "fio-\(id)", kind: amount < 0 ? "expense" : "income", name: String(name.prefix(120)), minor: minor,
                                date: String(rawDate.prefix(10))))
        }
        return (currency, out)
    }
}

/// The statement a refused import fetched (another currency), kept 10 minutes so that resolving
/// the mismatch needs no second request.
final class FioStatementCache: Sendable {
    private let kept = Mutex<(body: [UInt8], at: Date)?>(nil)
    func keep(_ body: [UInt8], now: Date) { kept.withLock { $0 = (body, now) } }
    func take(now: Date) -> [UInt8]? {
        kept.withLock { kept in
            defer { kept = nil }
            guard let kept, now.timeIntervalSince(kept.at) < 600 else { return nil }
            return kept.body
        }
    }
}
