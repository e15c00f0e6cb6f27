import CSQLiteRaw
import Foundation

/// SQLite's "transient" destructor: SQLite copies the bound text (a Swift string's C form is temporary).
nonisolated(unsafe) let sqliteTransient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// What went wrong in a raw baseline.
public struct RawSQLiteError: Error, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}

/// A bare SQLite connection for the baselines: the C API with nothing between it and the caller.
public final class RawConnection {
    let db: OpaquePointer

    /// Opens `path` read-write with the settings ObjectGraph's SQLite store uses (WAL, synchronous FULL).
    public init(path: String, synchronous: String = "FULL") throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK,
            let handle
        else { throw RawSQLiteError(description: "cannot open \(path)") }
        db = handle
        sqlite3_busy_timeout(db, 10_000)
        try exec("PRAGMA journal_mode=WAL")
        try exec("PRAGMA synchronous=\(synchronous)")
    }

    deinit { sqlite3_close_v2(db) }

    /// Runs SQL without results.
    public func exec(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        if sqlite3_exec(db, sql, nil, nil, &message) != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? "?"
            sqlite3_free(message)
            throw RawSQLiteError(description: "\(sql): \(text)")
        }
    }

    /// A prepared statement.
    public func prepare(_ sql: String) throws -> RawStatement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw RawSQLiteError(description: "\(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
        return RawStatement(statement)
    }

    /// The first column of the first row of `sql` as an integer.
    public func int(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        guard statement.step() else { throw RawSQLiteError(description: "\(sql): no row") }
        return statement.int(0)
    }
}

/// A prepared statement.
public final class RawStatement {
    let handle: OpaquePointer
    init(_ handle: OpaquePointer) { self.handle = handle }
    deinit { sqlite3_finalize(handle) }

    public func bind(_ value: Int64, at index: Int32) { sqlite3_bind_int64(handle, index, value) }
    public func bind(_ value: Double, at index: Int32) { sqlite3_bind_double(handle, index, value) }
    public func bind(_ value: String, at index: Int32) { sqlite3_bind_text(handle, index, value, -1, sqliteTransient) }
    public func bindNull(at index: Int32) { sqlite3_bind_null(handle, index) }

    /// Steps once: true while there is a row.
    @discardableResult
    public func step() -> Bool { sqlite3_step(handle) == SQLITE_ROW }

    /// Resets for the next run (bindings kept).
    public func reset() { sqlite3_reset(handle) }

    public func int(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    public func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    public func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, column) else { return "" }
        return String(cString: pointer)
    }
}
