import Foundation
import ObjectGraph
import Testing
import TestSupport

/// `objectgraph query` with dictionary options, and `objectgraph update` / `delete`: answers compared with
/// ones computed here, in Swift, from the raw sample rows the store was filled with.
@Suite("objectgraph query --aggregate, update and delete")
struct AggregateQueryCommandTests {
    let folder = TemporaryDirectory(prefix: "objectgraph-aggregate")
    let model = ModelFixtures.people.path
    var store: String { folder.file("people.sqlite").path }
    /// The sample people as parsed JSON: the oracle's input.
    let people: [[String: Any]]

    init() throws {
        let sample = ModelFixtures.packageRoot.appendingPathComponent("Resources/SamplePeople.json")
        people = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: sample)) as? [[String: Any]])
        try ObjectGraphTool.succeed(["import", "--model", model, "--store", store, "--entity", "Person", sample.path])
    }

    private func rows(_ arguments: [String]) throws -> [[String: Any]] {
        let output = try ObjectGraphTool.succeed(["query", "--model", model, "--store", store, "--entity", "Person"] + arguments)
        return try #require(try jsonObject(output) as? [[String: Any]])
    }

    /// Text compared byte for byte, as the store groups and sorts it.
    private static func bytes(_ value: Any?) -> [UInt8] { Array(((value as? String) ?? "").utf8) }

    @Test("grouped aggregates with --having match a computation from the raw rows")
    func groupedAggregates() throws {
        let result = try rows(["--group-by", "city", "--aggregate", "count", "--aggregate", "sum:age",
            "--aggregate", "avg:age", "--aggregate", "min:age", "--aggregate", "max:age:oldest",
            "--having", "count >= 3", "--sort", "count:desc"])
        var groups: [[UInt8]: (city: String, ages: [Int])] = [:]
        for person in people {
            let city = person["city"] as? String ?? ""
            groups[Self.bytes(city), default: (city, [])].ages.append(person["age"] as? Int ?? 0)
        }
        let expected = groups.values.filter { $0.ages.count >= 3 }
            .sorted { lhs, rhs in
                // --sort count:desc, then ties in the order of the returned values (city first), by bytes.
                if lhs.ages.count != rhs.ages.count { return lhs.ages.count > rhs.ages.count }
                return Self.bytes(lhs.city).lexicographicallyPrecedes(Self.bytes(rhs.city))
            }
        #expect(result.count == expected.count)
        try #require(!expected.isEmpty)
        for (row, group) in zip(result, expected) {
            #expect(Set(row.keys) == ["city", "count", "sum_age", "avg_age", "min_age", "oldest"])
            #expect(row["city"] as? String == group.city)
            #expect(row["count"] as? Int == group.ages.count)
            #expect(row["sum_age"] as? Int == group.ages.reduce(0, +))
            #expect(row["min_age"] as? Int == group.ages.min())
            #expect(row["oldest"] as? Int == group.ages.max())
            let mean = Double(group.ages.reduce(0, +)) / Double(group.ages.count)
            #expect(abs((row["avg_age"] as? Double ?? .nan) - mean) < 1e-9)
        }
    }

    @Test("aggregates over all matching rows, and --distinct properties")
    func totalsAndDistinct() throws {
        let totals = try rows(["--where", "age >= 40", "--aggregate", "count", "--aggregate", "count:createdAt",
            "--aggregate", "max:lastName", "--aggregate", "sum:age"])
        let older = people.filter { ($0["age"] as? Int ?? 0) >= 40 }
        #expect(totals.count == 1)
        #expect(totals.first?["count"] as? Int == older.count)
        #expect(totals.first?["count_createdAt"] as? Int == older.filter { $0["createdAt"] != nil }.count)
        #expect(totals.first?["sum_age"] as? Int == older.reduce(0) { $0 + ($1["age"] as? Int ?? 0) })
        let maximum = older.map { Self.bytes($0["lastName"]) }.max { $0.lexicographicallyPrecedes($1) }
        #expect(Self.bytes(totals.first?["max_lastName"]) == maximum)

        let cities = try rows(["--properties", "city", "--distinct", "--sort", "city"])
        let expected = Set(people.map { Self.bytes($0["city"]) }).sorted { $0.lexicographicallyPrecedes($1) }
        #expect(cities.map { Self.bytes($0["city"]) } == expected)
        let names = try rows(["--properties", "firstName,lastName", "--where", "age > 60", "--sort", "lastName",
            "--sort", "firstName", "--limit", "3"])
        #expect(names.count == 3 && names.allSatisfy { Set($0.keys) == ["firstName", "lastName"] })
    }

    @Test("update and delete run batch requests and print the count")
    func updateAndDelete() throws {
        let zurich = people.filter { $0["city"] as? String == "Zürich" }.count
        try #require(zurich > 0)
        let updated = try ObjectGraphTool.succeed(["update", "--model", model, "--store", store, "--entity", "Person",
            "--where", "city == %@", "--arg", "Zürich", "--set", "age=99", "--set", "nickname=Zed"])
        #expect(updated == "\(zurich)\n")
        let check = try rows(["--where", "age == 99 AND nickname == 'Zed'", "--aggregate", "count"])
        #expect(check.first?["count"] as? Int == zurich + people.filter { $0["age"] as? Int == 99 && $0["city"] as? String != "Zürich" }.count)

        let young = people.filter { ($0["age"] as? Int ?? 0) < 25 }.count
        let deleted = try ObjectGraphTool.succeed(["delete", "--model", model, "--store", store, "--entity", "Person",
            "--where", "age < 25"])
        #expect(deleted == "\(young)\n")
        let left = try ObjectGraphTool.succeed(["query", "--model", model, "--store", store, "--entity", "Person", "--count"])
        #expect(left == "\(people.count - young)\n")
    }

    @Test("malformed dictionary and batch options are clear errors")
    func errors() throws {
        let base = ["--model", model, "--store", store]
        for arguments in [
            ["query"] + base + ["--entity", "Person", "--aggregate", "median:age"],
            ["query"] + base + ["--entity", "Person", "--aggregate", "sum:city"],
            ["query"] + base + ["--entity", "Person", "--properties", "city", "--aggregate", "count"],
            ["query"] + base + ["--entity", "Person", "--group-by", "city", "--having", "count >"],
            ["update"] + base + ["--entity", "Person", "--where", "age > 1", "--set", "age=old"],
            ["update"] + base + ["--entity", "Person", "--where", "age > 1", "--set", "company=1"],
            ["delete"] + base + ["--entity", "Person", "--where", "nope == 1"],
        ] {
            let result = try ObjectGraphTool.run(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.standardError.contains("Error:"), "\(arguments): \(result.standardError)")
        }
        let left = try ObjectGraphTool.succeed(["query"] + base + ["--entity", "Person", "--count"])
        #expect(left == "\(people.count)\n")
    }
}
