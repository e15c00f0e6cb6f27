import CSQLite
import Testing

@testable import SQLiteStorage

/// A value with a short label, so long sample values do not flood the test log.
struct Sample: Sendable, CustomTestStringConvertible {
    let value: SQLiteValue
    var testDescription: String {
        let text = value.description
        return text.count <= 40 ? text : String(text.prefix(37)) + "…"
    }
}

@Suite struct ValueRoundTripTests {
    static let samples: [Sample] = ([
        .null,
        .integer(0), .integer(1), .integer(-1), .integer(.min), .integer(.max),
        .real(0), .real(-0.0), .real(1.5), .real(-2.25e-300), .real(.pi), .real(.greatestFiniteMagnitude),
        .real(.leastNonzeroMagnitude), .real(.infinity), .real(-.infinity), .real(1e15), .real(3),
        .text(""), .text("a"), .text("a\0b"), .text("\0"), .text("\0\0tail"), .text("Ærøskøbing"),
        .text("日本語のテキスト"), .text("👩‍👩‍👧‍👦 family"), .text("e\u{301}"), .text("x' OR 1=1 --"),
        .text(String(repeating: "long ", count: 2000)),
        .blob([]), .blob([0]), .blob([0, 255, 0]), .blob(Array(0...255)),
    ] as [SQLiteValue]).map(Sample.init)

    @Test(arguments: samples)
    func valueRoundTripsThroughATable(_ sample: Sample) throws {
        let value = sample.value
        let db = try valueTable()
        try db.prepare("INSERT INTO t(v) VALUES (?)").run([value])
        let read = try db.scalar("SELECT v FROM t")
        #expect(read.map { identical($0, value) } == true, "wrote \(value), read \(String(describing: read))")
    }

    @Test(arguments: samples)
    func valueRoundTripsThroughASwiftFunction(_ sample: Sample) throws {
        let value = sample.value
        let db = try SQLiteConnection.inMemory()
        try db.registerFunction(name: "identity", argumentCount: 1, deterministic: true) { $0[0] }
        let read = try db.scalar("SELECT identity(?)", [value])
        #expect(read.map { identical($0, value) } == true, "passed \(value), got \(String(describing: read))")
    }

    @Test func textWithNULKeepsEveryByte() throws {
        let db = try valueTable()
        try db.prepare("INSERT INTO t(v) VALUES (?)").run([.text("a\0b")])
        // length() of text stops at the first NUL; the stored bytes are all there.
        #expect(try db.scalar("SELECT length(CAST(v AS BLOB)) FROM t") == .integer(3))
        #expect(try db.scalar("SELECT typeof(v) FROM t") == .text("text"))
        let statement = try db.prepare("SELECT v FROM t")
        #expect(try statement.step())
        #expect(statement.text(at: 0) == "a\0b")
        #expect(statement.blob(at: 0) == [0x61, 0, 0x62])
    }

    @Test func emptyTextAndEmptyBlobAreNotNull() throws {
        let db = try valueTable()
        let insert = try db.prepare("INSERT INTO t(v) VALUES (?)")
        try insert.run([.text("")])
        try insert.run([.blob([])])
        insert.reset()
        try insert.bind(text: "", at: 1)
        try insert.run()
        try insert.bind(blob: [], at: 1)
        try insert.run()
        #expect(try db.rows("SELECT typeof(v), v IS NULL FROM t ORDER BY id") == [
            ["text", 0], ["blob", 0], ["text", 0], ["blob", 0],
        ])
    }

    @Test func fastPathBindsMatchTheEnumPath() throws {
        let db = try SQLiteConnection.inMemory()
        try db.execute("CREATE TABLE f(a, b, c, d, e, g, h)")
        let insert = try db.prepare("INSERT INTO f VALUES (?, ?, ?, ?, ?, ?, ?)")
        try insert.bind(int64: .min, at: 1)
        try insert.bind(double: -0.5, at: 2)
        try insert.bind(text: "Zoë\0!", at: 3)
        try insert.bind(blob: [1, 2, 3], at: 4)
        try insert.bind(null: 5)
        try insert.bind(int: 42, at: 6)
        try insert.bind(bool: true, at: 7)
        try insert.run()
        let select = try db.prepare("SELECT * FROM f")
        #expect(try select.step())
        #expect(select.columnCount == 7)
        #expect(select.columnName(at: 2) == "c")
        #expect(select.int64(at: 0) == .min)
        #expect(select.double(at: 1) == -0.5)
        #expect(select.text(at: 2) == "Zoë\0!")
        #expect(select.blob(at: 3) == [1, 2, 3])
        #expect(select.isNull(at: 4))
        #expect(select.int(at: 5) == 42)
        #expect(select.int64(at: 6) == 1)
        #expect(select.values() == [.integer(.min), .real(-0.5), .text("Zoë\0!"), .blob([1, 2, 3]), .null, 42, 1])
        #expect(try select.step() == false)
    }

    @Test func randomValuesRoundTrip() throws {
        var random = SeededGenerator(seed: 0x5EED_0B1E_C7)
        let values = (0..<2000).map { _ in random.value() }
        let db = try valueTable()
        try db.transaction(.immediate) {
            for value in values {
                let insert = try db.cachedStatement("INSERT INTO t(v) VALUES (?)")
                try insert.bind(value, at: 1)
                try insert.run()
            }
        }
        let select = try db.prepare("SELECT v, typeof(v) FROM t ORDER BY id")
        var index = 0
        try select.forEachRow { row in
            let expected = values[index]
            let read = row.value(at: 0)
            #expect(identical(read, expected), "row \(index): wrote \(expected), read \(read)")
            let type: String =
                switch expected {
                case .null: "null"
                case .integer: "integer"
                case .real: "real"
                case .text: "text"
                case .blob: "blob"
                }
            #expect(row.text(at: 1) == type)
            index += 1
        }
        #expect(index == values.count)
    }

    @Test func invalidUTF8IsReadWithReplacementCharacters() throws {
        let db = try valueTable()
        try db.prepare("INSERT INTO t(v) VALUES (CAST(? AS TEXT))").run([.blob([0x61, 0xFF, 0x62])])
        #expect(try db.scalar("SELECT v FROM t") == .text("a\u{FFFD}b"))
    }
}
