import Foundation
import ObjectGraph
import Testing
import TestSupport

@testable import ObjectGraphCommand

/// `objectgraph backup --store FILE --to postgresql://…`: restoring a store file into a PostgreSQL database. Needs
/// `OBJECTGRAPH_TEST_POSTGRES` (see `.ci/postgres.sh`) and `psql` to make a database of the test's own.
@Suite("objectgraph backup into PostgreSQL")
struct PostgresRestoreCommandTests {
    let folder = TemporaryDirectory(prefix: "objectgraph-restore")

    @Test(.enabled(if: PostgresStoreCommandTests.baseURI != nil && PostgresStoreCommandTests.psql != nil,
        "needs OBJECTGRAPH_TEST_POSTGRES (source .ci/postgres.sh) and psql"))
    func aStoreFileIsRestoredIntoADatabaseAndReplacedOnlyWithForce() throws {
        let name = "og_cli_" + UUID().uuidString.lowercased().filter(\.isHexDigit).prefix(12)
        #expect(try PostgresStoreCommandTests.admin("CREATE DATABASE \(name)") == 0)
        defer { _ = try? PostgresStoreCommandTests.admin("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
        let base = try #require(PostgresStoreCommandTests.baseURI)
        var components = try #require(URLComponents(string: base))
        components.path = "/" + name
        let database = try #require(components.string)
        let shown = PostgresStoreCommandTests.shown(database)
        let password = ":" + (try #require(components.password)) + "@"
        let model = try ModelFixtures.catalog(in: folder.url).path

        func fill(_ file: String, _ rows: String) throws -> String {
            let path = folder.url.path + "/" + file
            let json = try folder.write(rows, to: file + ".json")
            try ObjectGraphTool.succeed(["import", "--model", model, "--store", path, "--entity", "Shelf", json.path])
            return path
        }
        func rows(_ store: String) throws -> [[String: String]] {
            let output = try ObjectGraphTool.succeed(
                ["query", "--model", model, "--store", store, "--entity", "Shelf", "--json", "--sort", "name"])
            let objects = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
            return objects.map { $0.mapValues { "\($0)" } }
        }
        func uuid(_ store: String) throws -> Substring? {
            try ObjectGraphTool.succeed(["store-info", "--model", model, "--store", store]).split(separator: "\n")
                .first { $0.hasPrefix("Store UUID") }
        }
        let backup = try fill("backup.sqlite", #"[{"name": "Oak", "capacity": 12}, {"name": "東京 Zoë", "capacity": 7}]"#)

        // Into a database without ObjectGraph's tables: filled, under the file's UUID; and back out unchanged.
        let restored = try ObjectGraphTool.succeed(["backup", "--model", model, "--store", backup, "--to", database])
        #expect(restored.contains("Wrote \(shown) with a backup of \(backup) (store UUID "), "\(restored)")
        #expect(!restored.contains(password))
        #expect(try rows(database) == rows(backup))
        #expect(try uuid(database) != nil && uuid(database) == uuid(backup))
        let copy = folder.url.path + "/copy.sqlite"
        try ObjectGraphTool.succeed(["backup", "--model", model, "--store", database, "--to", copy])
        #expect(try rows(copy) == rows(backup))
        #expect(try uuid(copy) == uuid(backup))

        // A client connected to the database (its coordinator follows the store).
        let databaseURL = try #require(URL(string: database))
        let client = try StoreOpener.openServerContext(model: try ModelFile.load(model), storeURL: databaseURL, creating: false)
        let coordinator = try #require(client.persistentStoreCoordinator)
        func clientNames() throws -> [String] {
            // (A new context each time: objects a context holds keep their values until it is told of a change.)
            let client = ManagedObjectContext(concurrencyType: .privateQueue)
            client.persistentStoreCoordinator = coordinator
            return try client.performAndWait {
                try client.fetch(FetchRequest<ManagedObject>(entityName: "Shelf", sortCriteria: [SortCriterion("name")]))
                    .compactMap { $0["name"] as String? }
            }
        }
        #expect(try clientNames() == ["Oak", "東京 Zoë"])

        // Again: refused without --force, the database left as it was.
        let other = try fill("other.sqlite", #"[{"name": "Pine", "capacity": 3}]"#)
        let refused = try ObjectGraphTool.run(["backup", "--model", model, "--store", other, "--to", database])
        #expect(refused.status == 1 && refused.standardError.contains("--force"), "\(refused.standardError)")
        #expect(!refused.standardError.contains(password) && !refused.standardOutput.contains(password))
        #expect(try rows(database) == rows(backup))

        // A bad source file: an error, and the database untouched (even with --force).
        let bad = try folder.write("not a store", to: "bad.sqlite")
        for source in [bad.path, folder.url.path + "/missing.sqlite"] {
            let failed = try ObjectGraphTool.run(["backup", "--model", model, "--store", source, "--to", database, "--force"])
            #expect(failed.status == 1, "\(failed.standardError)")
            #expect(!failed.standardError.contains(password))
        }
        #expect(try rows(database) == rows(backup))

        // With --force the contents are replaced, and the connected client sees the new ones.
        let replaced = try ObjectGraphTool.succeed(["backup", "--model", model, "--store", other, "--to", database,
            "--force"])
        #expect(replaced.contains("Replaced \(shown) with a backup of \(other) (store UUID "), "\(replaced)")
        #expect(try rows(database) == rows(other))
        #expect(try uuid(database) == uuid(other))
        #expect(try clientNames() == ["Pine"])
    }
}
