/// One column of a statement's current row, read in place: its storage class and its payload, with text
/// and blob bytes still inside SQLite.
///
/// What ``SQLiteStatement/columnValue(at:)`` returns, for callers that turn a column into their own
/// value type and would otherwise build a ``SQLiteValue`` (a `String` or `[UInt8]` copy) only to convert
/// it. Reading a column this way costs one `sqlite3_column_value` call and no copy.
///
/// The pointers stay valid only until the statement steps, resets or is finalized, and only on the
/// statement's thread: copy what you keep (`String(decoding:as:)`, `Data(_:)`) before moving on.
public enum SQLiteColumnValue {
    /// SQL NULL (also an out-of-range column, or a finalized statement).
    case null
    /// An INTEGER.
    case integer(Int64)
    /// A REAL.
    case real(Double)
    /// TEXT as its UTF-8 bytes, exactly `sqlite3_value_bytes` of them (NUL characters included; not
    /// validated).
    case text(UnsafeBufferPointer<UInt8>)
    /// A BLOB's bytes (empty for an empty blob).
    case blob(UnsafeRawBufferPointer)
}
