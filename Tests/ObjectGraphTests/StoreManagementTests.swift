import Foundation
import SQLiteStorage
import Testing
@testable import ObjectGraph

/// Company 1—n Employee (ordered), Manager a sub-entity of Employee, Employee n—m Tag, Employee → mentor
/// (to-one, no inverse), Company → favourites (to-many, no inverse), Project n—m Employee (ordered on the
/// project's side).
func managementModel() throws -> ManagedObjectModel {
    try ManagedObjectModel(entities: [
        EntityDescription(name: "Company", attributes: [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "logo", type: .binary),
        ], relationships: [
            RelationshipDescription(name: "employees", destination: "Employee", inverse: "company", isToMany: true,
                isOrdered: true),
            RelationshipDescription(name: "favourites", destination: "Tag", isToMany: true),
        ]),
        EntityDescription(name: "Employee", attributes: [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "salary", type: .double),
            AttributeDescription(name: "hired", type: .date),
            AttributeDescription(name: "scratch", type: .string, isTransient: true),
        ], relationships: [
            RelationshipDescription(name: "company", destination: "Company", inverse: "employees"),
            RelationshipDescription(name: "tags", destination: "Tag", inverse: "employees", isToMany: true),
            RelationshipDescription(name: "mentor", destination: "Employee"),
            RelationshipDescription(name: "projects", destination: "Project", inverse: "members", isToMany: true),
        ]),
        EntityDescription(name: "Manager", attributes: [AttributeDescription(name: "level", type: .integer64)],
            parentEntity: "Employee"),
        EntityDescription(name: "Tag", attributes: [AttributeDescription(name: "name", type: .string)],
            relationships: [
                RelationshipDescription(name: "employees", destination: "Employee", inverse: "tags", isToMany: true),
            ]),
        EntityDescription(name: "Project", attributes: [AttributeDescription(name: "name", type: .string)],
            relationships: [
                RelationshipDescription(name: "members", destination: "Employee", inverse: "projects", isToMany: true,
                    isOrdered: true),
            ]),
    ])
}

/// What the object graph looks like through a fresh context, by object URI: attributes and relationships
/// (to-many as URIs, in order for ordered relationships, else sorted).
func graphDescription(_ coordinator: PersistentStoreCoordinator) throws -> [String: String] {
    let context = ManagedObjectContext(concurrencyType: .privateQueue)
    context.persistentStoreCoordinator = coordinator
    return try context.performAndWait {
        var result: [String: String] = [:]
        for name in ["Company", "Employee", "Tag", "Project"] {
            for object in try context.fetch(FetchRequest<ManagedObject>(entityName: name)) {
                var parts: [String] = [object.entity.name]
                for attribute in object.entity.attributes where !attribute.isTransient {
                    parts.append("\(attribute.name)=\(object.value(forKey: attribute.name))")
                }
                for relationship in object.entity.relationships {
                    if relationship.isToMany {
                        var uris = object.relatedObjects(forKey: relationship.name).map(\.objectID.uriRepresentation.absoluteString)
                        if !relationship.isOrdered { uris.sort() }
                        parts.append("\(relationship.name)=[\(uris.joined(separator: ","))]")
                    } else {
                        parts.append("\(relationship.name)=\(object.relatedObject(forKey: relationship.name)?.objectID.uriRepresentation.absoluteString ?? "nil")")
                    }
                }
                result[object.objectID.uriRepresentation.absoluteString] = parts.joined(separator: " ")
            }
        }
        return result
    }
}

/// Every row's version, by object ID, read straight from the store.
func rowVersions(_ store: PersistentStore, _ model: ManagedObjectModel) throws -> [ManagedObjectID: Int64] {
    let contents = try StoreContents.read(from: store, model: model)
    return Dictionary(uniqueKeysWithValues: contents.rows.map { ($0.objectID, $0.version) })
}

