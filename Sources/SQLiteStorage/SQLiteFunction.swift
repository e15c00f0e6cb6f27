import CSQLite

/// Keeps a Swift function alive for as long as SQLite holds it; released by SQLite's destructor callback.
private final class FunctionBox {
    let body: @Sendable ([SQLiteValue]) -> SQLiteValue

    init(_ body: @escaping @Sendable ([SQLiteValue]) -> SQLiteValue) {
        self.body = body
    }
}

extension SQLiteConnection {
    /// Registers a scalar SQL function implemented in Swift, replacing any earlier one with the same name
    /// and argument count. `argumentCount` -1 accepts any number of arguments.
    ///
    /// `deterministic` lets SQLite's planner treat the function as pure (required to use it in indexes,
    /// CHECK constraints and generated columns); `innocuous` marks it safe to run from the schema when
    /// `trusted_schema` is off. A `.real(.nan)` result becomes NULL (as in SQLite's own math functions);
    /// a result over `SQLITE_LIMIT_LENGTH` fails the statement with `tooBig`.
    public func registerFunction(
        name: String, argumentCount: Int32, deterministic: Bool, innocuous: Bool = false,
        _ body: @escaping @Sendable ([SQLiteValue]) -> SQLiteValue
    ) throws(SQLiteError) {
        try createFunction(name: name, argumentCount: argumentCount, deterministic: deterministic,
            innocuous: innocuous, context: Unmanaged.passRetained(FunctionBox(body)).toOpaque(),
            call: callSwiftFunction, release: releaseSwiftFunction)
    }

    /// Registers the C entry point `call` as the scalar function `name`, with `context` (a retained box that
    /// `release` lets go of) as its user data. SQLite calls `release` itself when registration fails.
    func createFunction(
        name: String, argumentCount: Int32, deterministic: Bool, innocuous: Bool = false,
        context: UnsafeMutableRawPointer,
        call: @escaping @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void,
        release: @escaping @convention(c) (UnsafeMutableRawPointer?) -> Void
    ) throws(SQLiteError) {
        let db: OpaquePointer
        do {
            db = try openDB(sql: nil)
        } catch {
            release(context)
            throw error
        }
        var flags = SQLITE_UTF8
        if deterministic { flags |= SQLITE_DETERMINISTIC }
        if innocuous { flags |= SQLITE_INNOCUOUS }
        let rc = sqlite3_create_function_v2(db, name, argumentCount, flags, context, call, nil, nil, release)
        guard rc == SQLITE_OK else {
            var failure = error(rc, sql: nil)
            failure.message += " (registering function \(name)/\(argumentCount))"
            throw failure
        }
    }
}

private func releaseSwiftFunction(_ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<FunctionBox>.fromOpaque(context).release()
}

private func callSwiftFunction(
    _ context: OpaquePointer?, _ argc: Int32, _ argv: UnsafeMutablePointer<OpaquePointer?>?
) {
    guard let context else { return }
    guard let raw = sqlite3_user_data(context) else {
        sqlite3_result_error(context, "missing function context", -1)
        return
    }
    let box = Unmanaged<FunctionBox>.fromOpaque(raw).takeUnretainedValue()
    var arguments: [SQLiteValue] = []
    arguments.reserveCapacity(Int(max(argc, 0)))
    for i in 0..<Int(max(argc, 0)) {
        arguments.append(SQLiteValue(argument: argv?[i]))
    }
    switch box.body(arguments) {
    case .null:
        sqlite3_result_null(context)
    case .integer(let v):
        sqlite3_result_int64(context, v)
    case .real(let v):
        if v.isNaN { sqlite3_result_null(context) } else { sqlite3_result_double(context, v) }
    case .text(var v):
        v.withUTF8 { utf8 in
            guard let base = utf8.baseAddress, !utf8.isEmpty else {
                csqlite_result_text64_transient(context, "", 0)
                return
            }
            base.withMemoryRebound(to: CChar.self, capacity: utf8.count) { chars in
                csqlite_result_text64_transient(context, chars, UInt64(utf8.count))
            }
        }
    case .blob(let v):
        v.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                sqlite3_result_zeroblob(context, 0)
                return
            }
            csqlite_result_blob64_transient(context, base, UInt64(bytes.count))
        }
    }
}

extension SQLiteValue {
    /// Reads an `sqlite3_value*` (a function argument) in its own storage class; NUL-safe for text.
    init(argument: OpaquePointer?) {
        guard let argument else {
            self = .null
            return
        }
        switch sqlite3_value_type(argument) {
        case SQLITE_INTEGER:
            self = .integer(sqlite3_value_int64(argument))
        case SQLITE_FLOAT:
            self = .real(sqlite3_value_double(argument))
        case SQLITE3_TEXT:
            guard let chars = sqlite3_value_text(argument) else {
                self = .text("")
                return
            }
            let count = Int(sqlite3_value_bytes(argument))
            self = .text(String(decoding: UnsafeBufferPointer(start: chars, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            guard let bytes = sqlite3_value_blob(argument) else {
                self = .blob([])
                return
            }
            let count = Int(sqlite3_value_bytes(argument))
            self = .blob([UInt8](UnsafeRawBufferPointer(start: bytes, count: count)))
        default:
            self = .null
        }
    }
}
