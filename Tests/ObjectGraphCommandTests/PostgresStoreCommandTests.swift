import Dispatch
import Foundation
import Synchronization
import Testing
import TestSupport

/// `objectgraph` commands on a PostgreSQL database (`--store postgresql://…`): import, query, batch update and
/// delete, export, store-info, backup into an SQLite file, migrate; a password never reaches the output. Needs
/// `OBJECTGRAPH_TEST_POSTGRES` (see `.ci/postgres.sh`) and `psql` to make a database of the test's own.
@Suite("objectgraph on PostgreSQL")
struct PostgresStoreCommandTests {
    static let baseURI = ProcessInfo.processInfo.environment["OBJECTGRAPH_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }
    static let psql: String? = ["/usr/bin/psql", "/usr/local/bin/psql"].first { FileManager.default.isExecutableFile(atPath: $0) }

    let folder = TemporaryDirectory(prefix: "objectgraph-postgres")

    /// How the tool names `store`: with any password replaced by `***`.
    static func shown(_ store: String) -> String {
        guard let password = URLComponents(string: store)?.password else { return store }
        return store.replacingOccurrences(of: ":\(password)@", with: ":***@")
    }

    /// A database of a test's own on the base server, dropped when the value goes.
    final class ScratchDatabase {
        let name = "og_cli_" + UUID().uuidString.lowercased().filter(\.isHexDigit).prefix(12)
        /// Its connection URI.
        let uri: String

        init() throws {
            let base = try #require(PostgresStoreCommandTests.baseURI)
            var components = try #require(URLComponents(string: base))
            components.path = "/" + name
            uri = try #require(components.string)
            #expect(try PostgresStoreCommandTests.admin("CREATE DATABASE \(name)") == 0)
        }

        deinit { _ = try? PostgresStoreCommandTests.admin("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
    }

    /// Runs psql with `sql` against the base server.
    static func admin(_ sql: String) throws -> Int32 {
        guard let psql, let baseURI else { return -1 }
        return try ChildProcess.run(psql, ["-X", "-q", baseURI, "-c", sql], environment: ProcessInfo.processInfo.environment).status
    }

    /// A short command ends while its store's listener has only just started: that must never abort the process
    /// (libpq's Kerberos probe, run on a thread still connecting, aborted in `k5_mutex_lock` at exit in about one
    /// run in three).
    @Test(.enabled(if: baseURI != nil && psql != nil, "needs OBJECTGRAPH_TEST_POSTGRES (source .ci/postgres.sh) and psql"))
    func shortCommandsExitCleanly() throws {
        let database = try ScratchDatabase()
        defer { withExtendedLifetime(database) {} }
        let store = database.uri
        let model = try ModelFixtures.catalog(in: folder.url).path
        let file = try folder.write(#"[{"name": "Oak", "capacity": 12}]"#, to: "shelves.json")
        try ObjectGraphTool.succeed(["import", "--model", model, "--store", store, "--entity", "Shelf", file.path])
        // Three at a time, as the suite's tests run: the abort needed a loaded machine.
        let results = Mutex<[Result<ChildProcess.Result, any Error>]>([])
        DispatchQueue.concurrentPerform(iterations: 30) { _ in
            let result = Result {
                try ObjectGraphTool.run(["query", "--model", model, "--store", store, "--entity", "Shelf", "--json"])
            }
            results.withLock { $0.append(result) }
        }
        for result in results.withLock({ $0 }) {
            let ran = try result.get()
            #expect(ran.status == 0 && ran.standardOutput.contains("Oak"),
                "\(ran.statusDescription): \(ran.standardOutput) \(ran.standardError)")
        }
    }

    @Test(.enabled(if: baseURI != nil && psql != nil, "needs OBJECTGRAPH_TEST_POSTGRES (source .ci/postgres.sh) and psql"))
    func commandsWorkOnADatabase() throws {
        let database = try ScratchDatabase()
        defer { withExtendedLifetime(database) {} }
        let store = database.uri
        let model = try ModelFixtures.catalog(in: folder.url).path
        let file = try folder.write("""
            [{"name": "Oak", "capacity": 12}, {"name": "Pine", "capacity": 3}, {"name": "東京 Zoë", "capacity": 7}]
            """, to: "shelves.json")
        let imported = try ObjectGraphTool.succeed(["import", "--model", model, "--store", store, "--entity", "Shelf", file.path])
        #expect(imported.contains("Inserted 3 "), "stdout: \(imported)")

        func names(_ extra: [String] = [], in target: String? = nil) throws -> [String] {
            let output = try ObjectGraphTool.succeed(
                ["query", "--model", model, "--store", target ?? store, "--entity", "Shelf", "--json", "--sort", "name"] + extra)
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
        // backup writes the database's contents to an SQLite store file, under the store's UUID.
        let copy = folder.url.path + "/copy.sqlite"
        let backup = try ObjectGraphTool.succeed(["backup", "--model", model, "--store", store, "--to", copy])
        #expect(backup.contains("Wrote \(copy) with a backup of \(Self.shown(store)) (store UUID "), "\(backup)")
        #expect(try names(in: copy) == ["Big", "Big"])
        func uuid(_ info: String) -> Substring? { info.split(separator: "\n").first { $0.hasPrefix("Store UUID") } }
        let copyInfo = try ObjectGraphTool.succeed(["store-info", "--model", model, "--store", copy])
        #expect(uuid(copyInfo) != nil && uuid(copyInfo) == uuid(info), "\(copyInfo)")
        // Again: refused without --force; with it the copy is replaced (after another change on the server).
        let refused = try ObjectGraphTool.run(["backup", "--model", model, "--store", store, "--to", copy])
        #expect(refused.status != 0 && refused.standardError.contains("--force"), "\(refused.standardError)")
        try ObjectGraphTool.succeed(["delete", "--model", model, "--store", store, "--entity", "Shelf", "--where", "TRUEPREDICATE"])
        let replaced = try ObjectGraphTool.succeed(["backup", "--model", model, "--store", store, "--to", copy, "--force"])
        #expect(replaced.contains("Replaced \(copy) with a backup of \(Self.shown(store))"), "\(replaced)")
        #expect(try names(in: copy) == [])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.contains("backup-") } == [])
    }

    @Test(.enabled(if: baseURI != nil && psql != nil, "needs OBJECTGRAPH_TEST_POSTGRES (source .ci/postgres.sh) and psql"))
    func migrateMigratesADatabase() throws {
        let database = try ScratchDatabase()
        defer { withExtendedLifetime(database) {} }
        let store = database.uri
        // The Library fixture's first two versions (enough for the command; version 3 is the migration tests').
        let bundle = folder.file("Library.xcdatamodeld")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        for version in ["Library", "Library 2"] {
            try FileManager.default.copyItem(at: MigrateCommandTests.library.appendingPathComponent("\(version).xcdatamodel"),
                to: bundle.appendingPathComponent("\(version).xcdatamodel"))
        }
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>Library 2.xcdatamodel</string></dict></plist>
            """.utf8).write(to: bundle.appendingPathComponent(".xccurrentversion"))
        let version1 = bundle.appendingPathComponent("Library.xcdatamodel").path
        let authors = try folder.write("name,born\nAda,1815\nBob,1900\n", to: "authors.csv")
        try ObjectGraphTool.succeed(["import", "--model", version1, "--store", store, "--entity", "Author", authors.path])

        let refused = try ObjectGraphTool.run(["query", "--model", bundle.path, "--store", store, "--entity", "Author"])
        #expect(refused.status != 0)
        // (It points at migrate, as for a file: query and import never migrate.)
        #expect(refused.standardError.contains("(objectgraph migrate --dry-run shows whether it can be migrated)"),
            "\(refused.standardError)")
        let dryRun = try ObjectGraphTool.succeed(["migrate", "--model", bundle.path, "--store", store, "--dry-run"])
        #expect(dryRun.contains("Would migrate \(Self.shown(store)) from Library to Library 2:"), "\(dryRun)")
        #expect(dryRun.contains("attribute renamed: Author.name → fullName"))
        let unchanged = try ObjectGraphTool.succeed(["store-info", "--model", version1, "--store", store])
        #expect(unchanged.contains("Store model version: Library\n"), "\(unchanged)")

        let migrated = try ObjectGraphTool.succeed(["migrate", "--model", bundle.path, "--store", store])
        #expect(migrated.contains("Migrated \(Self.shown(store)) from Library to Library 2:"), "\(migrated)")
        let after = try ObjectGraphTool.succeed(["store-info", "--model", bundle.path, "--store", store])
        #expect(after.contains("Store model version: Library 2\n") && after.contains("Matches the model:   yes"), "\(after)")
        let rows = try ObjectGraphTool.succeed(["query", "--model", bundle.path, "--store", store,
            "--entity", "Author", "--sort", "fullName"])
        #expect(rows.contains("Ada") && rows.contains("Bob"), "\(rows)")
        let again = try ObjectGraphTool.succeed(["migrate", "--model", bundle.path, "--store", store])
        #expect(again.contains("already at model version Library 2"), "\(again)")
    }

    /// Only `import` turns a database without ObjectGraph's tables into a store: the commands that read or change
    /// a store refuse it, as they refuse a missing file, and leave it without tables (so a restore still fills it).
    @Test(.enabled(if: baseURI != nil && psql != nil, "needs OBJECTGRAPH_TEST_POSTGRES (source .ci/postgres.sh) and psql"))
    func commandsOtherThanImportRefuseADatabaseWithoutTables() throws {
        let database = try ScratchDatabase()
        defer { withExtendedLifetime(database) {} }
        let store = database.uri
        let model = try ModelFixtures.catalog(in: folder.url).path
        for command in [["query", "--entity", "Shelf"], ["export", "--entity", "Shelf"], ["history"],
            ["update", "--entity", "Shelf", "--where", "TRUEPREDICATE", "--set", "name=x"],
            ["delete", "--entity", "Shelf", "--where", "TRUEPREDICATE"], ["store-info"]]
        {
            let result = try ObjectGraphTool.run([command[0], "--model", model, "--store", store] + command.dropFirst())
            #expect(result.status == 1, "\(command): \(result.statusDescription)")
            #expect(result.standardError.contains("the database has no ObjectGraph tables"), "\(command): \(result.standardError)")
        }
        let file = try folder.write(#"[{"name": "Oak", "capacity": 12}]"#, to: "shelves.json")
        try ObjectGraphTool.succeed(["import", "--model", model, "--store", store, "--entity", "Shelf", file.path])
        let count = try ObjectGraphTool.succeed(["query", "--model", model, "--store", store, "--entity", "Shelf", "--count"])
        #expect(count == "1\n")
    }

    @Test func aPasswordInTheURIIsNeverPrinted() throws {
        let model = try ModelFixtures.catalog(in: folder.url).path
        let result = try ObjectGraphTool.run(["query", "--model", model, "--store",
            "postgresql://someone:s3cr3t-w0rd@127.0.0.1:1/nothing", "--entity", "Shelf"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("postgresql://someone:***@127.0.0.1:1/nothing"), "\(result.standardError)")
        #expect(!(result.standardError + result.standardOutput).contains("s3cr3t-w0rd"))
    }

    /// A `postgresql://` store that is not a valid URI (a bad host or port) is refused as such, by every command,
    /// without its password and without a file of that name being opened or created.
    @Test(arguments: [["query", "--entity", "Shelf"], ["import", "--entity", "Shelf", "rows.json"], ["store-info"],
        ["export", "--entity", "Shelf"], ["migrate", "--dry-run"]])
    func aMalformedURIIsRefusedWithoutItsPassword(_ command: [String]) throws {
        let model = try ModelFixtures.catalog(in: folder.url).path
        for store in ["postgresql://someone:s3cr3t-w0rd@[bad/nothing", "postgres://someone:s3cr3t-w0rd@127.0.0.1:port/x"] {
            let result = try ObjectGraphTool.run([command[0], "--model", model, "--store", store] + command.dropFirst())
            #expect(result.status != 0)
            #expect(result.standardError.contains("--store is not a valid postgresql:// URI"), "\(result.standardError)")
            #expect(!(result.standardError + result.standardOutput).contains("s3cr3t-w0rd"), "\(result.standardError)")
        }
        #expect(!FileManager.default.fileExists(atPath: "postgresql:") && !FileManager.default.fileExists(atPath: "postgres:"))
    }
}