/// A coordinator with one store of the management model, filled with a small graph whose rows have versions
/// above 1, a deleted row and keys reserved ahead of a save (so `Z_MAX` is past the highest row).
struct ManagedGraph {
    let directory = TemporaryDirectory(prefix: "store-management")
    let model: ManagedObjectModel
    let coordinator: PersistentStoreCoordinator
    let store: PersistentStore
    let context: ManagedObjectContext
    /// IDs of the objects kept, by name.
    var ids: [String: ManagedObjectID] = [:]

    init(_ kind: StoreKind, file: String = "graph.sqlite") throws {
        model = try managementModel()
        coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        store = try coordinator.addPersistentStore(ofType: kind.storeType,
            at: directory.file(file))
        var metadata = store.metadata
        metadata.userInfo["purpose"] = .string("store management tests")
        try coordinator.setMetadata(metadata, for: store)
        context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        let context = self.context
        ids = try context.performAndWait {
            let acme = try context.insertNewObject(forEntityName: "Company")
            acme["name"] = "Acme"
            acme["logo"] = Data([0, 1, 2, 255])
            let tags = try ["swift", "sql", "c"].map { name in
                let tag = try context.insertNewObject(forEntityName: "Tag")
                tag["name"] = name
                return tag
            }
            acme.setRelatedObjects([tags[2], tags[0]], forKey: "favourites")
            let boss = try context.insertNewObject(forEntityName: "Manager")
            boss["name"] = "Boss"
            boss["level"] = 3
            var employees: [ManagedObject] = [boss]
            for (index, name) in ["Zoe", "Ada", "Mia", "Bob", "Temp"].enumerated() {
                let employee = try context.insertNewObject(forEntityName: "Employee")
                employee["name"] = name
                employee["salary"] = 1000.5 + Double(index)
                employee["hired"] = Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 86_400)
                employee["scratch"] = "not stored"
                employee.setRelatedObject(boss, forKey: "mentor")
                employee.setRelatedObjects(index.isMultiple(of: 2) ? [tags[0], tags[1]] : [tags[1]], forKey: "tags")
                employees.append(employee)
            }
            // Ordered: not in insertion or key order.
            acme.setRelatedObjects([employees[3], employees[1], employees[0], employees[2], employees[4]],
                forKey: "employees")
            let apollo = try context.insertNewObject(forEntityName: "Project")
            apollo["name"] = "Apollo"
            apollo.setRelatedObjects([employees[4], employees[0], employees[2]], forKey: "members")
            try context.save()
            // Versions above 1, a deleted row, and keys reserved without a row.
            employees[1]["salary"] = 2000.0
            try context.save()
            employees[1]["salary"] = 2500.0
            acme["name"] = "Acme Inc."
            try context.save()
            context.delete(employees[5])
            try context.save()
            let reserved = try context.insertNewObject(forEntityName: "Tag")
            try context.obtainPermanentIDs(for: [reserved])
            context.delete(reserved)
            return ["acme": acme.objectID, "boss": boss.objectID, "zoe": employees[1].objectID,
                "ada": employees[2].objectID, "swift": tags[0].objectID, "apollo": apollo.objectID]
        }
    }

    var storeURL: URL { directory.file("graph.sqlite") }
}

private func fileExists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

private func integrityCheck(_ url: URL) throws -> [[SQLiteValue]] {
    let connection = try SQLiteConnection(path: url.path, mode: .readOnly)
    defer { connection.close() }
    return try connection.rows("PRAGMA integrity_check")
}

@Suite struct StoreManagementTests {
    // MARK: destroy

