import Foundation
import ObjectGraph
import Testing

@testable import People

@Suite struct CSVTableTests {
    @Test func quotedFieldsLineBreaksAndEmptyValues() throws {
        let table = try CSVTable(parsing: "lastName,city,nickname\r\n\"Lovelace, Ada\",\"Lon\ndon\",\n\"\"\"Q\"\"\",,\"\"\n\n")
        #expect(table.header == ["lastName", "city", "nickname"])
        #expect(table.records.map(\.fields) == [["Lovelace, Ada", "Lon\ndon", nil], ["\"Q\"", nil, ""]])
        #expect(table.records.map(\.line) == [2, 4])
    }

    @Test(arguments: ["a,b\n\"x,y\n", "a,b\n\"x\"y,z\n", "a,a\n1,2\n", "a,,b\n1,2,3\n", "a,b\nx\"y,z\n"])
    func malformedCSVIsAnError(text: String) {
        #expect(throws: CSVTable.ParseError.self) { try CSVTable(parsing: text) }
    }

    @Test func fieldsAreQuotedOnlyWhenNeeded() {
        #expect(CSVTable.field("Ada") == "Ada")
        #expect(CSVTable.field("a,b") == "\"a,b\"")
        #expect(CSVTable.field("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(CSVTable.field("") == "\"\"")
    }
}

@Suite struct PersonFileTests {
    func entity() throws -> EntityDescription {
        try #require(try PeopleModel.loadModel().entity(named: "Person"))
    }

