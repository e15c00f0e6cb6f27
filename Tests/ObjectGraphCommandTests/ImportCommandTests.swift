import Foundation
import Testing
import TestSupport

/// `objectgraph import`: JSON and CSV into a store, in batches, with bad rows rejecting their batch.
@Suite("objectgraph import")
struct ImportCommandTests {
    let folder = TemporaryDirectory(prefix: "objectgraph-import")

    private var store: String { folder.file("catalog.sqlite").path }

    private func catalog() throws -> String { try ModelFixtures.catalog(in: folder.url).path }

    private func query(_ model: String, _ entity: String, _ extra: [String] = []) throws -> [[String: Any]] {
        let output = try ObjectGraphTool.succeed(
            ["query", "--model", model, "--store", store, "--entity", entity, "--json"] + extra)
        return try #require(try jsonObject(output) as? [[String: Any]], "not a JSON array:\n\(output)")
    }

    @Test("a JSON array is imported with every attribute type")
    func json() throws {
        let model = try catalog()
        let file = try folder.write("""
            [
              {"name": "Oak", "capacity": 12, "rating": 4.5, "addedAt": "2024-03-01T12:30:00Z",
               "photo": "AAEC", "homepage": "https://example.com/oak", "default": "yes", "extra": null},
              {"name": "Pine \\"No. 2\\"", "addedAt": "2024-03-01T12:30:00.250+02:00", "rating": -1e2},
              {"name": "東京 Zoë"}
            ]
            """, to: "shelves.json")
        let output = try ObjectGraphTool.succeed(["import", "--model", model, "--store", store, "--entity", "Shelf", file.path])
        #expect(output.contains("Inserted 3 "), "stdout: \(output)")

        let shelves = try query(model, "Shelf", ["--sort", "name"])
        try #require(shelves.count == 3)
        let oak = shelves[0]
        #expect(oak["name"] as? String == "Oak")
        #expect(oak["capacity"] as? Int == 12)
        #expect(oak["rating"] as? Double == 4.5)
        #expect(oak["addedAt"] as? String == "2024-03-01T12:30:00Z")
        #expect(oak["photo"] as? String == "AAEC")
        #expect(oak["homepage"] as? String == "https://example.com/oak")
        #expect(oak["default"] as? String == "yes")
        #expect(oak["extra"] is NSNull)
        #expect((oak["objectID"] as? String)?.hasPrefix("x-coredata://") == true)
        let pine = shelves[1]
        #expect(pine["name"] as? String == "Pine \"No. 2\"")
        #expect(pine["addedAt"] as? String == "2024-03-01T10:30:00.250Z")
        #expect(pine["rating"] as? Double == -100)
        #expect(pine["capacity"] as? Int == 10, "the default fills in a missing key")
        #expect(shelves[2]["name"] as? String == "東京 Zoë")
    }

    @Test("CSV with RFC 4180 quoting: commas, doubled quotes and newlines inside quoted fields")
    func csv() throws {
        let model = try catalog()
        let file = try folder.write(
            "title,pages,isbn,published,price\r\n"
                + "\"Dune, Part 1\",412,978-0441013593,1965-08-01,9.99\r\n"
                + "\"The \"\"Quoted\"\" Book\",120,,2001-01-01T00:00:00Z,\r\n"
                + "\"Line one\nLine two\",7,\"\",,0.1\r\n",
            to: "books.csv")
        let output = try ObjectGraphTool.succeed(["import", "--model", model, "--store", store, "--entity", "Book", file.path])
        #expect(output.contains("Inserted 3 "), "stdout: \(output)")

        let books = try query(model, "Book", ["--sort", "pages"])
        try #require(books.count == 3)
        #expect(books[0]["title"] as? String == "Line one\nLine two")
        #expect(books[0]["isbn"] as? String == "", "a quoted empty field is an empty string")
        #expect(books[0]["published"] is NSNull, "an unquoted empty field is nil")
        #expect(books[1]["title"] as? String == "The \"Quoted\" Book")
        #expect(books[1]["isbn"] is NSNull)
        #expect(books[2]["title"] as? String == "Dune, Part 1")
        #expect(books[2]["pages"] as? Int == 412)
        #expect(books[2]["published"] as? String == "1965-08-01T00:00:00Z")
        #expect(books[2]["price"] as? Double == 9.99)
    }

