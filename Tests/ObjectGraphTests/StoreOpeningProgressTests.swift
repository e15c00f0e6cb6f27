import Foundation
import SQLiteStorage
import Synchronization
import Testing
import TestSupport
@testable import ObjectGraph

/// Opening a store that must be migrated, or whose model asks for a new text index, reports through the caller's
/// current `Progress`; the work is done in ranges of keys then, and gives exactly the rows one statement gives.
@Suite struct StoreOpeningProgressTests {
    /// A table of `count` rows with keys spread unevenly (gaps of 1 to 40), copied with a filter.
    static func sourceTable(_ connection: SQLiteConnection, count: Int, seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        try connection.execute("CREATE TABLE SRC (Z_PK INTEGER PRIMARY KEY, V INTEGER)")
        try connection.execute("CREATE TABLE DEST (Z_PK INTEGER PRIMARY KEY, V INTEGER)")
        let insert = try connection.prepare("INSERT INTO SRC (Z_PK, V) VALUES (?, ?)")
        var key: Int64 = Int64.random(in: 1...1_000, using: &random)
        try connection.execute("BEGIN")
        for _ in 0..<count {
            try insert.run([.integer(key), .integer(Int64.random(in: 0..<1_000, using: &random))])
            key += Int64.random(in: 1...40, using: &random)
        }
        try connection.execute("COMMIT")
    }

    @Test(arguments: [1, 999, 5_000, 123_457] as [Int])
    func rangesCopyWhatOneStatementCopies(count: Int) throws {
        let directory = TemporaryDirectory()
        let connection = try SQLiteConnection(path: directory.file("fill.sqlite").path)
        try Self.sourceTable(connection, count: count, seed: UInt64(count))
        let sql = "INSERT INTO DEST (Z_PK, V) SELECT old.Z_PK, old.V FROM SRC AS old WHERE old.V % 3 != 0"
        let expected = try connection.rows("SELECT Z_PK, V FROM SRC WHERE V % 3 != 0 ORDER BY Z_PK")

        // Nobody follows: one statement, no ranges.
        var reported: [(Int64, Int64)] = []
        try KeyRangeFill.run(connection, sql: sql, sourceTable: "SRC", keyColumn: "old.Z_PK", hasWhere: true,
            progress: nil) { reported.append(($0, $1)) }
        #expect(reported.isEmpty)
        #expect(try connection.rows("SELECT Z_PK, V FROM DEST ORDER BY Z_PK") == expected)

        // Followed: ranges, each reported, ending at the table's size; the same rows.
        try connection.execute("DELETE FROM DEST")
        let progress = Progress(totalUnitCount: StoreOpeningProgress.units)
        try KeyRangeFill.run(connection, sql: sql, sourceTable: "SRC", keyColumn: "old.Z_PK", hasWhere: true,
            progress: StoreOpeningProgress(progress)) { reported.append(($0, $1)) }
        #expect(try connection.rows("SELECT Z_PK, V FROM DEST ORDER BY Z_PK") == expected)
        let ranges = max(1, min(KeyRangeFill.maximumRanges, Int64(count) / KeyRangeFill.minimumRowsPerRange))
        #expect(reported.count == Int(ranges))
        #expect(zip(reported, reported.dropFirst()).allSatisfy { $0.0 <= $1.0 })
        #expect(reported.last.map { $0.0 == Int64(count) && $0.1 == Int64(count) } == true)
        #expect(progress.fractionCompleted == 1)
    }

    /// Slices report into the one progress in proportion to their weights, nested as the work is split, and the
    /// count never goes back.
    @Test func slicesReportTheirShareOfTheWhole() throws {
        let progress = Progress(totalUnitCount: StoreOpeningProgress.units)
        let whole = StoreOpeningProgress(progress)
        let halves = whole.slices([1, 1])
        StoreOpeningProgress.run(halves[0]) {
            let tables = StoreOpeningProgress.split([1, 3])
            tables[1]?.report(0.5)  // (1 + 1.5) / 4 of the first half
            #expect(progress.completedUnitCount == 3_125)
            tables[0]?.report(1)  // an earlier table reporting late moves nothing back
            #expect(progress.completedUnitCount == 3_125)
        }
        #expect(progress.completedUnitCount == 5_000, "a step is done when it returns")
        halves[1].report(0.1)
        #expect(progress.completedUnitCount == 5_500)
        whole.report(1)
        #expect(progress.fractionCompleted == 1)
        #expect(StoreOpeningProgress.split([1, 2]).allSatisfy { $0 == nil }, "nobody follows outside a run")
    }

