import Foundation
import Testing
import TestSupport

/// `objectgraph export`, and the round trip export → import into a new store; JSON Lines imports.
@Suite("objectgraph export")
struct ExportCommandTests {
    let folder = TemporaryDirectory(prefix: "objectgraph-export")

    private func catalog() throws -> String { try ModelFixtures.catalog(in: folder.url).path }

    /// Every object of `entity` in `store`, without objectID, sorted by name.
    private func objects(_ model: String, _ store: String, _ entity: String) throws -> [NSDictionary] {
        let output = try ObjectGraphTool.succeed(
            ["query", "--model", model, "--store", store, "--entity", entity, "--json", "--sort", "name"])
        let rows = try #require(try jsonObject(output) as? [[String: Any]], "not a JSON array:\n\(output)")
        return rows.map { row in
            var row = row
            row["objectID"] = nil
            return row as NSDictionary
        }
    }

    @Test("a store exported as JSON, JSON Lines or CSV imports back into a new store with the same objects")
    func roundTrip() throws {
        let model = try catalog()
        let source = folder.file("source.sqlite").path
        let file = try folder.write("""
            [
              {"name": "Oak", "capacity": 12, "rating": 4.5, "addedAt": "2024-03-01T12:30:00Z",
               "photo": "AAEC", "homepage": "https://example.com/oak", "default": "yes", "extra": null},
              {"name": "Pine \\"No. 2\\", with a comma\\nand a line", "addedAt": "2024-03-01T12:30:00.250+02:00",
               "rating": -1e2, "photo": "", "default": ""},
              {"name": "東京 Zoë", "capacity": -7, "rating": 0.1}
            ]
            """, to: "shelves.json")
        _ = try ObjectGraphTool.succeed(["import", "--model", model, "--store", source, "--entity", "Shelf", file.path])
        let original = try objects(model, source, "Shelf")
        #expect(original.count == 3)
        for name in ["out.json", "out.jsonl", "out.csv"] {
            let exported = folder.file(name).path
            let message = try ObjectGraphTool.succeed(
                ["export", "--model", model, "--store", source, "--entity", "Shelf", "--output", exported])
            #expect(message.contains("Exported 3 Shelf objects"), "\(message)")
            let target = folder.file("copy-\(name).sqlite").path
            let imported = try ObjectGraphTool.succeed(
                ["import", "--model", model, "--store", target, "--entity", "Shelf", exported])
            #expect(imported.contains("Inserted 3 "), "\(name): \(imported)")
            #expect(try objects(model, target, "Shelf") == original, "\(name)")
        }
    }

    @Test("export selects and sorts as query does, and writes to standard output")
    func selection() throws {
        let model = try catalog()
        let store = folder.file("s.sqlite").path
        let file = try folder.write("name,capacity\nA,1\nB,2\nC,3\n", to: "s.csv")
        _ = try ObjectGraphTool.succeed(["import", "--model", model, "--store", store, "--entity", "Shelf", file.path])
        let output = try ObjectGraphTool.succeed(["export", "--model", model, "--store", store, "--entity", "Shelf",
            "--where", "capacity >= %@", "--arg", "2", "--sort", "name:desc", "--format", "jsonl"])
        let lines = output.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.contains("\"name\": \"C\"") == true, "\(output)")
        let csv = try ObjectGraphTool.succeed(["export", "--model", model, "--store", store, "--entity", "Shelf",
            "--where", "name == %@", "--arg", "A", "--format", "csv"])
        #expect(csv.hasPrefix("name,capacity,") || csv.contains("capacity"), "\(csv)")
        #expect(csv.split(separator: "\r\n").count == 2, "\(csv)")
        let bad = try ObjectGraphTool.run(["export", "--model", model, "--store", store, "--entity", "Shelf",
            "--format", "xml"])
        #expect(bad.status != 0 && bad.standardError.contains("--format"))
    }

    @Test("JSON Lines: a malformed line is its row's problem, reported with its line; its batch is not written")
    func jsonLines() throws {
        let model = try catalog()
        let store = folder.file("l.sqlite").path
        let file = try folder.write("{\"name\": \"a\"}\n{\"name\": \"b\"}\n\n{\"name\": }\n{\"name\": \"d\"}\n", to: "rows.ndjson")
        let result = try ObjectGraphTool.run(
            ["import", "--model", model, "--store", store, "--entity", "Shelf", "--batch-size", "2", file.path])
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("Inserted 2 Shelf objects from 4 JSON Lines rows."), "\(result.standardOutput)")
        #expect(result.standardError.contains("row 2 (line 4): not valid JSON: unexpected character '}'"),
            "\(result.standardError)")
        #expect(result.standardError.contains("batch 1 (rows 2–3) not written"), "\(result.standardError)")
    }

    @Test("malformed JSON stops the import with its position; the rows before it are written")
    func malformedLate() throws {
        let model = try catalog()
        let store = folder.file("m.sqlite").path
        let rows = (0..<5).map { "{\"name\": \"n\($0)\"}" }.joined(separator: ",\n")
        let file = try folder.write("[\n" + rows + ",\n{\"name\" \"x\"}]", to: "late.json")
        let result = try ObjectGraphTool.run(
            ["import", "--model", model, "--store", store, "--entity", "Shelf", "--batch-size", "2", file.path])
        #expect(result.status != 0)
        #expect(result.standardError.contains("late.json is not valid JSON: expected ':' after member name \"name\" at line 7, column 9"),
            "\(result.standardError)")
        #expect(result.standardOutput.contains("Inserted 5 Shelf objects from 5 JSON rows read before the error."),
            "\(result.standardOutput)")
    }
}
