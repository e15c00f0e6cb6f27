import Foundation
import Testing
@testable import ObjectGraph
import SQLiteStorage

#if canImport(Glibc)
import Glibc
#endif

/// A migration killed at random moments (SIGKILL, in a child process: `objectgraph-crash-importer --migrate`)
/// leaves either the old store, row for row, or the fully migrated one; never a mix. The store is large enough
/// (30,000 books) that the kills land inside the migration's transaction, which the leftover `-wal` frames show.
@Suite(.serialized) struct MigrationKillTests {
    let directory = TemporaryDirectory()

    /// A version-1 Library store with `books` books, written with SQL after the framework created it.
    func writeLargeVersion1(_ url: URL, books: Int) throws {
        let coordinator = try MigrationFixtures.open(url, bundle: MigrationFixtures.library, version: "Library")
        try coordinator.remove(try #require(coordinator.persistentStores.first))
        let connection = try SQLiteConnection(path: url.path)
        defer { connection.close() }
        let numbers = Dictionary(uniqueKeysWithValues: try connection.rows("SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY").compactMap {
            row -> (String, Int64)? in
            guard case .text(let name) = row[0], case .integer(let number) = row[1] else { return nil }
            return (name, number)
        })
        let authors = books / 10
        try connection.transaction(.immediate) {
            try connection.execute("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(authors))
                INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT, ZBORN, ZRATING, ZNAME)
                SELECT i, \(numbers["Author"] ?? 0), 1, 1800 + i % 200, (i % 10) / 2.0, 'author ' || i FROM n
                """)
            try connection.execute("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(books))
                INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZAUTHOR, ZPAGES, ZISBN, ZTITLE)
                SELECT i, \(numbers["Book"] ?? 0), 1, 1 + i % \(authors), i % 700, 'isbn-' || i,
                    'title of book ' || i || ' ' || hex(randomblob(8)) FROM n
                """)
            try connection.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(authors) WHERE Z_NAME = 'Author'")
            try connection.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(books) WHERE Z_NAME = 'Book'")
        }
    }

    /// Every row of every table, in order: what "the old store intact" is compared with.
    static func dump(_ url: URL) throws -> [String] {
        let connection = try SQLiteConnection(path: url.path)
        defer { connection.close() }
        var lines: [String] = []
        for row in try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('Z_METADATA', 'Z_MODELCACHE') ORDER BY name") {
            guard case .text(let table) = row[0] else { continue }
            for values in try connection.rows("SELECT * FROM \(table) ORDER BY 1") {
                lines.append(table + ": " + values.map { "\($0)" }.joined(separator: "|"))
            }
        }
        return lines.sorted()
    }

    @Test func killedMigrationsLeaveTheOldStoreOrTheNewOneNeverAMix() throws {
        let importer = try CrashImporter.require()
        let pristine = directory.file("pristine.sqlite")
        try writeLargeVersion1(pristine, books: 30_000)
        let original = try Self.dump(pristine)
        let version1 = try ModelBundle(contentsOf: MigrationFixtures.library).model(named: "Library").entityVersionHashes
        let version3 = try ModelBundle(contentsOf: MigrationFixtures.library).currentModel().entityVersionHashes

        // One unkilled run measures how long the migration takes.
        let timed = directory.file("timed.sqlite")
        try FileManager.default.copyItem(at: pristine, to: timed)
        let start = Date()
        let done = try CrashImporter.run(importer, [timed.path, "--migrate", MigrationFixtures.library.path],
            errorLog: directory.file("timed.log"))
        let duration = Date().timeIntervalSince(start)
        #expect(RunningChildProcess.exitStatus(done.status) == 0 && done.lines == ["M", "D"])
        let migrated = try Self.dump(timed)

        var random = SeededRandom(seed: 0x5EED_0011)
        var intact = 0, completed = 0, tornTransactions = 0
        for round in 0..<12 {
            let url = directory.file("round\(round).sqlite")
            try FileManager.default.copyItem(at: pristine, to: url)
            let child = try RunningChildProcess(executable: importer,
                arguments: [url.path, "--migrate", MigrationFixtures.library.path],
                errorLog: directory.file("round\(round).log"))
            _ = child.waitForLines(1, timeout: 30)
            child.collect(for: Double(random.next() % 1000) / 1000 * duration * 1.1)
            child.signal(SIGKILL)
            _ = try child.waitForExit(timeout: 30)
            let walSize = (try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int) ?? 0
            let metadata = try SQLiteStore.readMetadata(path: url.path)
            #expect(try MigrationFixtures.rows(url, "PRAGMA integrity_check") == [[.text("ok")]])
            if metadata.entityVersionHashes == version1 {
                #expect(try Self.dump(url) == original, "round \(round): a killed migration changed the old store")
                intact += 1
                if walSize > 0 { tornTransactions += 1 }
            } else {
                #expect(metadata.entityVersionHashes == version3)
                #expect(try Self.dump(url) == migrated, "round \(round): a finished migration differs")
                completed += 1
            }
            // Either way, adding the store again ends at version 3 with the same rows.
            _ = try MigrationFixtures.open(url, bundle: MigrationFixtures.library)
            #expect(try Self.dump(url) == migrated)
        }
        #expect(intact + completed == 12)
        print("migration kill test: \(intact) intact (\(tornTransactions) with an unfinished transaction), \(completed) completed; one migration takes \(duration) s")
        #expect(tornTransactions > 0, "no kill landed inside the migration's transaction (\(duration) s per migration)")
    }
}