    /// A store type of someone else's sees whether the opening is followed and reports into the caller's
    /// progress through its open request (as the PostgreSQL store does while it reads its rows).
    @Test func aRegisteredStoreReportsIntoTheCallersProgress() throws {
        let type = PersistentStoreType(rawValue: "OpeningProgressTest")
        let seen = Mutex<[(followed: Bool, halfway: Double?)]>([])
        nonisolated(unsafe) var following: Progress?
        PersistentStoreCoordinator.registerStoreType(type) { request throws(ObjectGraphError) in
            request.reportProgress(0.5)
            seen.withLock { $0.append((request.isProgressFollowed, following?.fractionCompleted)) }
            let identifier = UUID().uuidString
            return OpenedStore(store: InMemoryStore(identifier: identifier, model: request.model, isReadOnly: false),
                metadata: StoreMetadata(storeType: type.rawValue, storeUUID: identifier,
                    entityVersionHashes: request.model.entityVersionHashes))
        }
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Note", attributes: [AttributeDescription(name: "title", type: .string)]),
        ])
        try PersistentStoreCoordinator(managedObjectModel: model).addPersistentStore(ofType: type,
            configurationName: nil, at: nil, options: PersistentStoreOptions())
        let progress = Progress(totalUnitCount: 1)
        following = progress
        progress.becomeCurrent(withPendingUnitCount: 1)
        try PersistentStoreCoordinator(managedObjectModel: model).addPersistentStore(ofType: type,
            configurationName: nil, at: nil, options: PersistentStoreOptions())
        progress.resignCurrent()
        let calls = seen.withLock { $0 }
        #expect(calls.map(\.followed) == [false, true])
        #expect(calls.last?.halfway == 0.5)
        #expect(progress.fractionCompleted == 1)
    }

    static let version1 = """
        <entity name="Note" representedClassName="Note">
            <attribute name="title" optional="YES" attributeType="String"/>
        </entity>
        """
    static let version2 = """
        <entity name="Note" representedClassName="Note">
            <attribute name="title" optional="YES" attributeType="String" spotlightIndexingEnabled="YES"/>
            <attribute name="stars" optional="YES" attributeType="Integer 16" defaultValueString="0"/>
        </entity>
        """

    @Test func aMigrationAndANewTextIndexReportTheirProgress() throws {
        let directory = TemporaryDirectory()
        let bundle = try MigrationFixtures.bundle([Self.version1, Self.version2], in: directory)
        let url = directory.file("notes.sqlite")
        let count = 5_000
        do {
            let coordinator = try MigrationFixtures.open(url, bundle: bundle, version: "Test")
            let context = MigrationFixtures.context(coordinator)
            try context.performAndWait {
                for number in 0..<count {
                    let note = try context.insertNewObject(forEntityName: "Note")
                    note["title"] = "note \(number)"
                }
                try context.save()
            }
        }
        // (The model is loaded first: Foundation's file reading makes progress objects of its own, which would
        // take the pending units.)
        let model = try ModelBundle(contentsOf: bundle).currentModel()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let progress = Progress(totalUnitCount: 10)
        #expect(progress.fractionCompleted == 0)
        progress.becomeCurrent(withPendingUnitCount: 10)
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: PersistentStoreOptions())
        progress.resignCurrent()
        #expect(progress.fractionCompleted == 1)
        // Every note came through, and the new index answers.
        let context = MigrationFixtures.context(coordinator)
        let matches = try context.performAndWait {
            try context.count(for: FetchRequest<ManagedObject>(entityName: "Note",
                predicate: try FetchPredicate(format: "title CONTAINS[cd] %@", "NOTE 12")))
        }
        #expect(matches == 111, "note 12, note 120…129, note 1200…1299")
        #expect(try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Note")) } == count)
    }
}
