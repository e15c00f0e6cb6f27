import CSQLite

extension SQLiteStatement {
    /// Texts up to this many bytes go through the scratch space; longer ones are copied by SQLite as usual
    /// (the copy is then a small part of the cost, and the scratch stays small).
    static let scratchTextLimit = 4096

    /// Clears every parameter binding and reuses the statement's scratch space: call it before binding the
    /// parameters of each run that binds with ``bind(textInScratch:at:)`` or ``bind(_:inScratchAt:)``.
    ///
    /// Bindings made through the scratch point into memory the statement owns, so they stay valid for as
    /// long as they are bound; clearing them first is what makes reusing that memory safe.
    public func prepareForScratchBinding() {
        guard let handle = rawHandle else { return }
        sqlite3_clear_bindings(handle)
        scratch?.recycle()
    }

    /// Binds text (its exact UTF-8 bytes, as ``bind(text:at:)``) without SQLite allocating a copy: the bytes
    /// are copied once into the statement's scratch space and bound `SQLITE_STATIC`. They stay bound and valid
    /// until the next ``prepareForScratchBinding()``, ``clearBindings()`` or rebinding of the parameter.
    public func bind(textInScratch value: String, at index: Int32) throws(SQLiteError) {
        let statement = try live()
        let rc = value.utf8.withContiguousStorageIfAvailable { utf8 -> Int32? in
            guard utf8.count <= Self.scratchTextLimit else { return nil }
            let space = scratch ?? BindingScratch()
            scratch = space
            let stored = space.store(UnsafeRawBufferPointer(utf8))
            return sqlite3_bind_text64(
                statement, index, stored.assumingMemoryBound(to: CChar.self), UInt64(utf8.count), nil,
                UInt8(SQLITE_UTF8))
        } ?? nil
        guard let rc else { return try bind(text: value, at: index) }
        try check(rc)
    }

    /// Binds `value` as ``bind(_:at:)`` does, text through the scratch space (``bind(textInScratch:at:)``).
    public func bind(_ value: SQLiteValue, inScratchAt index: Int32) throws(SQLiteError) {
        if case .text(let text) = value {
            try bind(textInScratch: text, at: index)
        } else {
            try bind(value, at: index)
        }
    }
}
