import Testing

@testable import SQLiteStorage

/// Text bound through a statement's scratch space (no copy by SQLite) must store exactly what copied
/// binding stores, row after row, also when the scratch outgrows its buffer.
@Suite struct ScratchBindingTests {
    static let texts: [String] = [
        "", "a", "Ada", "Underwood123", "ada.12345@example.org", "nul\u{0}inside", "東京 · Zoë", "cafe\u{301}",
        String(repeating: "long text ", count: 300),  // beyond the first buffer: a new one is added
        String(repeating: "x", count: SQLiteStatement.scratchTextLimit + 1),  // copied by SQLite instead
    ]

    @Test func scratchBoundTextRoundTripsLikeCopiedText() throws {
        let db = try SQLiteConnection.inMemory()
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, a, b, c)")
        let insert = try db.cachedStatement("INSERT INTO t(id, a, b, c) VALUES (?, ?, ?, ?)")
        var expected: [[SQLiteValue]] = []
        try db.transaction {
            for (row, text) in Self.texts.enumerated() {
                let other = Self.texts[(row + 3) % Self.texts.count]
                insert.prepareForScratchBinding()
                try insert.bind(int64: Int64(row), at: 1)
                try insert.bind(textInScratch: text, at: 2)
                try insert.bind(.text(other), inScratchAt: 3)
                try insert.bind(.integer(Int64(row) * 7), inScratchAt: 4)
                try insert.run()
                expected.append([.integer(Int64(row)), .text(text), .text(other), .integer(Int64(row) * 7)])
            }
        }
        let rows = try db.prepare("SELECT id, a, b, c FROM t ORDER BY id").allRows()
        #expect(rows == expected)
        // Bytes, not just `==` (which equates canonically equivalent spellings).
        let stored = try db.prepare("SELECT hex(a) FROM t ORDER BY id").allRows()
        let copied = Self.texts.map { text in
            SQLiteValue.text(text.utf8.map { byte in String(byte, radix: 16, uppercase: true) }
                .map { $0.count == 1 ? "0" + $0 : $0 }.joined())
        }
        #expect(stored.map(\.[0]) == copied)
    }

    @Test func preparingForScratchBindingClearsEveryParameter() throws {
        let db = try SQLiteConnection.inMemory()
        let select = try db.cachedStatement("SELECT ?, ?")
        try select.bind(textInScratch: "kept until cleared", at: 1)
        try select.bind(int64: 5, at: 2)
        #expect(try select.allRows() == [[.text("kept until cleared"), .integer(5)]])
        // Bindings survive a reset (as copied ones do) and still read the same bytes.
        select.reset()
        #expect(try select.allRows() == [[.text("kept until cleared"), .integer(5)]])
        select.prepareForScratchBinding()
        #expect(try select.allRows() == [[.null, .null]])
    }
}
