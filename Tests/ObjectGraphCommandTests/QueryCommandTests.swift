import Foundation
import Testing
import TestSupport

/// `objectgraph query`: predicates, sorting, limits, counts, JSON and tables.
@Suite("objectgraph query")
struct QueryCommandTests {
    let folder = TemporaryDirectory(prefix: "objectgraph-query")
    let model: String
    var store: String { folder.file("catalog.sqlite").path }

    init() throws {
        model = try ModelFixtures.catalog(in: folder.url).path
        let shelves = try folder.write("""
            [{"name": "Oak", "capacity": 12, "rating": 4.5},
             {"name": "pine", "capacity": 3, "rating": 2},
             {"name": "Birch", "capacity": 12},
             {"name": "Ærø", "capacity": 7, "rating": 5, "addedAt": "2024-03-01T12:30:00Z"},
             {"name": "東京", "capacity": 1, "rating": 1.25}]
            """, to: "shelves.json")
        let books = try folder.write("[{\"title\": \"Paper\", \"pages\": 100}]", to: "books.json")
        let ebooks = try folder.write("[{\"title\": \"Bits\", \"pages\": 50, \"fileSize\": 2048}]", to: "ebooks.json")
        for (entity, file) in [("Shelf", shelves), ("Book", books), ("Ebook", ebooks)] {
            try ObjectGraphTool.succeed(["import", "--model", model, "--store", store, "--entity", entity, file.path])
        }
    }

    private func query(_ arguments: [String]) throws -> ChildProcess.Result {
        try ObjectGraphTool.run(["query", "--model", model, "--store", store] + arguments)
    }

    private func names(_ arguments: [String]) throws -> [String] {
        let result = try query(["--entity", "Shelf", "--json"] + arguments)
        #expect(result.status == 0, "stderr: \(result.standardError)")
        let rows = try #require(try jsonObject(result.standardOutput) as? [[String: Any]])
        return rows.compactMap { $0["name"] as? String }
    }

    @Test("--where filters with a predicate format string")
    func wherePredicate() throws {
        #expect(try names(["--where", "capacity >= 7", "--sort", "name"]) == ["Birch", "Oak", "Ærø"])
        #expect(try names(["--where", "name BEGINSWITH[cd] 'a'"]) == ["Ærø"])
        #expect(try names(["--where", "rating == nil"]) == ["Birch"])
        #expect(try names(["--where", "capacity == 12 AND rating > 4"]) == ["Oak"])
    }

    @Test("--sort orders by several keys, ascending or :desc")
    func sort() throws {
        #expect(try names(["--sort", "capacity:desc", "--sort", "name"]) == ["Birch", "Oak", "Ærø", "pine", "東京"])
        #expect(try names(["--sort", "capacity", "--sort", "name:desc"]) == ["東京", "pine", "Ærø", "Oak", "Birch"])
        #expect(try names(["--sort", "name:asc"]) == ["Birch", "Oak", "pine", "Ærø", "東京"])
    }

    @Test("--limit and --offset page through the results")
    func limitAndOffset() throws {
        #expect(try names(["--sort", "capacity", "--limit", "2"]) == ["東京", "pine"])
        #expect(try names(["--sort", "capacity", "--sort", "name", "--offset", "3"]) == ["Birch", "Oak"])
        #expect(try names(["--sort", "capacity", "--sort", "name", "--offset", "1", "--limit", "2"]) == ["pine", "Ærø"])
    }

    @Test("--count prints one number, after --where, --offset and --limit")
    func count() throws {
        #expect(try query(["--entity", "Shelf", "--count"]).standardOutput == "5\n")
        #expect(try query(["--entity", "Shelf", "--count", "--where", "capacity > 5"]).standardOutput == "3\n")
        #expect(try query(["--entity", "Shelf", "--count", "--limit", "2"]).standardOutput == "2\n")
        #expect(try query(["--entity", "Shelf", "--count", "--offset", "4"]).standardOutput == "1\n")
        #expect(try query(["--entity", "Book", "--count"]).standardOutput == "2\n", "sub-entities are included")
    }

