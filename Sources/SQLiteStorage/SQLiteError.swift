import CSQLite

/// A failed SQLite call: the result codes, SQLite's message, and where it happened.
public struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The primary result code (the low 8 bits of ``extendedCode``), e.g. ``SQLiteError/constraint``.
    public var code: Int32
    /// The extended result code, e.g. 2067 (`SQLITE_CONSTRAINT_UNIQUE`); equal to ``code`` when there is none.
    public var extendedCode: Int32
    /// `sqlite3_errmsg` at the time of the failure, or our own explanation for checks SQLite does not make.
    public var message: String
    /// The SQL statement that failed, when there is one.
    public var sql: String?
    /// The database file, when known.
    public var path: String?

    public init(code: Int32, extendedCode: Int32? = nil, message: String, sql: String? = nil, path: String? = nil) {
        self.code = code & 0xFF
        self.extendedCode = extendedCode ?? code
        self.message = message
        self.sql = sql
        self.path = path
    }

    /// Builds an error from a result code, taking the extended code and message from the connection when
    /// the connection's last error is the same failure.
    init(resultCode: Int32, db: OpaquePointer?, sql: String?, path: String?) {
        var extended = resultCode
        var text = SQLiteError.codeDescription(resultCode)
        if let db {
            let last = sqlite3_extended_errcode(db)
            if last & 0xFF == resultCode & 0xFF {
                extended = last
                if let m = sqlite3_errmsg(db) { text = String(cString: m) }
            }
        }
        self.init(code: resultCode, extendedCode: extended, message: text, sql: sql, path: path)
    }

    /// SQLite's generic English text for a result code (`sqlite3_errstr`).
    public static func codeDescription(_ code: Int32) -> String {
        guard let s = sqlite3_errstr(code) else { return "unknown error" }
        return String(cString: s)
    }

    public var description: String {
        var text = "SQLite error \(code)"
        if extendedCode != code { text += "/\(extendedCode)" }
        text += " (\(message.isEmpty ? SQLiteError.codeDescription(code) : message))"
        if let path { text += " in \(path)" }
        if let sql { text += " while running: \(sql)" }
        return text
    }

    // MARK: Primary result codes

    public static let genericError: Int32 = SQLITE_ERROR
    public static let internalError: Int32 = SQLITE_INTERNAL
    public static let permission: Int32 = SQLITE_PERM
    public static let abort: Int32 = SQLITE_ABORT
    public static let busy: Int32 = SQLITE_BUSY
    public static let locked: Int32 = SQLITE_LOCKED
    public static let noMemory: Int32 = SQLITE_NOMEM
    public static let readOnly: Int32 = SQLITE_READONLY
    public static let interrupt: Int32 = SQLITE_INTERRUPT
    public static let ioError: Int32 = SQLITE_IOERR
    public static let corrupt: Int32 = SQLITE_CORRUPT
    public static let full: Int32 = SQLITE_FULL
    public static let cantOpen: Int32 = SQLITE_CANTOPEN
    public static let schema: Int32 = SQLITE_SCHEMA
    public static let tooBig: Int32 = SQLITE_TOOBIG
    public static let constraint: Int32 = SQLITE_CONSTRAINT
    public static let mismatch: Int32 = SQLITE_MISMATCH
    public static let misuse: Int32 = SQLITE_MISUSE
    public static let range: Int32 = SQLITE_RANGE
    public static let notADatabase: Int32 = SQLITE_NOTADB

    // MARK: Common extended codes (sqlite3.h builds them with `|`, which Swift does not import)

    public static let constraintUnique: Int32 = SQLITE_CONSTRAINT | (8 << 8)
    public static let constraintPrimaryKey: Int32 = SQLITE_CONSTRAINT | (6 << 8)
    public static let constraintNotNull: Int32 = SQLITE_CONSTRAINT | (5 << 8)
    public static let constraintForeignKey: Int32 = SQLITE_CONSTRAINT | (3 << 8)
    public static let constraintCheck: Int32 = SQLITE_CONSTRAINT | (1 << 8)

    // MARK: Questions callers ask

    /// Another connection holds a lock we need (BUSY or LOCKED): the operation may succeed if retried.
    public var isBusyOrLocked: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
    /// The file is damaged or is not an SQLite database at all.
    public var isCorruption: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }
    /// A constraint (UNIQUE, NOT NULL, CHECK, FOREIGN KEY, ...) rejected the change.
    public var isConstraintViolation: Bool { code == SQLITE_CONSTRAINT }

    /// Lets a `switch` over an error match on a result code: `case SQLiteError.busy:`.
    /// The pattern matches either the primary or the extended code.
    public static func ~= (pattern: Int32, error: SQLiteError) -> Bool {
        error.code == pattern || error.extendedCode == pattern
    }

    // MARK: Errors raised by the wrapper itself

    static func closed(sql: String?, path: String) -> SQLiteError {
        SQLiteError(code: SQLITE_MISUSE, message: "the connection is closed", sql: sql, path: path)
    }
}
