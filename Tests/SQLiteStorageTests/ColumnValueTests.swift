import Testing

@testable import SQLiteStorage

/// `columnValue(at:)` reads a column in place; it must answer exactly as `value(at:)` does.
@Suite struct ColumnValueTests {
    /// The column value copied out, for comparing with `value(at:)`.
    private func copied(_ column: SQLiteColumnValue) -> SQLiteValue {
        switch column {
        case .null: .null
        case .integer(let value): .integer(value)
        case .real(let value): .real(value)
        case .text(let utf8): .text(String(decoding: utf8, as: UTF8.self))
        case .blob(let bytes): .blob([UInt8](bytes))
        }
    }

    @Test(arguments: ValueRoundTripTests.samples)
    func columnValueAgreesWithValue(_ sample: Sample) throws {
        let db = try valueTable()
        let insert = try db.prepare("INSERT INTO t(v) VALUES (?)")
        try insert.bind(sample.value, at: 1)
        try insert.run()
        let select = try db.prepare("SELECT v FROM t")
        #expect(try select.step())
        let general = select.value(at: 0)
        #expect(identical(copied(select.columnValue(at: 0)), general))
        #expect(identical(general, sample.value))
    }

    @Test func randomValuesAgree() throws {
        var random = SeededGenerator(seed: 0xC0_1A_77)
        let values = (0..<500).map { _ in random.value() }
        let db = try valueTable()
        try db.transaction(.immediate) {
            let insert = try db.cachedStatement("INSERT INTO t(v) VALUES (?)")
            for value in values {
                try insert.bind(value, at: 1)
                try insert.run()
            }
        }
        let select = try db.prepare("SELECT v FROM t ORDER BY id")
        var index = 0
        try select.forEachRow { row in
            // In place first, then the general read, then in place again: reading never converts the column.
            let before = copied(row.columnValue(at: 0))
            let general = row.value(at: 0)
            #expect(identical(before, general), "row \(index)")
            #expect(identical(copied(row.columnValue(at: 0)), general), "row \(index)")
            index += 1
        }
        #expect(index == values.count)
    }

    @Test func invalidUTF8AndOutOfRangeColumnsReadAsValueDoes() throws {
        let db = try valueTable()
        try db.execute("INSERT INTO t(v) VALUES (CAST(X'61FF62C3' AS TEXT))")
        let select = try db.prepare("SELECT v FROM t")
        #expect(try select.step())
        #expect(identical(copied(select.columnValue(at: 0)), select.value(at: 0)))
        #expect(select.value(at: 0) == .text("a\u{FFFD}b\u{FFFD}"))
        #expect(copied(select.columnValue(at: 7)) == .null)
        #expect(copied(select.columnValue(at: -1)) == .null)
        select.finalize()
        #expect(copied(select.columnValue(at: 0)) == .null)
    }
}
