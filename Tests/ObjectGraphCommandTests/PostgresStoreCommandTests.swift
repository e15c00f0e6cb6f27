import Foundation
import Testing
import TestSupport

/// `objectgraph` commands on a PostgreSQL database (`--store postgresql://…`): import, query, batch update and
/// delete, export, store-info; store-file commands (backup) refuse clearly; a password never reaches the output. Needs
/// `OBJECTGRAPH_TEST_POSTGRES` (see `.ci/postgres.sh`) and `psql` to make a database of the test's own.
@Suite("objectgraph on PostgreSQL")
struct PostgresStoreCommandTests {
    static let baseURI = ProcessInfo.processInfo.environment["OBJECTGRAPH_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }
    static let psql: String? = ["/usr/bin/psql", "/usr/local/bin/psql"].first { FileManager.default.isExecutableFile(atPath: $0) }

    let folder = TemporaryDirectory(prefix: "objectgraph-postgres")

    /// Runs psql with `sql` against the base server.
    static func admin(_ sql: String) throws -> Int32 {
        guard let psql, let baseURI else { return -1 }
        return try ChildProcess.run(psql, ["-X", "-q", baseURI, "-c", sql], environment: ProcessInfo.processInfo.environment).status
    }

    @Test(.enabled(if: baseURI != nil && psql != nil, "needs OBJECTGRAPH_TEST_POSTGRES (source .ci/postgres.sh) and psql"))
    func commandsWorkOnADatabase() throws {
        let name = "og_cli_" + UUID().uuidString.lowercased().filter(\.isHexDigit).prefix(12)
        #expect(try Self.admin("CREATE DATABASE \(name)") == 0)
        defer { _ = try? Self.admin("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
        let base = try #require(Self.baseURI)
        var components = try #require(URLComponents(string: base))
        components.path = "/" + name
        let store = try #require(components.string)
        let model = try ModelFixtures.catalog(in: folder.url).path
        let file = try folder.write("""
            [{"name": "Oak", "capacity": 12}, {"name": "Pine", "capacity": 3}, {"name": "東京 Zoë", "capacity": 7}]
            """, to: "shelves.json")
        let imported = try ObjectGraphTool.succeed(["import", "--model", model, "--store", store, "--entity", "Shelf", file.path])
        #expect(imported.contains("Inserted 3 "), "stdout: \(imported)")

        func names(_ extra: [String] = []) throws -> [String] {
            let output = try ObjectGraphTool.succeed(
                ["query", "--model", model, "--store", store, "--entity", "Shelf", "--json", "--sort", "name"] + extra)
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
            return rows.compactMap { $0["name"] as? String }
        }
        #expect(try names() == ["Oak", "Pine", "東京 Zoë"])
        #expect(try names(["--where", "name CONTAINS[cd] 'zoe'"]) == ["東京 Zoë"])
        try ObjectGraphTool.succeed(["update", "--model", model, "--store", store, "--entity", "Shelf",
            "--where", "capacity > 5", "--set", "name=Big"])
        try ObjectGraphTool.succeed(["delete", "--model", model, "--store", store, "--entity", "Shelf",
            "--where", "name == 'Pine'"])
        #expect(try names() == ["Big", "Big"])
        let exported = try ObjectGraphTool.succeed(["export", "--model", model, "--store", store, "--entity", "Shelf",
            "--format", "csv"])
        #expect(exported.contains("Big"))

        // store-info reads the database's metadata and counts its rows, as for a file.
        let info = try ObjectGraphTool.succeed(["store-info", "--model", model, "--store", store])
        #expect(info.contains("Store type:          PostgreSQL"), "\(info)")
        #expect(info.contains("Matches the model:   yes"), "\(info)")
        #expect(info.split(separator: "\n").contains { $0.hasPrefix("Shelf") && $0.split(separator: " ")[1] == "2" },
            "two shelves: \(info)")
        // backup still needs a file, and says so.
        let backup = try ObjectGraphTool.run(["backup", "--model", model, "--store", store, "--to", folder.url.path + "/copy.sqlite"])
        #expect(backup.status != 0)
        #expect(backup.standardError.contains("not supported"), "stderr: \(backup.standardError)")
    }

    @Test func aPasswordInTheURIIsNeverPrinted() throws {
        let model = try ModelFixtures.catalog(in: folder.url).path
        let result = try ObjectGraphTool.run(["query", "--model", model, "--store",
            "postgresql://someone:s3cr3t-w0rd@127.0.0.1:1/nothing", "--entity", "Shelf"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("postgresql://someone:***@127.0.0.1:1/nothing"), "\(result.standardError)")
        #expect(!(result.standardError + result.standardOutput).contains("s3cr3t-w0rd"))
    }
}
