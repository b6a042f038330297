import Foundation
import TesseraSDK

/// A bank-to-customer statement in ISO 20022's CAMT.053 (`camt.053.001.02` to `.001.08`), the
/// XML statement Czech and Slovak banks export (Fio, ČSOB, Komerční banka, Tatra banka, SLSP…).
///
/// Read: each `Stmt`'s account (`Acct/Id/IBAN` or `Othr/Id`) and currency (`Acct/Ccy`, else the
/// entries' `Amt/@Ccy`), and each booked entry (`Ntry` whose `Sts` is `BOOK` or absent; pending
/// and informational ones are left out, as the bank has not booked them). An entry with several
/// `TxDtls`, each with its own amount (a batch), becomes one movement per transaction; otherwise
/// the entry is one movement. Its name is the person's own words first — the unstructured
/// remittance information (`RmtInf/Ustrd`) — then the counterparty (the creditor of a debit, the
/// debtor of a credit), then `AddtlTxInf` / `AddtlNtryInf`. The bank's reference
/// (`AcctSvcrRef`, else `NtryRef`, else the transaction's `EndToEndId`) makes re-imports match.
enum CAMT053 {
    struct Statement: Sendable {
        var account: String?
        var currency: String?
        var movements: [StatementMovement]
    }

    /// Whether `text` looks like a CAMT.053 document (so the format need not be said).
    static func looksLike(_ text: String) -> Bool {
        let head = text.prefix(4096)
        return head.contains("BkToCstmrStmt") || head.contains("camt.053")
    }

    static func read(_ text: String) throws -> Statement {
        let root: XMLElement
        do { root = try XMLElement.parse(text) } catch let error as XMLSyntaxError {
            throw PluginError(.invalidInput, "the file is not a readable XML statement: line \(error.line): \(error.reason); nothing was imported", field: "$.file", reason: "statement_unreadable")
        }
        guard let report = root.name == "BkToCstmrStmt" ? root : root.child("BkToCstmrStmt") else {
            throw PluginError(.invalidInput, "the XML file is not a bank statement in CAMT.053 (it has no BkToCstmrStmt); export the statement as CAMT.053 or as CSV", field: "$.file", reason: "statement_unreadable")
        }
        var statement = Statement(movements: [])
        var entryNumber = 0
        for stmt in report.all("Stmt") {
            let account = stmt.value("Acct", "Id", "IBAN") ?? stmt.value("Acct", "Id", "Othr", "Id")
            statement.account = statement.account ?? account
            statement.currency = statement.currency ?? stmt.value("Acct", "Ccy")
            for entry in stmt.all("Ntry") {
                entryNumber += 1
                statement.movements += try movements(of: entry, number: entryNumber)
                if statement.currency == nil { statement.currency = entry.child("Amt")?.attributes["Ccy"] }
            }
        }
        return statement
    }

    /// The movements of one entry, or none if the bank has not booked it.
    static func movements(of entry: XMLElement, number: Int) throws -> [StatementMovement] {
        let status = entry.value("Sts") ?? entry.value("Sts", "Cd") ?? "BOOK"
        guard status == "BOOK" else { return [] }
        func fail(_ why: String) -> PluginError {
            PluginError(.invalidInput, "entry \(number) of the statement \(why); nothing was imported", field: "$.file", reason: "statement_unreadable")
        }
        guard let indicator = entry.value("CdtDbtInd"), indicator == "CRDT" || indicator == "DBIT" else { throw fail("says neither CRDT nor DBIT") }
        guard let rawDate = entry.value("BookgDt", "Dt") ?? entry.value("BookgDt", "DtTm") ?? entry.value("ValDt", "Dt"),
              LocalDates.isDay(String(rawDate.prefix(10))) else { throw fail("has no booking date") }
        let date = String(rawDate.prefix(10))
        // A reversal (RvslInd true) takes the opposite direction of what it reverses.
        let reversed = entry.value("RvslInd") == "true"
        let kind = (indicator == "CRDT") != reversed ? "income" : "expense"
        let entryReference = entry.value("AcctSvcrRef") ?? entry.value("NtryRef")
        let details = entry.all("NtryDtls").flatMap { $0.all("TxDtls") }
        let ownAmounts = details.count > 1 && details.allSatisfy { Self.amount(of: $0) != nil }
        if ownAmounts {
            return try details.enumerated().map { index, transaction in
                try movement(entry: entry, details: transaction, minor: Self.amount(of: transaction)!, kind: kind, date: date,
                             reference: transaction.value("Refs", "AcctSvcrRef") ?? entryReference.map { "\($0)/\(index + 1)" }, number: number)
            }
        }
        guard let text = entry.value("Amt") else { throw fail("has no amount") }
        let minor = try amount(text, entry: number)
        return [try movement(entry: entry, details: details.first, minor: minor, kind: kind, date: date,
                             reference: entryReference ?? details.first?.value("Refs", "EndToEndId"), number: number)]
    }

    private static func movement(entry: XMLElement, details: XMLElement?, minor: Int64, kind: String, date: String,
                                 reference: String?, number: Int) throws -> StatementMovement {
        // The other party: whom a debit paid, who paid a credit (`Pty` wraps it from version .08).
        let role = kind == "expense" ? "Cdtr" : "Dbtr"
        let party = details?.at("RltdPties", role).flatMap { $0.value("Nm") ?? $0.value("Pty", "Nm") }
        let words = details.flatMap { d in d.all("RmtInf").flatMap { $0.all("Ustrd") }.compactMap { $0.value() }.joined(separator: " ") }
        let name = [words, party, details?.value("AddtlTxInf"), entry.value("AddtlNtryInf")]
            .compactMap { $0?.trimmingCharacters(in: .whitespacesAndNewlines) }.first { !$0.isEmpty }
        return StatementMovement(line: number, date: date, kind: kind, minor: minor, name: name, counterparty: party,
                                 reference: reference == "NOTPROVIDED" ? nil : reference)
    }

    /// A transaction's own amount (`Amt`, or `AmtDtls/TxAmt/Amt`), in minor units.
    private static func amount(of details: XMLElement) -> Int64? {
        (details.value("Amt") ?? details.value("AmtDtls", "TxAmt", "Amt")).flatMap { try? amount($0, entry: 0) }
    }

    /// `123.45`: ISO 20022 writes a dot and no sign; at most two decimals for the app's currencies.
    private static func amount(_ text: String, entry: Int) throws -> Int64 {
        guard let minor = BankAmount.parse(text, decimalSeparator: "."), minor > 0 else {
            throw PluginError(.invalidInput, "entry \(entry) of the statement has the amount '\(text)', which is not an amount above zero with at most two decimals; nothing was imported", field: "$.file", reason: "statement_unreadable")
        }
        return minor
    }
}
