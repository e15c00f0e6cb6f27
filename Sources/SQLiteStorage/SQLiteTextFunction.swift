import CSQLite

/// Keeps a text-mapping function alive for as long as SQLite holds it.
private final class TextFunctionBox {
    let map: @Sendable (UnsafeBufferPointer<UInt8>, (UnsafeBufferPointer<UInt8>) -> Void) -> Void

    init(_ map: @escaping @Sendable (UnsafeBufferPointer<UInt8>, (UnsafeBufferPointer<UInt8>) -> Void) -> Void) {
        self.map = map
    }
}

extension SQLiteConnection {
    /// Registers a one-argument SQL function that maps text to text, working on SQLite's own UTF-8 bytes:
    /// `map` reads the argument's bytes and hands its result's bytes to the function it is given (exactly
    /// once), which SQLite copies. Arguments that are not text come back unchanged.
    ///
    /// Unlike ``registerFunction(name:argumentCount:deterministic:innocuous:_:)`` nothing is converted to
    /// Swift values, so a function called for every row of a scan (case folding in a filter) can run without
    /// allocating when its answer fits a stack buffer.
    public func registerTextFunction(
        name: String, deterministic: Bool,
        _ map: @escaping @Sendable (UnsafeBufferPointer<UInt8>, (UnsafeBufferPointer<UInt8>) -> Void) -> Void
    ) throws(SQLiteError) {
        try createFunction(name: name, argumentCount: 1, deterministic: deterministic,
            context: Unmanaged.passRetained(TextFunctionBox(map)).toOpaque(), call: callTextFunction,
            release: releaseTextFunction)
    }
}

private func releaseTextFunction(_ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<TextFunctionBox>.fromOpaque(context).release()
}

private func callTextFunction(_ context: OpaquePointer?, _ argc: Int32, _ argv: UnsafeMutablePointer<OpaquePointer?>?) {
    guard let context, argc == 1, let argument = argv?[0] else { return }
    guard sqlite3_value_type(argument) == SQLITE3_TEXT else {
        sqlite3_result_value(context, argument)
        return
    }
    guard let raw = sqlite3_user_data(context) else {
        sqlite3_result_error(context, "missing function context", -1)
        return
    }
    let box = Unmanaged<TextFunctionBox>.fromOpaque(raw).takeUnretainedValue()
    let chars = sqlite3_value_text(argument)
    let count = Int(sqlite3_value_bytes(argument))
    let bytes = UnsafeBufferPointer(start: chars, count: chars == nil ? 0 : count)
    box.map(bytes) { result in
        guard let base = result.baseAddress, !result.isEmpty else {
            csqlite_result_text64_transient(context, "", 0)
            return
        }
        base.withMemoryRebound(to: CChar.self, capacity: result.count) { text in
            csqlite_result_text64_transient(context, text, UInt64(result.count))
        }
    }
}