    @Test func jsonAndCSVRowsConvertToTheModelsTypes() throws {
        let store = TemporaryStore()
        let json = store.file("p.json")
        try Data(#"""
            [{"lastName": "Lovelace", "age": 36, "createdAt": "1852-11-27T00:00:00Z", "nickname": null},
             {"lastName": "Hopper", "age": "85", "createdAt": "1906-12-09"}]
            """#.utf8).write(to: json)
        let (format, rows) = try PersonFileReader.read(json)
        #expect(format == .json)
        let converter = PersonRowConverter(entity: try entity())
        let first = try converter.values(of: rows[0])
        #expect(first.map(\.key) == ["age", "createdAt", "lastName", "nickname"])
        #expect(first[0].value == .integer(36))
        #expect(first[3].value == .null)
        #expect(throws: PersonRowConverter.Problem.self) { try converter.values(of: rows[1]) }

        let csv = store.file("p.txt")
        try Data("lastName,age,createdAt,sectionOrder,objectID\nHopper,85,1906-12-09T10:00:00.250Z,3,x\n".utf8).write(to: csv)
        let read = try PersonFileReader.read(csv)
        #expect(read.format == .csv)
        let values = try converter.values(of: read.rows[0])
        #expect(values.map(\.key) == ["age", "createdAt", "lastName"])  // derived keys and objectID skipped
        #expect(values[0].value == .integer(85))
        guard case .date(let date) = values[1].value else {
            Issue.record("not a date: \(values[1].value)")
            return
        }
        let expected = try #require(ISO8601DateFormatter().date(from: "1906-12-09T10:00:00Z"))
        #expect(abs(date.timeIntervalSince(expected) - 0.25) < 0.001)
    }

    @Test(arguments: [
        (#"[{"bogus": 1}]"#, "has no such attribute"), (#"[{"age": "41"}]"#, "expected a number, found the string \"41\""),
        (#"[{"createdAt": "yesterday"}]"#, "ISO 8601"), (#"[{"lastName": 5}]"#, "expected a string"),
    ])
    func badValuesAreNamed(json: String, problem: String) throws {
        let store = TemporaryStore()
        let url = store.file("bad.json")
        try Data(json.utf8).write(to: url)
        let rows = try PersonFileReader.read(url).rows
        let converter = PersonRowConverter(entity: try entity())
        #expect {
            try converter.values(of: rows[0])
        } throws: { error in
            "\(error)".contains(problem)
        }
    }

    @Test func unreadableFilesSayWhy() throws {
        let store = TemporaryStore()
        #expect(throws: PersonFileReader.ReadError.self) { try PersonFileReader.read(store.file("missing.json")) }
        let url = store.file("broken.json")
        try Data(#"[{"lastName": "x"},"#.utf8).write(to: url)
        #expect(throws: PersonFileReader.ReadError.self) { try PersonFileReader.read(url) }
        let ragged = store.file("ragged.csv")
        try Data("a,b\n1\n".utf8).write(to: ragged)
        #expect {
            try PersonFileReader.read(ragged)
        } throws: { error in
            "\(error)".contains("row 0 (line 2) has 1 fields; the header has 2")
        }
    }

    @Test func generatedFilesAreDeterministicAndReadBack() throws {
        let store = TemporaryStore()
        for format in [PersonFileReader.Format.json, .csv] {
            let name = format == .json ? "g.json" : "g.csv"
            let first = store.file("1-" + name)
            let second = store.file("2-" + name)
            try PersonFileWriter.writeGenerated(count: 50, seed: 9, to: first, format: format)
            try PersonFileWriter.writeGenerated(count: 50, seed: 9, to: second, format: format)
            #expect(try Data(contentsOf: first) == (try Data(contentsOf: second)))
            let rows = try PersonFileReader.read(first).rows
            #expect(rows.count == 50)
            var generator = PersonGenerator(seed: 9)
            let expected = generator.make(50)
            let converter = PersonRowConverter(entity: try entity())
            for (row, record) in zip(rows, expected) {
                let values = Dictionary(uniqueKeysWithValues: try converter.values(of: row).map { ($0.key, $0.value) })
                #expect(values["lastName"] == .string(record.lastName))
                #expect(values["city"] == .string(record.city))
                #expect(values["age"] == .integer(record.age))
                #expect(values["createdAt"] == .date(record.createdAt))
            }
        }
        #expect(PersonFileWriter.format(for: URL(fileURLWithPath: "x.txt")) == nil)
    }
}

@Suite struct ImportActivityTests {
    typealias Progress = PersonImporter.Progress

    @Test func oneBarRateAndETAAcrossImports() throws {
        let start = ContinuousClock.now
        var activity = ImportActivity()
        #expect(activity.statusText(now: start) == nil)
        activity.add(name: "a", progress: Progress(saved: 0, total: 1000, isFinished: false), at: start)
        activity.add(name: "b", progress: Progress(saved: 0, total: 1000, isFinished: false), at: start)
        #expect(activity.statusText(now: start)?.text == "2 imports ▕░░░░░░░░░░░░░░░░▏ 0%")
        activity.update(0, progress: Progress(saved: 500, total: 1000, isFinished: false), at: start + .seconds(1))
        activity.update(1, progress: Progress(saved: 300, total: 1000, skipped: 100, isFinished: false), at: start + .seconds(1))
        let running = try #require(activity.statusText(now: start + .seconds(2), barWidth: 10))
        #expect(running.text == "2 imports ▕████░░░░░░▏ 45%  450/s  ETA 0:03  100 skipped")
        #expect(!running.isFailure)
        activity.update(0, progress: Progress(saved: 1000, total: 1000, isFinished: true), at: start + .seconds(3))
        #expect(activity.statusText(now: start + .seconds(3), barWidth: 10)?.text.hasPrefix("importing ▕") == true)
        activity.update(1, progress: Progress(saved: 900, total: 1000, skipped: 100, isFinished: true), at: start + .seconds(4))
        #expect(activity.statusText(now: start + .seconds(9))?.text == "imported 1,900 in 4.0 s · 100 skipped")
        #expect(activity.statusText(now: start + .seconds(9), listIsCatchingUp: true)?.text
            == "imported 1,900 in 4.0 s · 100 skipped · updating list")
        // A new import after a quiet period starts a new burst.
        activity.add(name: "c", progress: Progress(saved: 0, total: 0, isReading: true, isFinished: false), at: start + .seconds(10))
        #expect(activity.jobs.count == 1)
        #expect(activity.statusText(now: start + .seconds(10))?.text == "importing · reading c…")
        activity.update(0, progress: Progress(saved: 0, total: 0, isFinished: true, failure: "disk full"), at: start + .seconds(11))
        let failed = try #require(activity.statusText(now: start + .seconds(11)))
        #expect(failed.isFailure)
        #expect(failed.text == "import failed: disk full")
    }

    @Test func clockText() {
        #expect(ImportActivity.clock(3.2) == "0:04")
        #expect(ImportActivity.clock(750) == "12:30")
        #expect(ImportActivity.clock(3723) == "1:02:03")
    }
}
