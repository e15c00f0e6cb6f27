import CSQLite

/// A compiled SQL statement. Not thread-safe: use it on the thread that owns its connection.
///
/// Every bind checks SQLite's result code (a value over `SQLITE_LIMIT_LENGTH` throws
/// ``SQLiteError/tooBig`` instead of leaving the parameter NULL). Text is bound and read with explicit
/// byte lengths, so strings with NUL characters survive the round trip.
///
/// Column accessors follow SQLite's conversion rules (`int64(at:)` of a NULL is 0, and so on) and read
/// the current row; an out-of-range column reads as NULL.
public final class SQLiteStatement {
    /// The SQL text this statement was compiled from.
    public let sql: String

    private var statement: OpaquePointer?
    private let connection: ConnectionHandle
    /// Bytes bound without a copy by ``bind(textInScratch:at:)``; made on first use, freed after `finalize`
    /// (the statement's `deinit` finalizes before its properties go).
    var scratch: BindingScratch?

    init(statement: OpaquePointer, sql: String, connection: ConnectionHandle) {
        self.statement = statement
        self.sql = sql
        self.connection = connection
    }

    deinit {
        finalize()
    }

    /// Releases the compiled statement; later calls throw a `misuse` error.
    func finalize() {
        guard let statement else { return }
        sqlite3_finalize(statement)
        self.statement = nil
    }

    /// The raw `sqlite3_stmt*`, for C calls this wrapper does not cover. Nil once finalized or closed.
    public var rawHandle: OpaquePointer? {
        connection.db == nil ? nil : statement
    }

    @inline(__always)
    func live() throws(SQLiteError) -> OpaquePointer {
        guard let statement, connection.db != nil else {
            throw SQLiteError.closed(sql: sql, path: connection.path)
        }
        return statement
    }

    @inline(__always)
    func check(_ rc: Int32) throws(SQLiteError) {
        guard rc == SQLITE_OK else { throw bindError(rc) }
    }

    private func bindError(_ rc: Int32) -> SQLiteError {
        var error = SQLiteError(resultCode: rc, db: connection.db, sql: sql, path: connection.path)
        if rc == SQLITE_MISUSE, let statement, sqlite3_stmt_busy(statement) != 0 {
            error.message = "cannot bind while the statement is running; reset it first"
        }
        return error
    }

    // MARK: Binding

    /// The number of `?`, `?NNN`, `:name`, `@name` and `$name` parameters (the largest index).
    public var parameterCount: Int32 {
        guard let statement else { return 0 }
        return sqlite3_bind_parameter_count(statement)
    }

    /// The index of a named parameter, including its prefix (`":name"`), or nil when there is none.
    public func parameterIndex(named name: String) -> Int32? {
        guard let statement else { return nil }
        let index = sqlite3_bind_parameter_index(statement, name)
        return index == 0 ? nil : index
    }