    @Test func destroyRemovesTheStoreItsSideFilesAndSupportFolderAndDetachesIt() throws {
        let graph = try ManagedGraph(.sqlite)
        let url = graph.storeURL
        let support = graph.directory.file(".graph_SUPPORT")
        try FileManager.default.createDirectory(at: support.appendingPathComponent("_EXTERNAL_DATA"),
            withIntermediateDirectories: true)
        try Data([1, 2, 3]).write(to: support.appendingPathComponent("_EXTERNAL_DATA/blob"))
        try Data().write(to: URL(fileURLWithPath: url.path + "-journal"))
        // The store is live: its WAL and index exist.
        #expect(fileExists(URL(fileURLWithPath: url.path + "-wal")))
        #expect(fileExists(URL(fileURLWithPath: url.path + "-shm")))

        try graph.coordinator.destroyPersistentStore(at: url, type: .sqlite)
        for suffix in ["", "-wal", "-shm", "-journal"] {
            #expect(!fileExists(URL(fileURLWithPath: url.path + suffix)), "\(suffix) is still there")
        }
        #expect(!fileExists(support))
        #expect(graph.coordinator.persistentStores.isEmpty)
        #expect(graph.coordinator.managedObjectID(forURIRepresentation: try #require(graph.ids["acme"]).uriRepresentation) == nil)
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
        // The same URL now makes a new, empty store.
        let fresh = try graph.coordinator.addPersistentStore(ofType: .sqlite, at: url)
        #expect(fresh.identifier != graph.store.identifier)
        #expect(try graphDescription(graph.coordinator).isEmpty)
        // Destroying a missing store is not an error, and clears side files left without their store.
        let gone = graph.directory.file("gone.sqlite")
        try Data([9]).write(to: URL(fileURLWithPath: gone.path + "-wal"))
        try graph.coordinator.destroyPersistentStore(at: gone, type: .sqlite)
        #expect(!fileExists(URL(fileURLWithPath: gone.path + "-wal")))
        // An in-memory store has no files: nothing to do.
        try graph.coordinator.destroyPersistentStore(at: url, type: .inMemory)
        #expect(fileExists(url))
    }

