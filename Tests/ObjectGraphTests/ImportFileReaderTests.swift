import Foundation
import Testing
@testable import ObjectGraph

/// What a reader made of a whole input: its rows (as comparable text) or the error it stopped with.
struct ReadOutcome: Equatable, CustomStringConvertible {
    var rows: [String] = []
    var error: ImportReadError?

    var description: String { rows.joined(separator: "\n") + (error.map { "\nerror: \($0) @\($0.byteOffset)" } ?? "") }

    /// Reads everything `reader` gives.
    init(_ reader: ImportFileReader) {
        do {
            while let row = try reader.next() {
                var text = "#\(row.index) line \(row.line) @\(row.byteOffset): "
                switch row.fields {
                case .success(let fields): text += fields.map { "\($0.key)=\($0.value)" }.joined(separator: " | ")
                case .failure(let problem): text += "problem: \(problem)"
                }
                rows.append(text)
            }
        } catch {
            self.error = error
        }
    }
}

@Suite("streaming import reader")
struct ImportFileReaderTests {
    static let documents: [(ImportFileReader.Format, String)] = [
        (.json, "\u{FEFF}[\n  {\"a\": 1, \"b\": \"x,y\"},\n  {\"a\": -2.5e3, \"b\": \"\\u00e9\\ud83d\\ude00\\n\", \"c\": null},\n"
            + "  {\"a\": true, \"b\": [1, {\"z\": false}]}, 7, {\"k\": 1, \"k\": 2}\n]\n"),
        (.json, "[]"),
        (.jsonLines, "{\"a\": 1}\n\n  {\"a\": \"two\", \"b\": 2.50}\r\n[1]\n{\"a\": }\n{\"a\": 3} x\n{\"é\": \"東京\"}"),
        (.csv, "\u{FEFF}name, age ,note\r\n\"Lovelace, Ada\",36,\"say \"\"hi\"\"\"\n\nBob,,\"two\nlines\"\rCarl,41,\"\"\nshort,1\n"),
        (.csv, "a,b\n1,"),
    ]

    @Test("rows are the same whatever the chunk size (every chunk boundary)")
    func chunkBoundaries() throws {
        for (format, text) in Self.documents {
            let data = Data(text.utf8)
            let whole = ReadOutcome(ImportFileReader(data: data, format: format))
            #expect(!whole.rows.isEmpty || text == "[]", "\(text)")
            for chunk in [1, 2, 3, 5, 8, 13, 64] {
                let chunked = ReadOutcome(ImportFileReader(data: data, format: format, chunkSize: chunk,
                    maximumRowBytes: ImportFileReader.defaultMaximumRowBytes))
                #expect(chunked == whole, "chunk \(chunk) of \(format):\n\(chunked)\n---\n\(whole)")
            }
        }
    }

    @Test("JSON array rows: index, line, byte offset; non-objects and repeated keys are row problems")
    func jsonRows() throws {
        let text = "[\n  {\"a\": 1},\n  \"text\", {\"k\": 1, \"k\": 2},\n  {\"b\": \"x\"}\n]"
        let reader = ImportFileReader(data: Data(text.utf8))
        #expect(reader.format == .json)
        var rows: [ImportRow] = []
        while let row = try reader.next() { rows.append(row) }
        #expect(rows.map(\.index) == [0, 1, 2, 3])
        #expect(rows.map(\.line) == [2, 3, 3, 4])
        #expect(rows.map(\.byteOffset) == [4, 16, 24, 44])
        #expect(try rows[0].fields.get().map(\.key) == ["a"])
        #expect(throws: ImportRowProblem("expected an object, found a string")) { try rows[1].fields.get() }
        #expect(throws: ImportRowProblem("the key 'k' appears more than once")) { try rows[2].fields.get() }
        guard case .json(.string("x"))? = try rows[3].fields.get().first?.value else {
            Issue.record("\(rows[3].fields)")
            return
        }
    }

