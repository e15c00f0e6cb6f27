import Foundation
import Testing
import TestSupport
@testable import ObjectGraph

/// Changes from anywhere (issue 31) that the history cannot tell object by object: another writer restores a
/// backup over the store, migrates it, or commits to a store that records no history. A watching coordinator
/// sends one event that invalidates all objects; its contexts refresh everything (keeping unsaved changes) and
/// their controllers fetch again.
@Suite struct StoreReplacementTests {
    typealias Watcher = RemoteChangeTests.Watcher

    /// Inserts people named `names` through `coordinator` and saves.
    static func insert(_ names: [String], into coordinator: PersistentStoreCoordinator) throws {
        let context = PersistentHistoryTests.context(coordinator, author: "writer")
        try context.performAndWait {
            for name in names {
                let person = try context.insertNewObject(forEntityName: "Person")
                person["lastName"] = name
            }
            try context.save()
        }
    }

    static func names(_ controller: FetchedResultsController<ManagedObject>) -> [String] {
        (controller.fetchedObjects ?? []).compactMap { $0["lastName"] as String? }
    }

    @Test func aRestoredBackupReplacesTheListAndLaterCommitsStillArrive() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("shared.sqlite")
        let backupURL = directory.file("backup.sqlite")
        let writer = try PersistentHistoryTests.coordinator(url)
        let reader = try PersistentHistoryTests.coordinator(url, watching: true)
        let watcher = try Watcher(reader, entity: "Person", sortKey: "lastName")
        try Self.insert(["A", "B", "C"], into: writer)
        #expect(watcher.wait { Self.names($0) == ["A", "B", "C"] })
        let store = try #require(writer.persistentStores.first)
        try writer.backupPersistentStore(store, to: backupURL)
        try Self.insert(["D", "E", "F", "G"], into: writer)
        #expect(watcher.wait { Self.names($0) == ["A", "B", "C", "D", "E", "F", "G"] })
        // An unsaved change in the watching context survives the restore.
        try watcher.context.performAndWait {
            let first = try #require(watcher.controller.fetchedObjects?.first)
            first["firstName"] = "typed"
        }

        // Another coordinator (as `objectgraph backup --force` would) restores the backup over the live file.
        let restorer = PersistentStoreCoordinator(managedObjectModel: try PersistentHistoryTests.model())
        try restorer.replacePersistentStore(at: url, withPersistentStoreFrom: backupURL)
        #expect(watcher.wait { Self.names($0) == ["A", "B", "C"] })
        #expect(watcher.events.withLock { $0.contains { $0.kind == .contentsReplaced && $0.invalidatesAllObjects } })
        try watcher.context.performAndWait {
            let first = try #require(watcher.controller.fetchedObjects?.first)
            #expect(first["firstName"] as String? == "typed")
            #expect(first.hasChanges)
        }

        // The restored history hands out transaction numbers the watcher saw before the restore: the next commit
        // must still arrive.
        try Self.insert(["H"], into: writer)
        #expect(watcher.wait { Self.names($0) == ["A", "B", "C", "H"] })
    }

    @Test func commitsToAStoreWithoutHistoryStillReachTheControllers() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("plain.sqlite")
        let model = try PersistentHistoryTests.model()
        let writer = PersistentStoreCoordinator(managedObjectModel: model)
        try writer.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: PersistentStoreOptions())
        let reader = PersistentStoreCoordinator(managedObjectModel: model)
        var options = PersistentStoreOptions()
        options.remoteChangeNotifications = true
        try reader.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: options)
        let watcher = try Watcher(reader, entity: "Person", sortKey: "lastName")
        try Self.insert(["A", "B"], into: writer)
        #expect(watcher.wait { Self.names($0) == ["A", "B"] })
        _ = try writer.execute(BatchDeleteRequest(entityName: "Person", predicate: try FetchPredicate(format: "lastName == 'A'")))
        #expect(watcher.wait { Self.names($0) == ["B"] })
        #expect(watcher.events.withLock { $0.allSatisfy { $0.kind == .contentsReplaced } })
    }

    @Test func anotherProcesssMigrationIsReportedAndSavesOfTheOldModelAreRefused() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("library.sqlite")
        var options = PersistentStoreOptions()
        options.remoteChangeNotifications = true
        let writerOfVersion1 = try MigrationFixtures.open(url, bundle: MigrationFixtures.library, version: "Library")
        try MigrationFixtures.fillLibraryVersion1(MigrationFixtures.context(writerOfVersion1))
        let reader = try MigrationFixtures.open(url, bundle: MigrationFixtures.library, version: "Library",
            options: options)
        let events = Locked<[StoreCommitEvent]>([])
        let arrived = DispatchSemaphore(value: 0)
        let token = reader.addCommitObserver { event in
            events.withLock { $0.append(event) }
            arrived.signal()
        }
        defer { withExtendedLifetime(token) {} }
        let context = MigrationFixtures.context(reader)
        try context.performAndWait {
            let author = try context.insertNewObject(forEntityName: "Author")
            author["name"] = "Cy"
        }

        let bundle = try ModelBundle(contentsOf: MigrationFixtures.library)
        try LightweightMigrator(bundle: bundle, destination: try bundle.model(named: "Library 2")).migrate(storeAt: url)
        #expect(arrived.wait(timeout: .now() + 10) == .success)
        let event = try #require(events.withLock { $0.first })
        #expect(event.kind == .migration)
        #expect(event.invalidatesAllObjects)
        let store = try #require(reader.persistentStores.first)
        #expect(reader.storeMigratedElsewhere(store)?.modelVersionName == "Library 2")

        // A save written for version 1 would land in version 2's tables: refused, and the context keeps its change.
        context.performAndWait {
            #expect {
                try context.save()
            } throws: { error in
                guard case ObjectGraphError.incompatibleModel(_, _, let reason) = error else { return false }
                return reason.contains("another process migrated the store") && reason.contains("Library 2")
            }
            #expect(context.insertedObjects.count == 1)
        }
    }
}

extension StoreReplacementTests {
    @Test func aMigrationOfAStoreWithHistoryIsRecordedWithItsAuthor() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("library.sqlite")
        var options = PersistentStoreOptions()
        options.persistentHistoryTracking = true
        let writer = try MigrationFixtures.open(url, bundle: MigrationFixtures.library, version: "Library", options: options)
        try MigrationFixtures.fillLibraryVersion1(MigrationFixtures.context(writer))
        let before = try writer.fetchHistory(after: nil as HistoryToken?)
        for store in writer.persistentStores { try writer.remove(store) }

        let bundle = try ModelBundle(contentsOf: MigrationFixtures.library)
        var migrator = LightweightMigrator(bundle: bundle, destination: try bundle.model(named: "Library 2"))
        migrator.transactionAuthor = "tool"
        try migrator.migrate(storeAt: url)
        let reader = try MigrationFixtures.open(url, bundle: MigrationFixtures.library, version: "Library 2", options: options)
        let after = try reader.fetchHistory(after: nil as HistoryToken?)
        #expect(after.count == before.count + 1)
        let migration = try #require(after.last)
        #expect(migration.author == "tool" && migration.contextName == "migration" && migration.changes.isEmpty)
    }
}