    @Test("the format is detected from the content when the extension says nothing")
    func detection() throws {
        let model = try catalog()
        let json = try folder.write("  [{\"name\": \"A\"}]", to: "shelves.txt")
        let csv = try folder.write("name\nB\n", to: "shelves.data")
        try ObjectGraphTool.succeed(["import", "--model", model, "--store", store, "--entity", "Shelf", json.path])
        try ObjectGraphTool.succeed(["import", "--model", model, "--store", store, "--entity", "Shelf", csv.path])
        #expect(try query(model, "Shelf", ["--sort", "name"]).map { $0["name"] as? String } == ["A", "B"])
    }

    @Test("a bad row rejects only its batch, is reported with its index and reason, and the exit status is 1")
    func badRowRejectsItsBatch() throws {
        let model = try catalog()
        var rows = (0..<10).map { "{\"name\": \"shelf \($0)\", \"capacity\": \($0)}" }
        rows[4] = "{\"name\": \"shelf 4\", \"capacity\": \"12abc\"}"
        let file = try folder.write("[" + rows.joined(separator: ",\n") + "]", to: "shelves.json")
        let result = try ObjectGraphTool.run(
            ["import", "--model", model, "--store", store, "--entity", "Shelf", "--batch-size", "3", file.path])
        #expect(result.status == 1, "\(result.statusDescription)")
        #expect(result.standardOutput.contains("Inserted 7 "), "stdout: \(result.standardOutput)")
        let errors = result.standardError
        #expect(errors.contains("row 4: 'capacity'"), "stderr: \(errors)")
        #expect(errors.contains("\"12abc\""), "stderr: \(errors)")
        #expect(errors.contains("batch 1 (rows 3–5) not written"), "stderr: \(errors)")
        #expect(!errors.contains("row 3:") && !errors.contains("row 5:"), "only the bad row is reported: \(errors)")

        let capacities = try query(model, "Shelf", ["--sort", "capacity"]).compactMap { $0["capacity"] as? Int }
        #expect(capacities == [0, 1, 2, 6, 7, 8, 9])
    }

    @Test("every kind of bad row is reported with its index (CSV rows also with their line)")
    func badRowReasons() throws {
        let model = try catalog()
        let file = try folder.write("""
            title,pages,published,sku
            Fine,10,2024-01-01,
            Words,ten,,
            Big,70000,,
            Dated,1,yesterday,
            ,1,,
            Fine too,2,,6F9619FF-8B86-D011-B42D-00C04FC964FF
            Short,3
            Sku,4,,not-a-uuid

            """, to: "books.csv")
        let result = try ObjectGraphTool.run(
            ["import", "--model", model, "--store", store, "--entity", "Book", "--batch-size", "1", file.path])
        #expect(result.status == 1)
        let errors = result.standardError
        #expect(errors.contains("row 1 (line 3): 'pages': \"ten\" is not a whole number"), "\(errors)")
        #expect(errors.contains("row 2 (line 4): 'pages': 70000 is out of range for Integer 16"), "\(errors)")
        #expect(errors.contains("row 3 (line 5): 'published': \"yesterday\" is not an ISO 8601 date"), "\(errors)")
        #expect(errors.contains("row 4 (line 6): missing required value for 'title'"), "\(errors)")
        #expect(errors.contains("row 6 (line 8): has 2 field(s) but the header has 4"), "\(errors)")
        #expect(errors.contains("row 7 (line 9): 'sku': \"not-a-uuid\" is not a UUID"), "\(errors)")
        #expect(result.standardOutput.contains("Inserted 2 "), "stdout: \(result.standardOutput)")
        #expect(try query(model, "Book", ["--sort", "pages"]).compactMap { $0["title"] as? String } == ["Fine too", "Fine"])
    }

