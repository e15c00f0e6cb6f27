import Foundation
import Testing
import TestSupport

/// `objectgraph history`: the transactions the writing commands record (author `objectgraph`), listed as a
/// table or JSON, after a number, and purged.
@Suite("objectgraph history")
struct HistoryCommandTests {
    @Test("import, update and delete are recorded with their counts, and purges delete old transactions")
    func writingCommandsAreRecorded() throws {
        let folder = TemporaryDirectory()
        let model = ModelFixtures.people.path
        let store = folder.file("people.sqlite").path
        let rows = folder.file("people.json")
        try Data(#"[{"firstName":"Ada","lastName":"Lovelace","age":36},{"firstName":"Alan","lastName":"Turing","age":41}]"#
            .utf8).write(to: rows)
        let base = ["--model", model, "--store", store]
        try ObjectGraphTool.succeed(["import"] + base + ["--entity", "Person", rows.path])
        try ObjectGraphTool.succeed(["update"] + base + ["--entity", "Person", "--where", "age > 40", "--set", "age=42"])
        try ObjectGraphTool.succeed(["delete"] + base + ["--entity", "Person", "--where", "lastName == 'Lovelace'"])

        let table = try ObjectGraphTool.succeed(["history"] + base)
        let lines = table.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(table)")
        #expect(lines[2].hasPrefix("1 ") && lines[2].contains("objectgraph") && lines[2].hasSuffix("Person +2"), "\(table)")
        #expect(lines[3].hasPrefix("2 ") && lines[3].hasSuffix("Person ~1"), "\(table)")
        #expect(lines[4].hasPrefix("3 ") && lines[4].hasSuffix("Person -1"), "\(table)")

        let json = try ObjectGraphTool.succeed(["history"] + base + ["--json", "--after", "2"])
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(decoded.count == 1)
        #expect(decoded.first?["number"] as? Int == 3)
        #expect(decoded.first?["author"] as? String == "objectgraph")
        #expect((decoded.first?["changes"] as? [String: [String: Int]])?["Person"]?["deleted"] == 1)

        #expect(try ObjectGraphTool.succeed(["history"] + base + ["--purge-through", "2"]) == "2\n")
        let after = try ObjectGraphTool.succeed(["history"] + base).split(separator: "\n")
        #expect(after.count == 3 && after[2].hasPrefix("3 "))
        // Asking after a purged transaction is an error that says so, not an empty answer.
        let expired = try ObjectGraphTool.run(["history"] + base + ["--after", "0"])
        #expect(expired.status != 0 && expired.standardError.contains("purged"))
    }

    @Test("a store written without history lists nothing, and a query does not add history to it")
    func queriesDoNotAddHistory() throws {
        let folder = TemporaryDirectory()
        let store = folder.file("plain.sqlite")
        do {
            let coordinatorOutput = try ObjectGraphTool.run(["history", "--model", ModelFixtures.people.path,
                "--store", store.path])
            #expect(coordinatorOutput.status != 0, "a missing store is an error")
        }
        let rows = folder.file("p.json")
        try Data(#"[{"firstName":"A","lastName":"B"}]"#.utf8).write(to: rows)
        let base = ["--model", ModelFixtures.people.path, "--store", store.path]
        try ObjectGraphTool.succeed(["import"] + base + ["--entity", "Person", rows.path])
        try ObjectGraphTool.succeed(["query"] + base + ["--entity", "Person", "--count"])
        let listed = try ObjectGraphTool.succeed(["history"] + base).split(separator: "\n")
        #expect(listed.count == 3, "only the import: \(listed)")
    }
}
