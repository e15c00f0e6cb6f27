import CSQLite

/// The database handle shared by a connection and the statements it prepares. It lets a statement that
/// outlives `close()` notice that its connection is gone instead of touching a closed handle.
final class ConnectionHandle {
    var db: OpaquePointer?
    let path: String

    init(db: OpaquePointer, path: String) {
        self.db = db
        self.path = path
    }
}

/// One connection to an SQLite database, opened in SQLite's multi-thread mode (`SQLITE_OPEN_NOMUTEX`).
///
/// Thread safety: a connection and every statement it prepares must be used by one thread at a time. The
/// owner serialises access (a queue, an actor, a lock); the type is `Sendable` so it can be handed between
/// threads, not so it can be used from two at once.
///
/// Lifetime: ``close()`` (also run by `deinit`) finalizes cached statements and closes the handle with
/// `sqlite3_close_v2`. A statement from ``prepare(_:)`` that is still alive afterwards keeps the underlying
/// handle allocated until it is released, but every call on it throws a `misuse` error.
///
/// Opening enables extended result codes and `SQLITE_DBCONFIG_DEFENSIVE` (no `writable_schema`, no
/// `journal_mode=OFF`, no direct writes to shadow tables), and reads the schema once so that a file that is
/// not a database fails in `init` with ``SQLiteError/notADatabase`` (that read waits up to 10 s for a lock
/// another connection holds a moment). After `init` the busy timeout is SQLite's default of zero: a locked
/// database fails at once with ``SQLiteError/busy`` until ``setBusyTimeout(milliseconds:)``.
public final class SQLiteConnection: @unchecked Sendable {
    public enum OpenMode: Sendable {
        /// Read and write; creates the file when it does not exist.
        case readWrite
        /// Read only; the file must exist.
        case readOnly
    }

    public enum TransactionKind: Sendable {
        case deferred, immediate, exclusive

        var beginSQL: String {
            switch self {
            case .deferred: "BEGIN DEFERRED"
            case .immediate: "BEGIN IMMEDIATE"
            case .exclusive: "BEGIN EXCLUSIVE"
            }
        }
    }

    /// How long opening waits for a lock before reading the schema, in milliseconds.
    static let openingBusyTimeout: Int32 = 10_000

    /// The path given to `init` (`":memory:"` for ``inMemory()``).
    public let path: String

    let handle: ConnectionHandle
    private var statementCache: [String: SQLiteStatement] = [:]

    /// Opens (and, in `.readWrite` mode, creates) the database at `path`, then probes it.
    /// Paths that start with `file:` are treated as SQLite URIs.
    public init(path: String, mode: OpenMode = .readWrite) throws(SQLiteError) {
        guard !path.utf8.contains(0) else {
            throw SQLiteError(code: SQLITE_CANTOPEN, message: "the path contains a NUL byte", path: path)
        }
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        switch mode {
        case .readWrite: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        }
        if path.hasPrefix("file:") { flags |= SQLITE_OPEN_URI }

        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let error = SQLiteError(resultCode: rc == SQLITE_OK ? SQLITE_NOMEM : rc, db: db, sql: nil, path: path)
            if let db { sqlite3_close_v2(db) }
            throw error
        }
        self.path = path
        self.handle = ConnectionHandle(db: db, path: path)

