import Foundation
import SQLiteStorage
import Testing
import TestSupport
@testable import ObjectGraph

/// Migrating a store Core Data wrote (issue 33): its version is found by Core Data's hashes (a compiled `.momd`)
/// or by its schema (a source `.xcdatamodeld`), and the inferred migration keeps every row.
@Suite struct AppleStoreMigrationTests {
    static let subtitle = #"<attribute name="subtitle" optional="YES" attributeType="String"/>"#

    /// `Library.xcdatamodeld` with version 1 the store's model and version 2 adding `Book.subtitle`.
    static func sourceBundle(in directory: TemporaryDirectory) throws -> URL {
        let bundle = directory.file("AppleLayout.xcdatamodeld")
        for (name, xml) in [("AppleLayout", AppleLayoutStore.modelXML()),
            ("AppleLayout 2", AppleLayoutStore.modelXML(bookExtra: subtitle))]
        {
            let folder = bundle.appendingPathComponent("\(name).xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(xml.utf8).write(to: folder.appendingPathComponent("contents"))
        }
        return bundle
    }

    /// Rows a migration must keep, read with SQL.
    static func rows(_ url: URL) throws -> [[SQLiteValue]] {
        try MigrationFixtures.rows(url, "SELECT Z_PK, Z_ENT, ZTITLE, ZPUBLISHER FROM ZBOOK ORDER BY Z_PK")
            + MigrationFixtures.rows(url, "SELECT Z_1AUTHORS, Z_2BOOKS FROM Z_1BOOKS ORDER BY 1, 2")
            + MigrationFixtures.rows(url, "SELECT Z_PK, ZNUMBER, ZBOOK FROM ZPAGE ORDER BY Z_PK")
    }

    @Test func aSourceBundleFindsTheStoresVersionByItsSchemaAndMigratesIt() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("apple.sqlite")
        try AppleLayoutStore.write(to: url)
        let before = try Self.rows(url)
        let bundle = try ModelBundle(contentsOf: try Self.sourceBundle(in: directory))
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try bundle.currentModel())
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: PersistentStoreOptions())
        #expect(try Self.rows(url) == before)
        #expect(try MigrationFixtures.columns(url, "ZBOOK").contains("ZSUBTITLE"))
        let context = MigrationFixtures.context(coordinator)
        let titles = try context.performAndWait {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Book", sortCriteria: [SortCriterion("title")]))
                .map { "\($0["title"] as String? ?? "-")/\($0["subtitle"] as String? ?? "-")" }
        }
        #expect(titles == ["Compilers/-", "Notes/-"])
        // Core Data's own keys other than the hashes stay.
        #expect(try AppleLayoutStore.plist(url)["lastSyncToken"] as? String == "token-41")
    }

    @Test func aCompiledBundleFindsItByCoreDatasHashesAndRecordsTheDestinations() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("apple.sqlite")
        try AppleLayoutStore.write(to: url)
        let before = try Self.rows(url)
        let source = try ModelBundle(contentsOf: try Self.sourceBundle(in: directory))
        let versions = try source.versionNames.map { ($0, try source.model(named: $0)) }
        let second = Dictionary(uniqueKeysWithValues: AppleLayoutStore.entityHashes.map { ($0.key, Data($0.value.reversed())) })
        let momd = try CompiledModelFixtures.momd(versions,
            hashes: ["AppleLayout": AppleLayoutStore.entityHashes, "AppleLayout 2": second], in: directory,
            name: "AppleLayout")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel.load(contentsOf: momd))
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: PersistentStoreOptions())
        #expect(try Self.rows(url) == before)
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(at: url)
        #expect(metadata.entityVersionHashes == second)
        #expect(metadata.writer == .coreData(frameworkVersion: AppleLayoutStore.frameworkVersion))
    }

    @Test func withoutTheEarlierVersionsTheStoreIsRefusedAndUntouched() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("apple.sqlite")
        try AppleLayoutStore.write(to: url)
        let bytes = try Data(contentsOf: url)
        // A bundle holding only the new version: nothing matches the store.
        let bundle = directory.file("Only.xcdatamodeld/Only.xcdatamodel")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        try Data(AppleLayoutStore.modelXML(bookExtra: Self.subtitle).utf8).write(to: bundle.appendingPathComponent("contents"))
        let model = try ManagedObjectModel.load(contentsOf: directory.file("Only.xcdatamodeld"))
        #expect {
            try PersistentStoreCoordinator(managedObjectModel: model)
                .addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: PersistentStoreOptions())
        } throws: { error in
            guard case ObjectGraphError.incompatibleStore(_, let reason) = error else { return false }
            return reason.contains("ZSUBTITLE") && reason.contains("cannot be migrated")
        }
        #expect(try Data(contentsOf: url) == bytes)
    }
}