    @Test func destroyRefusesAnythingThatIsNotAStoreAndDeletesNothing() throws {
        let directory = TemporaryDirectory(prefix: "store-management")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try managementModel())
        let text = directory.file("notes.sqlite")
        try Data("not a database at all, just notes\n".utf8).write(to: text)
        let empty = directory.file("empty.sqlite")
        try Data().write(to: empty)
        let otherDatabase = directory.file("other.sqlite")
        let connection = try SQLiteConnection(path: otherDatabase.path)
        try connection.setJournalModeWAL()
        try connection.execute("CREATE TABLE important(x); INSERT INTO important VALUES (42)")
        let folder = directory.file("folder.sqlite")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)

        for url in [text, empty, otherDatabase, folder] {
            #expect {
                try coordinator.destroyPersistentStore(at: url, type: .sqlite)
            } throws: { error in
                guard case ObjectGraphError.notAnObjectGraphStore(let path, let reason) = error else { return false }
                return path.hasSuffix(url.lastPathComponent) && !reason.isEmpty
            }
            #expect(fileExists(url), "\(url.lastPathComponent) was deleted")
        }
        #expect(fileExists(URL(fileURLWithPath: otherDatabase.path + "-wal")))
        #expect(try connection.scalar("SELECT x FROM important") == .integer(42))
    }

    // MARK: backup and replace with live writers

    /// Opens a second connection on a live store that holds a write transaction with an uncommitted row, and
    /// checks that the store's committed rows are still only in its WAL.
    private func holdWriteTransaction(on url: URL) throws -> SQLiteConnection {
        let walSize = (try FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int) ?? 0
        #expect(walSize > 0, "the committed rows are not in the WAL")
        // The main file alone (what a plain file copy without the WAL gets) does not have them.
        let plainCopy = url.deletingLastPathComponent().appendingPathComponent("plain-copy-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: url, to: plainCopy)
        let plain = try SQLiteConnection(path: plainCopy.path, mode: .readOnly)
        let plainTags = try plain.tableExists("ZTAG") ? try plain.scalar("SELECT count(*) FROM ZTAG") : nil
        #expect(plainTags == nil || plainTags == .integer(0), "the main file already holds the rows")
        plain.close()
        try FileManager.default.removeItem(at: plainCopy)

        let writer = try SQLiteConnection(path: url.path)
        try writer.execute("BEGIN IMMEDIATE")
        try writer.execute("INSERT INTO ZTAG (Z_PK, Z_ENT, Z_OPT, ZNAME) "
            + "VALUES (999, (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Tag'), 1, 'uncommitted')")
        #expect(writer.isInTransaction)
        return writer
    }

    @Test func backupOfALiveStoreHasEveryCommittedRowAndNoUncommittedOne() throws {
        let graph = try ManagedGraph(.sqlite)
        let before = try graphDescription(graph.coordinator)
        let writer = try holdWriteTransaction(on: graph.storeURL)
        let backup = graph.directory.file("backups/graph-backup.sqlite")
        try FileManager.default.createDirectory(at: graph.directory.file(".graph_SUPPORT"), withIntermediateDirectories: true)
        try Data([7]).write(to: graph.directory.file(".graph_SUPPORT/external"))

        try graph.coordinator.backupPersistentStore(graph.store, to: backup)
        #expect(writer.isInTransaction)
        try writer.execute("ROLLBACK")

        #expect(try integrityCheck(backup) == [["ok"]])
        #expect(try PersistentStoreCoordinator.metadataForPersistentStore(at: backup).storeUUID == graph.store.identifier)
        #expect(try PersistentStoreCoordinator.metadataForPersistentStore(at: backup).userInfo["purpose"]
            == .string("store management tests"))
        #expect(try Data(contentsOf: graph.directory.file("backups/.graph-backup_SUPPORT/external")) == Data([7]))
        let restored = PersistentStoreCoordinator(managedObjectModel: graph.model)
        try restored.addPersistentStore(ofType: .sqlite, at: backup)
        #expect(try graphDescription(restored) == before)
        #expect(before.count == 10)

        // The app kept running: the original store still saves.
        let context = graph.context
        try context.performAndWait {
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag["name"] = "after the backup"
            try context.save()
        }
        #expect(try graphDescription(restored).count == 10)

        // Never over an existing file.
        #expect {
            try graph.coordinator.backupPersistentStore(graph.store, to: backup)
        } throws: { error in
            guard case ObjectGraphError.destinationExists = error else { return false }
            return true
        }
        #expect(try graphDescription(restored) == before)
    }

    @Test func aSupportFolderAtANewDestinationIsNeverOverwrittenOrRemoved() throws {
        let graph = try ManagedGraph(.sqlite)
        // `.copy_SUPPORT` may belong to `copy.db`, a store that differs only in its extension.
        let taken = graph.directory.file(".copy_SUPPORT")
        try FileManager.default.createDirectory(at: taken, withIntermediateDirectories: true)
        try Data([1]).write(to: taken.appendingPathComponent("theirs"))
        // The source has no support folder: the copy is made and the folder left alone.
        try graph.coordinator.backupPersistentStore(graph.store, to: graph.directory.file("copy.sqlite"))
        #expect(try Data(contentsOf: taken.appendingPathComponent("theirs")) == Data([1]))
        // The source has one: that is a conflict, and nothing is written.
        try FileManager.default.createDirectory(at: graph.directory.file(".graph_SUPPORT"), withIntermediateDirectories: true)
        #expect {
            try graph.coordinator.backupPersistentStore(graph.store, to: graph.directory.file("copy.store"))
        } throws: { error in
            guard case ObjectGraphError.destinationExists(let path) = error else { return false }
            return path.hasSuffix(".copy_SUPPORT")
        }
        #expect(!fileExists(graph.directory.file("copy.store")))
        #expect(try Data(contentsOf: taken.appendingPathComponent("theirs")) == Data([1]))
    }

    @Test func aStoreAddedReadOnlyIsBackedUpWithoutWritingItsFile() throws {
        let graph = try ManagedGraph(.sqlite)
        let expected = try graphDescription(graph.coordinator)
        try graph.coordinator.remove(graph.store)
        let readOnly = PersistentStoreCoordinator(managedObjectModel: graph.model)
        let store = try readOnly.addPersistentStore(ofType: .sqlite, configurationName: nil, at: graph.storeURL,
            options: PersistentStoreOptions(isReadOnly: true))
        let bytes = try Data(contentsOf: graph.storeURL)
        let wal = try Data(contentsOf: URL(fileURLWithPath: graph.storeURL.path + "-wal"))
        let copy = graph.directory.file("read-only-copy.sqlite")
        try readOnly.backupPersistentStore(store, to: copy)
        #expect(try Data(contentsOf: graph.storeURL) == bytes)
        #expect(try Data(contentsOf: URL(fileURLWithPath: graph.storeURL.path + "-wal")) == wal)
        let restored = PersistentStoreCoordinator(managedObjectModel: graph.model)
        try restored.addPersistentStore(ofType: .sqlite, at: copy)
        #expect(try graphDescription(restored) == expected)
    }

    @Test func backupOfAnInMemoryStoreWritesAnSQLiteStore() throws {
        let graph = try ManagedGraph(.inMemory)
        let before = try graphDescription(graph.coordinator)
        let backup = graph.directory.file("memory-backup.sqlite")
        try graph.coordinator.backupPersistentStore(graph.store, to: backup)
        #expect(try integrityCheck(backup) == [["ok"]])
        let restored = PersistentStoreCoordinator(managedObjectModel: graph.model)
        let store = try restored.addPersistentStore(ofType: .sqlite, at: backup)
        #expect(store.identifier == graph.store.identifier)
        #expect(try graphDescription(restored) == before)
        #expect(try rowVersions(store, graph.model) == (try rowVersions(graph.store, graph.model)))
    }

    @Test func replaceCopiesALiveSourceOverADestinationWithItsOwnWAL() throws {
        let source = try ManagedGraph(.sqlite)
        let expected = try graphDescription(source.coordinator)
        let writer = try holdWriteTransaction(on: source.storeURL)

        // The destination: another store, with committed rows of its own still in its WAL (a connection keeps
        // it open with automatic checkpoints off).
        let destination = try ManagedGraph(.sqlite, file: "graph.sqlite")
        let destinationURL = destination.storeURL
        let holder = try SQLiteConnection(path: destinationURL.path)
        _ = try holder.scalar("PRAGMA wal_autocheckpoint = 0")
        try holder.execute("INSERT INTO ZTAG (Z_PK, Z_ENT, Z_OPT, ZNAME) "
            + "VALUES (500, (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Tag'), 1, 'old destination row')")
        try destination.coordinator.remove(destination.store)
        #expect(fileExists(URL(fileURLWithPath: destinationURL.path + "-wal")))
        try FileManager.default.createDirectory(at: destination.directory.file(".graph_SUPPORT/_EXTERNAL_DATA"),
            withIntermediateDirectories: true)

        try source.coordinator.replacePersistentStore(at: destinationURL, withPersistentStoreFrom: source.storeURL)
        try writer.execute("COMMIT")
        holder.close()

        #expect(try integrityCheck(destinationURL) == [["ok"]])
        #expect(!fileExists(destination.directory.file(".graph_SUPPORT")))
        let reopened = PersistentStoreCoordinator(managedObjectModel: source.model)
        let store = try reopened.addPersistentStore(ofType: .sqlite, at: destinationURL)
        #expect(store.identifier == source.store.identifier)
        #expect(try graphDescription(reopened) == expected)
        let sourceVersions = try rowVersions(source.store, source.model).filter { $0.key.primaryKey != 999 }
        #expect(try rowVersions(store, source.model) == sourceVersions)
    }

    @Test func replaceRefusesWhatItMustNotOverwrite() throws {
        let graph = try ManagedGraph(.sqlite)
        let other = try ManagedGraph(.sqlite)
        // The destination is added to this coordinator.
        #expect {
            try graph.coordinator.replacePersistentStore(at: graph.storeURL, withPersistentStoreFrom: other.storeURL)
        } throws: { error in
            guard case ObjectGraphError.storeInUse = error else { return false }
            return true
        }
        // The destination is not a store.
        let notes = graph.directory.file("notes.txt")
        try Data("keep me".utf8).write(to: notes)
        #expect {
            try graph.coordinator.replacePersistentStore(at: notes, withPersistentStoreFrom: other.storeURL)
        } throws: { error in
            guard case ObjectGraphError.notAnObjectGraphStore = error else { return false }
            return true
        }
        #expect(try Data(contentsOf: notes) == Data("keep me".utf8))
        // The source is not a store.
        #expect {
            try graph.coordinator.replacePersistentStore(at: graph.directory.file("new.sqlite"),
                withPersistentStoreFrom: notes)
        } throws: { error in
            guard case ObjectGraphError.notAnObjectGraphStore = error else { return false }
            return true
        }
        #expect(!fileExists(graph.directory.file("new.sqlite")))
        // No files to replace for in-memory stores; a store is not replaced with itself.
        #expect(throws: ObjectGraphError.self) {
            try graph.coordinator.replacePersistentStore(at: notes, withPersistentStoreFrom: other.storeURL, type: .inMemory)
        }
        #expect(throws: ObjectGraphError.self) {
            try other.coordinator.replacePersistentStore(at: graph.storeURL, withPersistentStoreFrom: graph.storeURL)
        }
        // A new destination with stale side files of a vanished store: they are cleared, not replayed.
        let fresh = graph.directory.file("fresh.sqlite")
        try Data(contentsOf: URL(fileURLWithPath: graph.storeURL.path + "-wal"))
            .write(to: URL(fileURLWithPath: fresh.path + "-wal"))
        try graph.coordinator.replacePersistentStore(at: fresh, withPersistentStoreFrom: other.storeURL)
        #expect(try integrityCheck(fresh) == [["ok"]])
        #expect(try PersistentStoreCoordinator.metadataForPersistentStore(at: fresh).storeUUID == other.store.identifier)
    }

    // MARK: migrate

    @Test(arguments: [PersistentStoreType.sqlite, .inMemory, .atomic])
    func migrateFromSQLiteKeepsRowsRelationshipsVersionsAndIDs(to type: PersistentStoreType) throws {
        let graph = try ManagedGraph(.sqlite)
        let before = try graphDescription(graph.coordinator)
        let versions = try rowVersions(graph.store, graph.model)
        #expect(versions.values.contains { $0 > 1 })
        let oldFileUUID = try PersistentStoreCoordinator.metadataForPersistentStore(at: graph.storeURL).storeUUID
        let destination = graph.directory.file("moved/graph-moved.sqlite")

        let migrated = try graph.coordinator.migratePersistentStore(graph.store, to: destination, type: type)
        #expect(graph.coordinator.persistentStores.map(ObjectIdentifier.init) == [ObjectIdentifier(migrated)])
        #expect(migrated.type == type)
        #expect(migrated.url == (type != .inMemory ? StoreFiles.resolved(destination) : nil))
        #expect(migrated.identifier == graph.store.identifier)
        #expect(migrated.metadata.userInfo["purpose"] == .string("store management tests"))
        #expect(fileExists(destination) == (type != .inMemory))
        if type == .sqlite { #expect(try integrityCheck(destination) == [["ok"]]) }
        // The coordinator reads through the new store: every row, relationship and version.
        #expect(try graphDescription(graph.coordinator) == before)
        #expect(try rowVersions(migrated, graph.model) == versions)
        try checkIDsKeepWorking(graph, migrated: migrated)
        // The old file is left as it was, and did not get the later save.
        let old = PersistentStoreCoordinator(managedObjectModel: graph.model)
        let oldStore = try old.addPersistentStore(ofType: .sqlite, at: graph.storeURL)
        #expect(oldStore.identifier == oldFileUUID)
        #expect(try graphDescription(old) == before)
    }

    @Test func migrateInMemoryToSQLiteAndBackKeepsEverything() throws {
        let graph = try ManagedGraph(.inMemory)
        let before = try graphDescription(graph.coordinator)
        let versions = try rowVersions(graph.store, graph.model)
        let file = graph.directory.file("from-memory.sqlite")

        let onDisk = try graph.coordinator.migratePersistentStore(graph.store, to: file, type: .sqlite)
        #expect(onDisk.type == .sqlite && onDisk.identifier == graph.store.identifier)
        #expect(try integrityCheck(file) == [["ok"]])
        #expect(try graphDescription(graph.coordinator) == before)
        #expect(try rowVersions(onDisk, graph.model) == versions)
        // A fresh coordinator opening the file sees the same graph and the same UUID.
        let reader = PersistentStoreCoordinator(managedObjectModel: graph.model)
        #expect(try reader.addPersistentStore(ofType: .sqlite, at: file).identifier == graph.store.identifier)
        #expect(try graphDescription(reader) == before)

        let backInMemory = try graph.coordinator.migratePersistentStore(onDisk, to: file, type: .inMemory)
        #expect(try graphDescription(graph.coordinator) == before)
        #expect(try rowVersions(backInMemory, graph.model) == versions)
        try checkIDsKeepWorking(graph, migrated: backInMemory)
    }

    /// After a migration: IDs and URIs of the old store resolve, registered objects (even faults) load from the
    /// new store, pending changes save into it without conflicts, and new keys come after every reserved one.
    func checkIDsKeepWorking(_ graph: ManagedGraph, migrated: PersistentStore) throws {
        let zoeID = try #require(graph.ids["zoe"])
        let acmeID = try #require(graph.ids["acme"])
        #expect(graph.coordinator.managedObjectID(forURIRepresentation: zoeID.uriRepresentation) == zoeID)
        #expect(try graph.coordinator.store(for: zoeID) === migrated)
        let context = graph.context
        try context.performAndWait {
            // The context that filled the store still holds its objects and their versions.
            let zoe = try context.existingObject(with: zoeID)
            #expect(zoe["salary"] == 2500.0)
            zoe["salary"] = 3000.0
            let acme = try context.existingObject(with: acmeID)
            #expect(acme.relatedObjects(forKey: "employees").compactMap { $0["name"] as String? }
                == ["Mia", "Zoe", "Boss", "Ada", "Bob"])
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag["name"] = "new"
            try context.save()
            #expect(tag.objectID.storeIdentifier == migrated.identifier)
            // Key 4 was reserved (and its object discarded) before the migration: not handed out again.
            #expect((tag.objectID.primaryKey ?? 0) > 4)
        }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue)
        reader.persistentStoreCoordinator = graph.coordinator
        let (salary, tags): (Double?, Int) = try reader.performAndWait {
            (try reader.existingObject(with: zoeID)["salary"], try reader.count(for: FetchRequest<ManagedObject>(entityName: "Tag")))
        }
        #expect(salary == 3000.0)
        #expect(tags == 4)
    }

    @Test func savesRacingAnSQLiteMigrationAreNeitherLostNorDuplicated() throws {
        let graph = try ManagedGraph(.sqlite)
        let coordinator = graph.coordinator
        let writer = ManagedObjectContext(concurrencyType: .privateQueue)
        writer.persistentStoreCoordinator = coordinator
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let migrationDone = Unchecked(false)
        let lock = NSLock()
        // Saves made, failed attempts (each retried: the context keeps its changes), saves given up on.
        let stats = Unchecked((saved: 0, failedAttempts: 0, givenUp: 0))
        DispatchQueue.global().async {
            func saveOne() {
                writer.performAndWait {
                    guard let tag = try? writer.insertNewObject(forEntityName: "Tag") else { return }
                    tag["name"] = "racing \(stats.value.saved)"
                    for _ in 0..<100 {
                        do {
                            try writer.save()
                            lock.withLock { stats.value.saved += 1 }
                            return
                        } catch {
                            lock.withLock { stats.value.failedAttempts += 1 }
                        }
                    }
                    lock.withLock { stats.value.givenUp += 1 }
                }
            }
            for _ in 0..<20 { saveOne() }
            started.signal()
            while !lock.withLock({ migrationDone.value }) { saveOne() }
            for _ in 0..<20 { saveOne() }
            finished.signal()
        }
        started.wait()
        let destination = graph.directory.file("raced.sqlite")
        let migrated = try coordinator.migratePersistentStore(graph.store, to: destination, type: .sqlite)
        lock.withLock { migrationDone.value = true }
        finished.wait()

        let (saved, givenUp) = lock.withLock { (stats.value.saved, stats.value.givenUp) }
        #expect(givenUp == 0)
        #expect(saved >= 40)
        let reader = ManagedObjectContext(concurrencyType: .privateQueue)
        reader.persistentStoreCoordinator = coordinator
        let names = try reader.performAndWait {
            try reader.fetch(FetchRequest<ManagedObject>(entityName: "Tag")).compactMap { $0["name"] as String? }
                .filter { $0.hasPrefix("racing ") }
        }
        // Every save is in the new store, once.
        #expect(names.count == saved)
        #expect(Set(names).count == saved)
        let migratedURL = try #require(migrated.url)
        #expect(try integrityCheck(migratedURL) == [["ok"]])
        // The old file stopped at the migration: it has the first saves, not the last 20.
        let old = PersistentStoreCoordinator(managedObjectModel: graph.model)
        try old.addPersistentStore(ofType: .sqlite, at: graph.storeURL)
        let oldContext = ManagedObjectContext(concurrencyType: .privateQueue)
        oldContext.persistentStoreCoordinator = old
        let oldCount = try oldContext.performAndWait {
            try oldContext.count(for: FetchRequest<ManagedObject>(entityName: "Tag", predicate: FetchPredicate(format: "name BEGINSWITH 'racing '")))
        }
        #expect(oldCount >= 20 && oldCount <= saved - 20, "old file: \(oldCount) of \(saved)")
    }

    @Test func migrateRefusesAnExistingDestinationAndKeepsTheOldStore() throws {
        let graph = try ManagedGraph(.sqlite)
        let before = try graphDescription(graph.coordinator)
        let occupied = graph.directory.file("occupied.sqlite")
        try Data("someone else's file".utf8).write(to: occupied)
        #expect {
            try graph.coordinator.migratePersistentStore(graph.store, to: occupied, type: .sqlite)
        } throws: { error in
            guard case ObjectGraphError.destinationExists = error else { return false }
            return true
        }
        #expect(try Data(contentsOf: occupied) == Data("someone else's file".utf8))
        #expect(throws: ObjectGraphError.self) {
            try graph.coordinator.migratePersistentStore(graph.store, to: graph.storeURL, type: .sqlite)
        }
        #expect(graph.coordinator.persistentStores.first === graph.store)
        #expect(try graphDescription(graph.coordinator) == before)

        // A store of another coordinator is not this one's to migrate.
        let other = try ManagedGraph(.inMemory)
        #expect {
            try graph.coordinator.migratePersistentStore(other.store, to: graph.directory.file("x.sqlite"), type: .sqlite)
        } throws: { error in
            guard case ObjectGraphError.unknownStore = error else { return false }
            return true
        }
        #expect(!fileExists(graph.directory.file("x.sqlite")))
    }

    @Test func migrateKeepsTheStoresConfigurationAndPlace() throws {
        let directory = TemporaryDirectory(prefix: "store-management")
        let model = try ManagedObjectModel(entities: [TestModels.person(), TestModels.item()], configurations: [
            ModelConfiguration(name: "People", entityNames: ["Person"]),
            ModelConfiguration(name: "Items", entityNames: ["Item"]),
        ])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let people = try coordinator.addPersistentStore(ofType: .sqlite, configurationName: "People",
            at: directory.file("people.sqlite"), options: PersistentStoreOptions())
        let items = try coordinator.addPersistentStore(ofType: .inMemory, configurationName: "Items", at: nil,
            options: PersistentStoreOptions())
        let moved = try coordinator.migratePersistentStore(people, to: directory.file("people.sqlite"),
            options: PersistentStoreOptions(isReadOnly: true), type: .inMemory)
        #expect(coordinator.persistentStores.map(\.identifier) == [people.identifier, items.identifier])
        #expect(moved.configurationName == "People" && moved.isReadOnly)
        let person = try #require(model.entity(named: "Person"))
        #expect(try coordinator.store(for: person) === moved)
    }
}