        sqlite3_extended_result_codes(db, 1)
        let defensive = csqlite_db_config_defensive(db, 1)
        guard defensive == SQLITE_OK else {
            let error = SQLiteError(resultCode: defensive, db: db, sql: nil, path: path)
            close()
            throw error
        }
        // sqlite3_open_v2 does not read the file. Reading the schema does, and reports a file that is not a
        // database (SQLITE_NOTADB) or is damaged (SQLITE_CORRUPT) here rather than on some later statement.
        // It waits for a lock held a moment (another connection's checkpoint as it closes, a log's recovery)
        // instead of failing at once; the busy timeout is back at zero afterwards.
        sqlite3_busy_timeout(db, Self.openingBusyTimeout)
        do {
            _ = try scalar("SELECT count(*) FROM sqlite_master")
        } catch {
            close()
            throw error
        }
        sqlite3_busy_timeout(db, 0)
    }

    /// A private, temporary database in memory.
    public static func inMemory() throws(SQLiteError) -> SQLiteConnection {
        try SQLiteConnection(path: ":memory:")
    }

    deinit {
        close()
    }

    /// The raw `sqlite3*`, for C calls this wrapper does not cover (hooks, limits, ...). Nil once closed.
    /// Do not close it or change its threading; the connection owns it.
    public var rawHandle: OpaquePointer? { handle.db }

    /// Whether ``close()`` has not been called yet.
    public var isOpen: Bool { handle.db != nil }

    /// Finalizes cached statements and closes the connection. Calling it again does nothing.
    public func close() {
        guard let db = handle.db else { return }
        for statement in statementCache.values { statement.finalize() }
        statementCache.removeAll()
        // close_v2 never fails for a valid handle; statements still held by callers keep the handle
        // allocated (as a "zombie") until they are finalized.
        sqlite3_close_v2(db)
        handle.db = nil
    }

    func openDB(sql: String?) throws(SQLiteError) -> OpaquePointer {
        guard let db = handle.db else { throw SQLiteError.closed(sql: sql, path: path) }
        return db
    }

    func error(_ rc: Int32, sql: String?) -> SQLiteError {
        SQLiteError(resultCode: rc, db: handle.db, sql: sql, path: path)
    }

    // MARK: Running SQL

    /// Runs one or more `;`-separated statements, discarding any rows they return.
    /// Statements before a failing one have taken effect (unless inside a transaction that is rolled back).
    public func execute(_ sql: String) throws(SQLiteError) {
        let db = try openDB(sql: sql)
        var text = sql
        let failure: SQLiteError? = text.withUTF8 { utf8 in
            guard utf8.count <= Int(Int32.max) else {
                return SQLiteError(code: SQLITE_TOOBIG, message: "the SQL text is too long", sql: sql, path: path)
            }
            return utf8.withMemoryRebound(to: CChar.self) { chars -> SQLiteError? in
                guard let start = chars.baseAddress else { return nil }
                var offset = 0
                while offset < chars.count {
                    let head = start + offset
                    let remaining = chars.count - offset
                    var statement: OpaquePointer?
                    var tail: UnsafePointer<CChar>?
                    let rc = sqlite3_prepare_v3(db, head, Int32(remaining), 0, &statement, &tail)
                    let consumed = tail.map { head.distance(to: $0) } ?? remaining
                    let used = consumed > 0 ? consumed : remaining
                    if rc != SQLITE_OK {
                        sqlite3_finalize(statement)
                        return self.error(rc, sql: Self.statementText(head, count: used))
                    }
                    offset += used
                    guard let statement else { continue }  // only whitespace or comments
                    defer { sqlite3_finalize(statement) }
                    while true {
                        let stepped = sqlite3_step(statement)
                        if stepped == SQLITE_ROW { continue }
                        if stepped == SQLITE_DONE { break }
                        return self.error(stepped, sql: Self.statementText(head, count: used))
                    }
                }
                return nil
            }
        }
        if let failure { throw failure }
    }

    private static func statementText(_ start: UnsafePointer<CChar>, count: Int) -> String {
        let bytes = UnsafeRawBufferPointer(start: start, count: count)
        var text = String(decoding: bytes, as: UTF8.self)
        while let last = text.last, last.isWhitespace { text.removeLast() }
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        return text
    }

    /// Compiles one statement. Text after the first statement other than whitespace, `;` or comments is an
    /// error (`misuse`), so a second statement is never silently ignored.
    public func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        try prepare(sql, flags: 0)
    }

    /// The statement for `sql`, compiled on first use with `SQLITE_PREPARE_PERSISTENT` and kept until
    /// ``close()``. Every call resets it and clears its bindings before returning it, so do not ask for
    /// the same SQL again while still stepping through an earlier result.
    public func cachedStatement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let cached = statementCache[sql] {
            cached.reset()
            cached.clearBindings()
            return cached
        }
        let statement = try prepare(sql, flags: UInt32(SQLITE_PREPARE_PERSISTENT))
        statementCache[sql] = statement
        return statement
    }

    /// Finalizes every cached statement (they are compiled again on next use).
    public func clearStatementCache() {
        for statement in statementCache.values { statement.finalize() }
        statementCache.removeAll()
    }

    /// The number of statements in the cache.
    public var cachedStatementCount: Int { statementCache.count }

    private func prepare(_ sql: String, flags: UInt32) throws(SQLiteError) -> SQLiteStatement {
        let db = try openDB(sql: sql)
        var text = sql
        let outcome: Result<OpaquePointer, SQLiteError> = text.withUTF8 { utf8 in
            guard utf8.count <= Int(Int32.max) else {
                return .failure(SQLiteError(code: SQLITE_TOOBIG, message: "the SQL text is too long", sql: sql, path: path))
            }
            return utf8.withMemoryRebound(to: CChar.self) { chars -> Result<OpaquePointer, SQLiteError> in
                guard let start = chars.baseAddress else {
                    return .failure(SQLiteError(code: SQLITE_MISUSE, message: "empty SQL", sql: sql, path: path))
                }
                var statement: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let rc = sqlite3_prepare_v3(db, start, Int32(chars.count), flags, &statement, &tail)
                guard rc == SQLITE_OK else {
                    sqlite3_finalize(statement)
                    return .failure(self.error(rc, sql: sql))
                }
                guard let statement else {
                    return .failure(SQLiteError(code: SQLITE_MISUSE, message: "no SQL statement", sql: sql, path: path))
                }
                if let tail, Self.hasMoreStatements(db: db, tail: tail, end: start + chars.count) {
                    sqlite3_finalize(statement)
                    return .failure(SQLiteError(
                        code: SQLITE_MISUSE, message: "prepare takes one statement; use execute for several",
                        sql: sql, path: path))
                }
                return .success(statement)
            }
        }
        switch outcome {
        case .success(let statement): return SQLiteStatement(statement: statement, sql: sql, connection: handle)
        case .failure(let error): throw error
        }
    }

    /// Whether the text after a prepared statement holds another statement (not just whitespace, `;`s or
    /// comments). Asks SQLite's parser only when something other than whitespace and `;` is left.
    private static func hasMoreStatements(db: OpaquePointer, tail: UnsafePointer<CChar>, end: UnsafePointer<CChar>) -> Bool {
        let remaining = tail.distance(to: end)
        guard remaining > 0 else { return false }
        let rest = UnsafeRawBufferPointer(start: tail, count: remaining)
        let blank = rest.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0x0C || $0 == 0x3B }
        if blank { return false }
        var next: OpaquePointer?
        let rc = sqlite3_prepare_v3(db, tail, Int32(remaining), 0, &next, nil)
        sqlite3_finalize(next)
        // A parse error in the remainder counts as "more": something other than a comment is there.
        return rc != SQLITE_OK || next != nil
    }

    // MARK: Convenience queries

    /// Every row of a query, as values.
    public func rows(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) -> [[SQLiteValue]] {
        let statement = try prepare(sql)
        if !values.isEmpty { try statement.bind(values) }
        return try statement.allRows()
    }

    /// The first column of the first row, or nil when the query returns no rows.
    public func scalar(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) -> SQLiteValue? {
        let statement = try prepare(sql)
        if !values.isEmpty { try statement.bind(values) }
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return statement.value(at: 0)
    }

    // MARK: Settings

    /// How long to retry when another connection holds a lock, before failing with `busy`. Zero or less
    /// turns retrying off.
    public func setBusyTimeout(milliseconds: Int32) {
        guard let db = handle.db else { return }
        sqlite3_busy_timeout(db, milliseconds)
    }

    /// Switches to write-ahead logging and checks that SQLite did (it cannot for `:memory:` databases).
    public func setJournalModeWAL() throws(SQLiteError) {
        let sql = "PRAGMA journal_mode=WAL"
        let mode = try scalar(sql)
        guard case .text(let name)? = mode, name.lowercased() == "wal" else {
            throw SQLiteError(
                code: SQLITE_ERROR, message: "journal_mode is \(mode.map(\.description) ?? "unknown"), not wal",
                sql: sql, path: path)
        }
    }

    /// The first value a pragma returns (`PRAGMA name`), or `.null` when it returns no rows.
    /// `name` may be `schema.pragma`; anything but letters, digits and `_` is rejected.
    public func pragma(_ name: String) throws(SQLiteError) -> SQLiteValue {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        let valid = (1...2).contains(parts.count) && parts.allSatisfy { part in
            guard let first = part.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
            return part.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
        }
        guard valid else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "not a pragma name: \(name)", sql: nil, path: path)
        }
        return try scalar("PRAGMA \(name)") ?? .null
    }

    /// Reads or changes a run-time limit (`sqlite3_limit`); a negative `newValue` only reads.
    /// Returns the previous value.
    @discardableResult
    public func limit(_ id: Int32, _ newValue: Int32 = -1) -> Int32 {
        guard let db = handle.db else { return -1 }
        return sqlite3_limit(db, id, newValue)
    }

    /// Turns `SQLITE_DBCONFIG_DEFENSIVE` on or off (on by default).
    public func setDefensive(_ on: Bool) throws(SQLiteError) {
        let db = try openDB(sql: nil)
        let rc = csqlite_db_config_defensive(db, on ? 1 : 0)
        guard rc == SQLITE_OK else { throw error(rc, sql: nil) }
    }

    // MARK: Schema

    /// Whether a table with this name exists (ASCII case-insensitive, like SQLite's identifiers).
    public func tableExists(_ name: String) throws(SQLiteError) -> Bool {
        let statement = try cachedStatement(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE LIMIT 1")
        defer { statement.reset() }
        try statement.bind(text: name, at: 1)
        return try statement.step()
    }

    /// The table's column names in declaration order; empty when there is no such table.
    public func columnNames(ofTable name: String) throws(SQLiteError) -> [String] {
        let statement = try cachedStatement("SELECT name FROM pragma_table_info(?) ORDER BY cid")
        defer { statement.reset() }
        try statement.bind(text: name, at: 1)
        var names: [String] = []
        while try statement.step() { names.append(statement.text(at: 0)) }
        return names
    }

    /// Runs `PRAGMA quick_check` and returns the problems it reports; empty means the check passed.
    public func quickCheck() throws(SQLiteError) -> [String] {
        let lines = try rows("PRAGMA quick_check").compactMap { $0.first?.textValue }
        return lines == ["ok"] ? [] : lines
    }

    /// `name` as a double-quoted SQL identifier, with embedded quotes doubled.
    public static func quoteIdentifier(_ name: String) -> String {
        "\"" + name.replacing("\"", with: "\"\"") + "\""
    }
}