    @Test("unknown keys, relationships, transient attributes, wrong JSON types and nulls for required values")
    func badJSONRows() throws {
        let model = try catalog()
        let file = try folder.write("""
            [{"name": "ok"}, {"name": "x", "colour": "red"}, {"name": "x", "items": []}, {"name": "x", "note": "n"},
             {"name": 5}, {"name": null}, "text", {"name": "x", "capacity": 1.5}, {"name": "x", "rating": true},
             {"name": "x", "homepage": "no scheme"}, {"name": "x", "photo": "***"}, {"name": "a", "name": "b"}]
            """, to: "shelves.json")
        let result = try ObjectGraphTool.run(
            ["import", "--model", model, "--store", store, "--entity", "Shelf", "--batch-size", "1", file.path])
        #expect(result.status == 1)
        let errors = result.standardError
        for expected in [
            "row 1: unknown key 'colour'", "row 2: 'items' is a relationship", "row 3: 'note' is a transient attribute",
            "row 4: 'name': expected a string for String, found the number 5", "row 5: 'name' is required but the row gives null",
            "row 6: expected an object, found a string", "row 7: 'capacity': \"1.5\" is not a whole number",
            "row 8: 'rating': expected a number for Double, found true", "row 9: 'homepage': \"no scheme\" is not a URL",
            "row 10: 'photo': \"***\" is not Base64", "row 11: the key 'name' appears more than once",
        ] {
            #expect(errors.contains(expected), "expected \"\(expected)\" in stderr:\n\(errors)")
        }
        #expect(result.standardOutput.contains("Inserted 1 "))
    }

    @Test("malformed files fail as a whole, saying where; nothing is written")
    func malformedFiles() throws {
        let model = try catalog()
        let cases: [(String, String, String)] = [
            ("bad.json", "[{\"name\": \"a\"},\n {\"name\": }]", "line 2, column 11"),
            ("object.json", "{\"name\": \"a\"}", "must hold a JSON array"),
            ("bad.csv", "name\n\"unterminated\n", "unterminated quoted field"),
            ("stray.csv", "name\nab\"c\n", "line 2, column 3"),
            ("empty.csv", "", "needs a header row"),
        ]
        for (name, text, message) in cases {
            let file = try folder.write(text, to: name)
            let result = try ObjectGraphTool.run(["import", "--model", model, "--store", store, "--entity", "Shelf", file.path])
            #expect(result.status != 0, "\(name)")
            #expect(result.standardError.contains(message), "\(name): \(result.standardError)")
            #expect(result.standardError.contains(name), "\(name): \(result.standardError)")
        }
    }

    @Test("an unknown or abstract entity and a zero batch size are refused")
    func refusedOptions() throws {
        let model = try catalog()
        let file = try folder.write("[]", to: "none.json")
        let unknown = try ObjectGraphTool.run(["import", "--model", model, "--store", store, "--entity", "Nope", file.path])
        #expect(unknown.status != 0)
        #expect(unknown.standardError.contains("no entity named 'Nope'"))
        let abstract = try ObjectGraphTool.run(["import", "--model", model, "--store", store, "--entity", "Item", file.path])
        #expect(abstract.status != 0)
        #expect(abstract.standardError.contains("abstract"))
        let zero = try ObjectGraphTool.run(
            ["import", "--model", model, "--store", store, "--entity", "Shelf", "--batch-size", "0", file.path])
        #expect(zero.status != 0)
        #expect(zero.standardError.contains("--batch-size"))
    }

    @Test("the default batch size saves 2,500 rows in three batches")
    func largeImport() throws {
        let model = try catalog()
        let rows = (0..<2500).map { "shelf \($0),\($0)" }
        let file = try folder.write("name,capacity\n" + rows.joined(separator: "\n") + "\n", to: "many.csv")
        let output = try ObjectGraphTool.succeed(["import", "--model", model, "--store", store, "--entity", "Shelf", file.path])
        #expect(output.contains("Inserted 2500 "))
        #expect(try ObjectGraphTool.succeed(
            ["query", "--model", model, "--store", store, "--entity", "Shelf", "--count"]) == "2500\n")
    }
}