    @Test("JSON Lines: blank lines skipped, a malformed line is its row's problem and the reading goes on")
    func jsonLines() throws {
        let text = "{\"a\": 1}\n\n{\"a\": }\n{\"a\": 2} x\n{\"a\": 3}\n"
        let reader = ImportFileReader(data: Data(text.utf8))
        #expect(reader.format == .jsonLines)
        var rows: [ImportRow] = []
        while let row = try reader.next() { rows.append(row) }
        #expect(rows.map(\.line) == [1, 3, 4, 5])
        #expect(rows.map(\.byteOffset) == [0, 10, 18, 29])
        #expect(throws: ImportRowProblem("not valid JSON: unexpected character '}': expected a value at column 7")) {
            try rows[1].fields.get()
        }
        #expect(throws: ImportRowProblem("not valid JSON: unexpected text after the object at column 10")) {
            try rows[2].fields.get()
        }
        #expect(try rows[3].fields.get().first?.value == .json(.number("3")))
    }

    @Test("CSV: header trimmed, lines of records spanning lines, field counts checked per row")
    func csvRows() throws {
        let text = "name, age\n\"two\nlines\",1\n\nx\n\"\",\n"
        let reader = ImportFileReader(data: Data(text.utf8), format: .csv)
        var rows: [ImportRow] = []
        while let row = try reader.next() { rows.append(row) }
        #expect(reader.header == ["name", "age"])
        #expect(rows.map(\.line) == [2, 5, 6])
        #expect(rows.map(\.byteOffset) == [10, 25, 27])
        let first = try rows[0].fields.get()
        #expect(first.map(\.key) == ["name", "age"])
        #expect(first.map(\.value) == [.csv(CSVField(text: "two\nlines", quoted: true)), .csv(CSVField(text: "1", quoted: false))])
        #expect(throws: ImportRowProblem("has 1 field(s) but the header has 2", kind: .fieldCount(found: 1, header: 2))) {
            try rows[1].fields.get()
        }
        #expect(try rows[2].fields.get().map(\.value) == [.csv(CSVField(text: "", quoted: true)), .csv(CSVField(text: "", quoted: false))])
    }

    @Test("malformed files stop the reading with line, column and byte offset", arguments: [
        (ImportFileReader.Format.json, "[{\"a\": 1},\n {\"a\": }]", 2, 8, 18, 1),
        (.json, "[{\"a\": 1}", 1, 10, 9, 1),
        (.json, "[{\"a\": 1}] x", 1, 12, 11, 1),
        (.json, "[{\"a\": \"\u{1}\"}]", 1, 9, 8, 0),
        (.csv, "a,b\n1,\"open\n", 2, 3, 6, 0),
        (.csv, "a\nx\"y\n", 2, 2, 3, 0),
        (.csv, "a\n\"x\"y\n", 2, 4, 5, 0),
    ])
    func malformed(format: ImportFileReader.Format, text: String, line: Int, column: Int, offset: Int, rowsBefore: Int) {
        for chunk in [nil, 1, 4] as [Int?] {
            let reader = ImportFileReader(data: Data(text.utf8), format: format, chunkSize: chunk,
                maximumRowBytes: 1 << 20)
            var rows = 0
            do {
                while try reader.next() != nil { rows += 1 }
                Issue.record("\(text) read without an error")
            } catch {
                #expect(error.kind == .malformed)
                #expect((error.line, error.column, error.byteOffset) == (line, column, offset), "\(text): \(error)")
                #expect(rows == rowsBefore, "\(text)")
            }
            #expect(throws: Never.self) { try reader.next() }  // after an error: the end
        }
    }

    @Test("files that are not laid out as their format needs are refused as a whole")
    func layout() throws {
        for (format, text, message) in [
            (ImportFileReader.Format.csv, "", "the file is empty: a CSV file needs a header row of attribute names"),
            (.csv, "\n\n", "the file is empty: a CSV file needs a header row of attribute names"),
            (.csv, "a,,b\n", "the header (line 1) has an empty name in column 2"),
            (.csv, "a, a\n", "the header (line 1) names 'a' more than once"),
            (.json, "{\"a\": 1}", "the file must hold a JSON array of objects, not an object (one object per line is "
                + "JSON Lines: name the file .jsonl)"),
            (.json, "\"x\"", "the file must hold a JSON array of objects, not a string"),
            (.json, "  ", "the file is empty: it must hold a JSON array of objects"),
        ] {
            #expect(throws: ImportReadError(kind: .layout, message: message, line: 0, column: 0, byteOffset: 0)) {
                _ = try ImportFileReader(data: Data(text.utf8), format: format).next()
            }
        }
    }

    @Test("the format comes from the extension, else from the first byte")
    func formats() throws {
        #expect(ImportFileReader.Format(pathExtension: "NDJSON") == .jsonLines)
        #expect(ImportFileReader.Format(pathExtension: "jsonl") == .jsonLines)
        #expect(ImportFileReader.Format(pathExtension: "txt") == nil)
        #expect(ImportFileReader(data: Data(" \n[{}]".utf8)).format == .json)
        #expect(ImportFileReader(data: Data("\u{FEFF}{\"a\":1}".utf8)).format == .jsonLines)
        #expect(ImportFileReader(data: Data("a,b".utf8)).format == .csv)
        let folder = TemporaryDirectory()
        let url = folder.file("rows.ndjson")
        try Data("[1]".utf8).write(to: url)
        #expect(try ImportFileReader(contentsOf: url).format == .jsonLines)
        #expect(throws: ImportReadError.self) { try ImportFileReader(contentsOf: folder.file("missing.csv")) }
        #expect(throws: ImportReadError.self) { try ImportFileReader(contentsOf: folder.url) }
    }

    @Test("a file is read as its rows are asked for: the first row comes after one chunk")
    func streaming() throws {
        let folder = TemporaryDirectory()
        let url = folder.file("big.jsonl")
        var text = ""
        for index in 0..<20_000 { text += "{\"name\": \"person \(index)\", \"age\": \(index % 90)}\n" }
        try Data(text.utf8).write(to: url)
        let reader = try ImportFileReader(contentsOf: url, chunkSize: 4096)
        #expect(reader.fileSize == text.utf8.count)
        let first = try #require(try reader.next())
        #expect(first.index == 0)
        #expect(reader.bytesRead == 4096, "only the first chunk is read for the first row")
        var count = 1
        var widest = 0
        while try reader.next() != nil {
            count += 1
            widest = max(widest, reader.bytesRead - reader.bytesConsumed)
        }
        #expect(count == 20_000)
        #expect(widest <= 2 * 4096, "the window stays about one chunk: \(widest)")
    }

    @Test("a row longer than the limit is an error, read in bounded memory")
    func hugeRows() throws {
        let folder = TemporaryDirectory()
        let url = folder.file("huge.csv")
        let field = String(repeating: "x", count: 3 << 20)
        try Data("a,b\n1,\"\(field)\"\n2,3\n".utf8).write(to: url)
        let reader = try ImportFileReader(contentsOf: url, chunkSize: 64 << 10, maximumRowBytes: 1 << 20)
        do {
            while try reader.next() != nil {}
            Issue.record("the huge row was read")
        } catch {
            #expect(error.kind == .rowTooLarge)
            #expect((error.line, error.byteOffset) == (2, 4))
            #expect(reader.bytesRead < 3 << 20, "read \(reader.bytesRead) bytes")
        }
        // Under the limit, the same row reads whole.
        let roomy = try ImportFileReader(contentsOf: url, chunkSize: 64 << 10)
        var values: [String] = []
        while let row = try roomy.next() {
            if case .csv(let field)? = try row.fields.get().last?.value { values.append(field.text) }
        }
        #expect(values == [field, "3"])
    }

    @Test("CSVRecordReader: records with lines and offsets, whatever the chunk size")
    func csvRecords() throws {
        let text = "a,\"b\r\nc\"\r\n\r\nd\re"
        var expected: [CSVRecord] = []
        let whole = CSVRecordReader(data: Data(text.utf8))
        while let record = try whole.next() { expected.append(record) }
        #expect(expected.map(\.line) == [1, 4, 5])
        #expect(expected.map(\.byteOffset) == [0, 12, 14])
        #expect(expected.map { $0.fields.map(\.text) } == [["a", "b\r\nc"], ["d"], ["e"]])
        for chunk in 1...6 {
            let reader = CSVRecordReader(data: Data(text.utf8), chunkSize: chunk)
            var records: [CSVRecord] = []
            while let record = try reader.next() { records.append(record) }
            #expect(records == expected, "chunk \(chunk)")
        }
    }
}
