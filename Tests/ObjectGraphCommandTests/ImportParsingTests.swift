import Foundation
import ObjectGraph
import Testing
@testable import ObjectGraphCommand

/// The import readers and value conversion, in process.
@Suite("import parsing")
struct ImportParsingTests {
    private func csv(_ text: String) throws -> [[String]] {
        try CSVReader.parse(Data(text.utf8)).map { $0.fields.map(\.text) }
    }

    @Test("CSV: quoted commas, doubled quotes, quoted newlines, CRLF, empty fields and lines")
    func csvRecords() throws {
        #expect(try csv("a,b\r\n1,2\r\n") == [["a", "b"], ["1", "2"]])
        #expect(try csv("a,b\n\"x, y\",\"say \"\"hi\"\"\"\n") == [["a", "b"], ["x, y", "say \"hi\""]])
        #expect(try csv("a\n\"one\ntwo\"\n") == [["a"], ["one\ntwo"]])
        #expect(try csv("a,b,c\n,,\n") == [["a", "b", "c"], ["", "", ""]])
        #expect(try csv("a,b\n1,\n") == [["a", "b"], ["1", ""]])
        #expect(try csv("a,b\n1,") == [["a", "b"], ["1", ""]])
        #expect(try csv("a\n\n1\n\n") == [["a"], ["1"]], "empty lines are skipped")
        #expect(try csv("\u{FEFF}a\n1") == [["a"], ["1"]], "a byte-order mark is ignored")
        #expect(try csv("a\r1\r") == [["a"], ["1"]], "bare CR ends records too")
        let records = try CSVReader.parse(Data("h\n\"x\ny\"\nz\n".utf8))
        #expect(records.map(\.line) == [1, 2, 4], "a record's line is where it starts")
        #expect(try CSVReader.parse(Data("a,\"\"\n".utf8)).first?.fields.map(\.quoted) == [false, true])
    }

    @Test("CSV errors say what and where")
    func csvErrors() {
        #expect(throws: CSVReadError(message: "unterminated quoted field (opened here)", line: 2, column: 3)) {
            try CSVReader.parse(Data("a,b\n1,\"open\n".utf8))
        }
        #expect(throws: CSVReadError.self) { try CSVReader.parse(Data("a\n\"x\"y\n".utf8)) }
        #expect(throws: CSVReadError.self) { try CSVReader.parse(Data("a\nx\"y\n".utf8)) }
    }

    @Test("JSON: numbers keep their text, Booleans stay apart from numbers, escapes decode")
    func jsonValues() throws {
        let value = try JSONReader.parse(Data(#"[{"a": 12.50, "b": true, "c": 1, "d": "\u00e9\ud83d\ude00\n", "e": null}]"#.utf8))
        guard case .array(let rows) = value, case .object(let members) = rows.first else {
            Issue.record("not an array of objects: \(value)")
            return
        }
        #expect(members.map(\.key) == ["a", "b", "c", "d", "e"])
        #expect(members.map(\.value) == [.number("12.50"), .bool(true), .number("1"), .string("é😀\n"), .null])
    }

    @Test("malformed JSON is rejected with its line and column", arguments: [
        ("[1,]", 1, 4), ("[01]", 1, 2), ("{'a': 1}", 1, 2), ("[1] x", 1, 5), ("[\n\"a\nb\"]", 2, 3), ("[\"\\ud800\"]", 1, 9),
    ])
    func jsonErrors(text: String, line: Int, column: Int) {
        do {
            _ = try JSONReader.parse(Data(text.utf8))
            Issue.record("\(text) parsed")
        } catch {
            #expect(error.line == line && error.column == column, "\(text): \(error)")
        }
    }

    @Test("values convert strictly by attribute type")
    func conversions() throws {
        func parse(_ text: String, _ type: AttributeType) throws(ImportValueError) -> AttributeValue {
            try ImportValueParser.fromText(text, type: type)
        }
        #expect(try parse("-32768", .integer16) == .integer(-32768))
        #expect(throws: ImportValueError.self) { try parse("32768", .integer16) }
        #expect(throws: ImportValueError.self) { try parse("12abc", .integer32) }
        #expect(throws: ImportValueError.self) { try parse(" 12", .integer64) }
        #expect(throws: ImportValueError.self) { try parse("1.5", .integer64) }
        #expect(throws: ImportValueError.self) { try parse("9223372036854775808", .integer64) }
        #expect(try parse("9223372036854775807", .integer64) == .integer(.max))
        #expect(try parse("2.5e3", .double) == .double(2500))
        #expect(try parse(".5", .double) == .double(0.5))
        #expect(throws: ImportValueError.self) { try parse("nan", .double) }
        #expect(throws: ImportValueError.self) { try parse("0x10", .double) }
        #expect(throws: ImportValueError.self) { try parse("1e39", .float) }
        #expect(throws: ImportValueError.self) { try parse("1e400", .double) }
        #expect(try parse("12.50", .decimal) == .decimal(Decimal(string: "12.5") ?? 0))
        #expect(throws: ImportValueError.self) { try parse("12.5x", .decimal) }
        #expect(try parse("TRUE", .boolean) == .boolean(true))
        #expect(try parse("0", .boolean) == .boolean(false))
        #expect(throws: ImportValueError.self) { try parse("yes", .boolean) }
        #expect(try parse("AAEC", .binary) == .binary(Data([0, 1, 2])))
        #expect(try parse("https://example.com/a?b=c", .uri) == .uri(URL(string: "https://example.com/a?b=c")!))
        #expect(throws: ImportValueError.self) { try parse("example.com", .uri) }
    }

    @Test("dates are ISO 8601, with or without fractional seconds, or a bare date")
    func dates() throws {
        func date(_ text: String) -> Date? { ISO8601.date(from: text) }
        let noon = Date(timeIntervalSince1970: 1_709_296_200)  // 2024-03-01T12:30:00Z
        #expect(date("2024-03-01T12:30:00Z") == noon)
        #expect(date("2024-03-01T14:30:00+02:00") == noon)
        #expect(date("2024-03-01T12:30:00.250Z") == noon.addingTimeInterval(0.25))
        #expect(date("2024-03-01") == Date(timeIntervalSince1970: 1_709_251_200))
        for bad in ["2024-03-01T12:30:00", "2024-13-01T00:00:00Z", "01/03/2024", "2024-03-01T12:30:00Zjunk",
            "yesterday", "2024-03-01 12:30:00Z", ""]
        {
            #expect(date(bad) == nil, "\(bad) parsed as \(String(describing: date(bad)))")
        }
        #expect(ISO8601.string(from: noon) == "2024-03-01T12:30:00Z")
        #expect(ISO8601.string(from: noon.addingTimeInterval(0.25)) == "2024-03-01T12:30:00.250Z")
    }

    @Test("JSON values must have their attribute's JSON type")
    func jsonTypes() throws {
        let age = AttributeDescription(name: "age", type: .integer16)
        #expect(try ImportValueParser.value(.number("12"), for: age) == .integer(12))
        #expect(throws: ImportValueError.self) { try ImportValueParser.value(.string("12"), for: age) }
        #expect(throws: ImportValueError.self) { try ImportValueParser.value(.bool(true), for: age) }
        let flag = AttributeDescription(name: "flag", type: .boolean)
        #expect(throws: ImportValueError.self) { try ImportValueParser.value(.number("1"), for: flag) }
        let name = AttributeDescription(name: "name", type: .string)
        #expect(throws: ImportValueError.self) { try ImportValueParser.value(.array([]), for: name) }
        #expect(try ImportValueParser.value(.null, for: name) == .null)
    }
}