    @Test("--json gives every stored attribute and the objectID URI")
    func json() throws {
        let result = try query(["--entity", "Shelf", "--json", "--where", "name == 'Ærø'"])
        let rows = try #require(try jsonObject(result.standardOutput) as? [[String: Any]])
        let row = try #require(rows.first)
        #expect(Set(row.keys) == ["objectID", "name", "capacity", "rating", "addedAt", "photo", "homepage", "default", "extra"])
        let objectID = try #require(row["objectID"] as? String)
        #expect(objectID.hasPrefix("x-coredata://") && objectID.contains("/Shelf/p"))
        #expect(row["capacity"] as? Int == 7)
        #expect(row["rating"] as? Double == 5)
        #expect(row["addedAt"] as? String == "2024-03-01T12:30:00Z")
        #expect(row["photo"] is NSNull)

        let books = try #require(try jsonObject(try query(["--entity", "Book", "--json", "--sort", "pages"]).standardOutput)
            as? [[String: Any]])
        #expect(books.count == 2)
        #expect(books.first?["fileSize"] as? Int == 2048, "a sub-entity's object lists its own attributes too")
        #expect(books.last?["fileSize"] == nil)
    }

    @Test("the text table aligns columns by display width and right-aligns numbers")
    func table() throws {
        let result = try query(["--entity", "Shelf", "--sort", "capacity"])
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        try #require(lines.count == 7, "\(result.standardOutput)")
        #expect(lines[0].hasPrefix("objectID  "))
        #expect(lines[1].allSatisfy { $0 == "─" || $0 == " " })
        #expect(lines[2].contains("東京") && lines[3].contains("pine"))
        // Columns: objectID, name, capacity (right-aligned), … Every row's capacity ends in the same
        // terminal cell as the header's "capacity", although 東京 takes four cells in two characters.
        let header = lines[0]
        let capacityEnd = Self.cells(String(header[..<(try #require(header.range(of: "capacity")).upperBound)]))
        for line in lines.dropFirst(2) {
            var prefix = ""
            for character in line where Self.cells(prefix) < capacityEnd { prefix.append(character) }
            #expect(Self.cells(prefix) == capacityEnd, "\(line)")
            #expect(prefix.last?.isNumber == true, "capacity is right-aligned at cell \(capacityEnd): \(line)")
        }
    }

    /// Terminal cells: two for CJK ideographs, one for everything else in these tests.
    private static func cells(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + ((0x4E00...0x9FFF).contains($1.value) ? 2 : 1) }
    }

    @Test("a bad --where prints the error with its column; bad --sort keys and entities are errors")
    func errors() throws {
        let syntax = try query(["--entity", "Shelf", "--where", "capacity >> 3"])
        #expect(syntax.status != 0)
        #expect(syntax.standardError.contains("column 11"), "stderr: \(syntax.standardError)")
        #expect(syntax.standardError.contains("capacity >> 3"))
        #expect(syntax.standardOutput.isEmpty)

        let unknownKey = try query(["--entity", "Shelf", "--where", "colour == 'red'"])
        #expect(unknownKey.status != 0)
        #expect(unknownKey.standardError.contains("'colour'"))

        let sortKey = try query(["--entity", "Shelf", "--sort", "colour"])
        #expect(sortKey.status != 0)
        #expect(sortKey.standardError.contains("--sort 'colour'"))

        let direction = try query(["--entity", "Shelf", "--sort", "name:down"])
        #expect(direction.status != 0)
        #expect(direction.standardError.contains("asc or desc"))

        let entity = try query(["--entity", "Nope"])
        #expect(entity.status != 0)
        #expect(entity.standardError.contains("no entity named 'Nope'"))

        let missing = try ObjectGraphTool.run(
            ["query", "--model", model, "--store", folder.file("missing.sqlite").path, "--entity", "Shelf"])
        #expect(missing.status != 0)
        #expect(missing.standardError.contains("missing.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: folder.file("missing.sqlite").path), "query never creates a store")

        let negative = try query(["--entity", "Shelf", "--limit", "-1"])
        #expect(negative.status != 0)
    }
}