    /// Binds `value` to the 1-based parameter `index`.
    public func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        switch value {
        case .null: try bind(null: index)
        case .integer(let v): try bind(int64: v, at: index)
        case .real(let v): try bind(double: v, at: index)
        case .text(let v): try bind(text: v, at: index)
        case .blob(let v): try bind(blob: v, at: index)
        }
    }

    /// Binds `values` to parameters 1...n. The count must equal ``parameterCount`` (`range` error
    /// otherwise), so a forgotten argument is never silently NULL.
    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        let expected = parameterCount
        guard values.count == Int(expected) else {
            throw SQLiteError(
                code: SQLITE_RANGE, message: "the statement takes \(expected) arguments, not \(values.count)",
                sql: sql, path: connection.path)
        }
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    public func bind(null index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_null(try live(), index))
    }

    public func bind(int64 value: Int64, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_int64(try live(), index, value))
    }

    public func bind(int value: Int, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_int64(try live(), index, Int64(value)))
    }

    public func bind(bool value: Bool, at index: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_int64(try live(), index, value ? 1 : 0))
    }

    /// Binds a double. NaN is refused with a `mismatch` error: SQLite would store it as NULL.
    public func bind(double value: Double, at index: Int32) throws(SQLiteError) {
        let statement = try live()
        guard !value.isNaN else {
            throw SQLiteError(
                code: SQLITE_MISMATCH, message: "NaN cannot be stored (SQLite would store NULL) at parameter \(index)",
                sql: sql, path: connection.path)
        }
        try check(sqlite3_bind_double(statement, index, value))
    }

    /// Binds text with its exact UTF-8 byte length (SQLite copies it).
    public func bind(text value: String, at index: Int32) throws(SQLiteError) {
        let statement = try live()
        var value = value
        let rc = value.withUTF8 { utf8 -> Int32 in
            guard let base = utf8.baseAddress, !utf8.isEmpty else {
                // A NULL pointer would bind SQL NULL; an empty string must stay an empty string.
                return csqlite_bind_text64_transient(statement, index, "", 0)
            }
            return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) { chars in
                csqlite_bind_text64_transient(statement, index, chars, UInt64(utf8.count))
            }
        }
        try check(rc)
    }

    /// Binds a blob (SQLite copies it). An empty array binds an empty blob, not NULL.
    public func bind(blob value: [UInt8], at index: Int32) throws(SQLiteError) {
        let statement = try live()
        let rc = value.withUnsafeBytes { bytes -> Int32 in
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                return sqlite3_bind_zeroblob(statement, index, 0)
            }
            return csqlite_bind_blob64_transient(statement, index, base, UInt64(bytes.count))
        }
        try check(rc)
    }

    /// Binds raw bytes as a blob (SQLite copies them).
    public func bind(bytes: UnsafeRawBufferPointer, at index: Int32) throws(SQLiteError) {
        let statement = try live()
        let rc: Int32
        if let base = bytes.baseAddress, !bytes.isEmpty {
            rc = csqlite_bind_blob64_transient(statement, index, base, UInt64(bytes.count))
        } else {
            rc = sqlite3_bind_zeroblob(statement, index, 0)
        }
        try check(rc)
    }

    /// Sets every parameter back to NULL.
    public func clearBindings() {
        guard let statement else { return }
        sqlite3_clear_bindings(statement)
    }

    // MARK: Stepping

    /// Advances to the next row: true when a row is available, false when the statement is done.
    /// A finished statement is reset at once (bindings kept), so it can be bound and run again; stepping
    /// it again runs it again.
    public func step() throws(SQLiteError) -> Bool {
        let statement = try live()
        let rc = sqlite3_step(statement)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE {
            sqlite3_reset(statement)
            return false
        }
        throw SQLiteError(resultCode: rc, db: connection.db, sql: sql, path: connection.path)
    }

    /// Resets, binds `values` (when not empty; otherwise keeps the current bindings), steps until done,
    /// and resets again. Rows are discarded.
    public func run(_ values: [SQLiteValue] = []) throws(SQLiteError) {
        let statement = try live()
        sqlite3_reset(statement)
        defer { sqlite3_reset(statement) }
        if !values.isEmpty { try bind(values) }
        while try step() {}
    }

    /// Rewinds the statement so it can run again; bindings are kept. Ends the read this statement had
    /// open. (The code `sqlite3_reset` returns repeats the last `step` error, already thrown there.)
    public func reset() {
        guard let statement else { return }
        sqlite3_reset(statement)
    }

    /// Steps until done, calling `body` for each row. If `body` throws, the statement is reset (so it does
    /// not keep a read open) and the error is rethrown.
    public func forEachRow(_ body: (SQLiteStatement) throws -> Void) throws {
        while try step() {
            do {
                try body(self)
            } catch {
                reset()
                throw error
            }
        }
    }

    /// Steps until done, collecting every row's values.
    public func allRows() throws(SQLiteError) -> [[SQLiteValue]] {
        var rows: [[SQLiteValue]] = []
        let count = columnCount
        while try step() {
            var row: [SQLiteValue] = []
            row.reserveCapacity(Int(count))
            for column in 0..<count { row.append(value(at: column)) }
            rows.append(row)
        }
        return rows
    }

    // MARK: Columns

    public var columnCount: Int32 {
        guard let statement else { return 0 }
        return sqlite3_column_count(statement)
    }

    /// The name SQLite gives the result column (its `AS` name when there is one).
    public func columnName(at index: Int32) -> String {
        guard let statement, let name = sqlite3_column_name(statement, index) else { return "" }
        return String(cString: name)
    }

    /// The storage class of the column in the current row: `SQLITE_INTEGER`, `SQLITE_FLOAT`,
    /// `SQLITE_TEXT`, `SQLITE_BLOB` or `SQLITE_NULL`.
    public func columnType(at index: Int32) -> Int32 {
        guard let statement else { return SQLITE_NULL }
        return sqlite3_column_type(statement, index)
    }

    public func isNull(at index: Int32) -> Bool {
        columnType(at: index) == SQLITE_NULL
    }

    public func int64(at index: Int32) -> Int64 {
        guard let statement else { return 0 }
        return sqlite3_column_int64(statement, index)
    }

    public func int(at index: Int32) -> Int {
        Int(truncatingIfNeeded: int64(at: index))
    }

    public func double(at index: Int32) -> Double {
        guard let statement else { return 0 }
        return sqlite3_column_double(statement, index)
    }

    /// The column as text, decoded from exactly `sqlite3_column_bytes` bytes: NUL characters are kept and
    /// invalid UTF-8 becomes U+FFFD. NULL reads as "".
    public func text(at index: Int32) -> String {
        guard let statement, let chars = sqlite3_column_text(statement, index) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, index))
        return String(decoding: UnsafeBufferPointer(start: chars, count: count), as: UTF8.self)
    }

    /// The column as bytes. NULL and empty blobs read as [].
    public func blob(at index: Int32) -> [UInt8] {
        guard let statement, let bytes = sqlite3_column_blob(statement, index) else { return [] }
        let count = Int(sqlite3_column_bytes(statement, index))
        return [UInt8](UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// The column in its own storage class.
    public func value(at index: Int32) -> SQLiteValue {
        switch columnType(at: index) {
        case SQLITE_INTEGER: .integer(int64(at: index))
        case SQLITE_FLOAT: .real(double(at: index))
        case SQLITE3_TEXT: .text(text(at: index))
        case SQLITE_BLOB: .blob(blob(at: index))
        default: .null
        }
    }

    /// The column in its own storage class, read in place (see ``SQLiteColumnValue``: its bytes are valid
    /// only until the statement moves on). Answers as ``value(at:)`` does, without copying text or blobs.
    public func columnValue(at index: Int32) -> SQLiteColumnValue {
        // One sqlite3_column_* call; the sqlite3_value_* reads that follow are plain field loads. The value is
        // "unprotected" (no mutex), which is what this connection's multi-thread mode means anyway.
        guard let statement, let value = sqlite3_column_value(statement, index) else { return .null }
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT:
            return .real(sqlite3_value_double(value))
        case SQLITE3_TEXT:
            // Text first, then its length (SQLite's advice: the length is of the converted form).
            let chars = sqlite3_value_text(value)
            let count = chars == nil ? 0 : Int(sqlite3_value_bytes(value))
            return .text(UnsafeBufferPointer(start: chars, count: count))
        case SQLITE_BLOB:
            let bytes = sqlite3_value_blob(value)
            let count = bytes == nil ? 0 : Int(sqlite3_value_bytes(value))
            return .blob(UnsafeRawBufferPointer(start: bytes, count: count))
        default:
            return .null
        }
    }

    /// Every column of the current row.
    public func values() -> [SQLiteValue] {
        (0..<columnCount).map { value(at: $0) }
    }
}
