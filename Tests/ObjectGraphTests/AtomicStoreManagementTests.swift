import Foundation
import Testing
@testable import ObjectGraph

/// Destroying, replacing, backing up and migrating atomic stores (the management graph of
/// StoreManagementTests: ordered and unordered to-many, many-to-many, a sub-entity, versions above 1, a
/// deleted row, keys reserved ahead of a save).
@Suite struct AtomicStoreManagementTests {
    @Test func migrateAtomicToSQLiteAndBackKeepsEverything() throws {
        let graph = try ManagedGraph(.atomic, file: "graph.store")
        let before = try graphDescription(graph.coordinator)
        let versions = try rowVersions(graph.store, graph.model)
        let atomicFile = graph.directory.file("graph.store")
        let atomicBytes = try Data(contentsOf: atomicFile)

        let sqliteFile = graph.directory.file("from-atomic.sqlite")
        let onDisk = try graph.coordinator.migratePersistentStore(graph.store, to: sqliteFile, type: .sqlite)
        #expect(onDisk.type == .sqlite && onDisk.identifier == graph.store.identifier)
        #expect(onDisk.metadata.userInfo["purpose"] == .string("store management tests"))
        #expect(try graphDescription(graph.coordinator) == before)
        #expect(try rowVersions(onDisk, graph.model) == versions)
        // The old atomic store no longer writes its file, which is as it was.
        let oldRows = try #require(graph.store.backend as? InMemoryStore)
        let oldFile = try #require(oldRows.file)
        #expect(throws: ObjectGraphError.self) { try oldFile.replaceMetadata(graph.store.metadata, rows: oldRows) }
        #expect(try Data(contentsOf: atomicFile) == atomicBytes)

        let atomicAgain = graph.directory.file("again/graph.store")
        let backToAtomic = try graph.coordinator.migratePersistentStore(onDisk, to: atomicAgain, type: .atomic)
        #expect(backToAtomic.type == .atomic && backToAtomic.identifier == graph.store.identifier)
        #expect(try graphDescription(graph.coordinator) == before)
        #expect(try rowVersions(backToAtomic, graph.model) == versions)
        try StoreManagementTests().checkIDsKeepWorking(graph, migrated: backToAtomic)
        // A fresh coordinator reads the new file: the graph (with the later save), the UUID, the metadata.
        let reader = PersistentStoreCoordinator(managedObjectModel: graph.model)
        let reread = try reader.addPersistentStore(ofType: .atomic, at: atomicAgain)
        #expect(reread.identifier == graph.store.identifier)
        #expect(reread.metadata.userInfo["purpose"] == .string("store management tests"))
        #expect(try graphDescription(reader) == graphDescription(graph.coordinator))
    }

    @Test func backupAndReplaceCopyTheFileAtomically() throws {
        let graph = try ManagedGraph(.atomic, file: "graph.store")
        let before = try graphDescription(graph.coordinator)
        let backup = graph.directory.file("backups/graph-backup.store")
        try graph.coordinator.backupPersistentStore(graph.store, to: backup)
        #expect(try Data(contentsOf: backup) == Data(contentsOf: graph.directory.file("graph.store")))
        let error = try #require(throws: ObjectGraphError.self) {
            try graph.coordinator.backupPersistentStore(graph.store, to: backup)
        }
        guard case .destinationExists = error else {
            Issue.record("\(error)")
            return
        }

        // Change the live store, then restore the backup over it: remove, replace, add.
        try graph.context.performAndWait {
            let tag = try graph.context.insertNewObject(forEntityName: "Tag")
            tag["name"] = "after the backup"
            try graph.context.save()
        }
        let live = graph.directory.file("graph.store")
        #expect(throws: ObjectGraphError.self) {
            try graph.coordinator.replacePersistentStore(at: live, withPersistentStoreFrom: backup, type: .atomic)
        }
        try graph.coordinator.remove(graph.store)
        try graph.coordinator.replacePersistentStore(at: live, withPersistentStoreFrom: backup, type: .atomic)
        let restored = try graph.coordinator.addPersistentStore(ofType: .atomic, at: live)
        #expect(restored.identifier == graph.store.identifier)
        #expect(try graphDescription(graph.coordinator) == before)

        // Neither side may be something else: an SQLite store, a text file.
        let sqlite = graph.directory.file("other.sqlite")
        try PersistentStoreCoordinator(managedObjectModel: graph.model).addPersistentStore(ofType: .sqlite, at: sqlite)
        let text = graph.directory.file("notes.txt")
        try Data("notes".utf8).write(to: text)
        for (destination, source) in [(graph.directory.file("x.store"), sqlite), (text, backup), (sqlite, backup)] {
            let before = try? Data(contentsOf: destination)
            let error = try #require(throws: ObjectGraphError.self) {
                try graph.coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: source, type: .atomic)
            }
            guard case .notAnObjectGraphStore = error else {
            Issue.record("\(error)")
            return
        }
            #expect((try? Data(contentsOf: destination)) == before)
        }
    }

    @Test func destroyRemovesTheFileAndItsTemporariesAndDetachesTheStore() throws {
        let graph = try ManagedGraph(.atomic, file: "graph.store")
        let url = graph.directory.file("graph.store")
        let leftover = graph.directory.file(".graph.store.objectgraph-temp-1")
        try Data("x".utf8).write(to: leftover)
        // Something that is not an atomic store is never deleted.
        let sqlite = graph.directory.file("other.sqlite")
        try PersistentStoreCoordinator(managedObjectModel: graph.model).addPersistentStore(ofType: .sqlite, at: sqlite)
        #expect(throws: ObjectGraphError.self) { try graph.coordinator.destroyPersistentStore(at: sqlite, type: .atomic) }
        #expect(FileManager.default.fileExists(atPath: sqlite.path))

        try graph.coordinator.destroyPersistentStore(at: url, type: .atomic)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
        #expect(graph.coordinator.persistentStores.isEmpty)
        // Its contexts can no longer save there: the save fails and keeps its changes.
        let context = graph.context
        context.performAndWait {
            #expect(throws: ObjectGraphError.self) {
                let tag = try context.insertNewObject(forEntityName: "Tag")
                tag["name"] = "late"
                try context.save()
            }
            #expect(context.hasChanges)
        }
        #expect(!FileManager.default.fileExists(atPath: url.path))
        // A missing store is not an error; the same URL makes a new, empty store.
        try graph.coordinator.destroyPersistentStore(at: url, type: .atomic)
        let fresh = try graph.coordinator.addPersistentStore(ofType: .atomic, at: url)
        #expect(fresh.identifier != graph.store.identifier)
        #expect(try graphDescription(graph.coordinator).isEmpty)
    }
}
