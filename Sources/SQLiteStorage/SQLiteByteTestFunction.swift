import CSQLite

/// Keeps a byte-test function alive for as long as SQLite holds it.
private final class ByteTestBox {
    let test: @Sendable (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>, Int64) -> Bool

    init(_ test: @escaping @Sendable (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>, Int64) -> Bool) {
        self.test = test
    }
}

extension SQLiteConnection {
    /// Registers a three-argument SQL function `name(text, needle, mode)` that answers 1 or 0 from the UTF-8
    /// bytes of two text arguments and an integer, without converting anything to Swift values.
    ///
    /// It returns NULL when `text` or `needle` is NULL and 0 when either is not text (or `mode` is not an
    /// integer), so it can stand where a comparison of folded text stood. Built for tests run on every row of
    /// a scan — a case-insensitive `CONTAINS` — where making a folded copy of each value for SQLite to
    /// search would cost more than the search.
    public func registerByteTest(
        name: String, deterministic: Bool,
        _ test: @escaping @Sendable (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>, Int64) -> Bool
    ) throws(SQLiteError) {
        try createFunction(name: name, argumentCount: 3, deterministic: deterministic,
            context: Unmanaged.passRetained(ByteTestBox(test)).toOpaque(), call: callByteTest,
            release: releaseByteTest)
    }
}

private func releaseByteTest(_ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<ByteTestBox>.fromOpaque(context).release()
}

private func callByteTest(_ context: OpaquePointer?, _ argc: Int32, _ argv: UnsafeMutablePointer<OpaquePointer?>?) {
    guard let context, argc == 3, let text = argv?[0], let needle = argv?[1], let mode = argv?[2] else { return }
    let textType = sqlite3_value_type(text), needleType = sqlite3_value_type(needle)
    if textType == SQLITE_NULL || needleType == SQLITE_NULL {
        sqlite3_result_null(context)
        return
    }
    guard textType == SQLITE3_TEXT, needleType == SQLITE3_TEXT, sqlite3_value_type(mode) == SQLITE_INTEGER else {
        sqlite3_result_int(context, 0)
        return
    }
    guard let raw = sqlite3_user_data(context) else {
        sqlite3_result_error(context, "missing function context", -1)
        return
    }
    let box = Unmanaged<ByteTestBox>.fromOpaque(raw).takeUnretainedValue()
    let holds = box.test(bytes(of: text), bytes(of: needle), sqlite3_value_int64(mode))
    sqlite3_result_int(context, holds ? 1 : 0)
}

/// The UTF-8 bytes of a text value (SQLite keeps them valid until the value changes).
private func bytes(of value: OpaquePointer) -> UnsafeBufferPointer<UInt8> {
    let start = sqlite3_value_text(value)
    let count = Int(sqlite3_value_bytes(value))
    return UnsafeBufferPointer(start: start, count: start == nil ? 0 : count)
}
