import CSQLite

/// An error reported by SQLite, or a misuse of this wrapper detected before SQLite was called.
///
/// Carries SQLite's primary result code (``code``, e.g. `SQLITE_CONSTRAINT` = 19), the extended
/// code (``extendedCode``, e.g. `SQLITE_CONSTRAINT_UNIQUE` = 2067), the text of `sqlite3_errmsg`
/// at the moment of failure, and the SQL that failed, if any. ``description`` is one line.
public struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT`, …): the low 8 bits of
    /// ``extendedCode``.
    public let code: Int32
    /// The extended result code (`SQLITE_CONSTRAINT_NOTNULL`, `SQLITE_IOERR_FSYNC`, …).
    public let extendedCode: Int32
    /// SQLite's message (`sqlite3_errmsg`), or this wrapper's for a misuse.
    public let message: String
    /// The SQL statement (or script) that failed, if the failure concerned one.
    public let sql: String?

    /// Creates an error from its parts. `code` defaults to the low 8 bits of `extendedCode`.
    public init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.code = extendedCode & 0xff
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// Reads the error state of connection `db` right after a call returned `resultCode`.
    ///
    /// Must be called before any other call on the connection, which would overwrite its error state.
    init(connection db: OpaquePointer?, resultCode: Int32, sql: String?) {
        let extended: Int32
        let message: String
        if let db {
            let e = sqlite3_extended_errcode(db)
            // sqlite3_extended_errcode reports the most recent error on the connection; trust it only
            // if it agrees with the code the failing call returned.
            extended = (e & 0xff) == (resultCode & 0xff) ? e : resultCode
            message = String(cString: sqlite3_errmsg(db))
        } else {
            extended = resultCode
            message = String(cString: sqlite3_errstr(resultCode))
        }
        self.init(extendedCode: extended, message: message, sql: sql)
    }

    /// A wrapper-level misuse (`SQLITE_MISUSE`), such as an SQL text holding two statements where one
    /// was expected.
    public static func misuse(_ message: String, sql: String? = nil) -> SQLiteError {
        SQLiteError(extendedCode: SQLITE_MISUSE, message: message, sql: sql)
    }

    /// SQLite's English name of ``code`` (`sqlite3_errstr`), e.g. "constraint failed".
    public var codeDescription: String { String(cString: sqlite3_errstr(code)) }

    /// One line: codes, message and the failing SQL (whitespace collapsed, cut at 300 characters).
    public var description: String {
        var text = "SQLite error \(code)"
        if extendedCode != code { text += "/\(extendedCode)" }
        text += " (\(codeDescription)): \(Self.oneLine(message, limit: 500))"
        if let sql { text += " [SQL: \(Self.oneLine(sql, limit: 300))]" }
        return text
    }

    /// `text` on one line: runs of whitespace (newlines included) become one space, cut after `limit`
    /// characters with an ellipsis.
    public static func oneLine(_ text: String, limit: Int) -> String {
        var out = ""
        var count = 0
        var pendingSpace = false
        for ch in text {
            if ch.isWhitespace {
                pendingSpace = count > 0
                continue
            }
            if pendingSpace { out.append(" "); count += 1; pendingSpace = false }
            if count >= limit { return out + "…" }
            out.append(ch)
            count += 1
        }
        return out
    }
}
