import Foundation
@testable import ObjectGraph
import SQLiteStorage
import Testing

/// External binary storage seen from contexts and requests: child contexts, merges, batch requests, cascades,
/// predicates, dictionary fetches, undo, in-memory stores and store management (backup, migrate, destroy).
@Suite struct ExternalBinaryStorageContextTests {
    typealias Model = ExternalDataModel

    @Test func savingContextKeepsTheFileItWroteAcrossLaterSaves() throws {
        let stack = try ExternalDataStack()
        let context = stack.context()
        try context.performAndWait {
            let photo = try context.insertNewObject(forEntityName: "Photo")
            photo["title"] = "mine"
            photo["image"] = Model.bytes(500)
            try context.save()
            let name = try #require(ExternalDataStack.fileName(try stack.columns()["mine"]))
            #expect(photo.externalDataSize(forKey: "image") == 500)
            #expect(photo["image"] == Model.bytes(500))
            photo["title"] = "still mine"
            try context.save()
            #expect(ExternalDataStack.fileName(try stack.columns()["still mine"]) == name)
            #expect(stack.files == [name])
        }
    }

    @Test func childContextSavesReachTheFilesWithTheParentsSave() throws {
        let stack = try ExternalDataStack()
        let parent = stack.context(name: "parent")
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        try child.performAndWait {
            let photo = try child.insertNewObject(forEntityName: "Photo")
            photo["title"] = "from child"
            photo["image"] = Model.bytes(400, seed: 3)
            try child.save()
        }
        #expect(stack.files.isEmpty, "a child's save touches no disk")
        try parent.performAndWait {
            try parent.save()
            let photo = try #require(try ExternalDataStack.photo("from child", in: parent))
            #expect(photo.externalDataSize(forKey: "image") == 400)
        }
        #expect(stack.files.count == 1)
        try stack.reopen()
        let reader = stack.context()
        try reader.performAndWait { () throws in
            #expect(try ExternalDataStack.photo("from child", in: reader)?["image"] == Model.bytes(400, seed: 3))
        }
    }

    @Test func mergingAnotherContextsSaveReadsTheNewValue() throws {
        let stack = try ExternalDataStack()
        let id = try stack.insertPhoto("p", image: Model.bytes(300), in: stack.context())
        let viewer = stack.context(name: "viewer")
        let editor = stack.context(name: "editor")
        let photo = try viewer.performAndWait {
            let photo = try viewer.existingObject(with: id)
            #expect(photo["image"] == Model.bytes(300))
            return photo
        }
        let save = try editor.performAndWait {
            try editor.existingObject(with: id)["image"] = Model.bytes(333, seed: 8)
            return try #require(try editor.saveCapturingDidSave())
        }
        #expect(stack.files.count == 1, "the replaced file is gone once the save committed")
        viewer.performAndWait {
            viewer.mergeChanges(fromContextDidSave: save)
            #expect(photo["image"] == Model.bytes(333, seed: 8))
            #expect(photo.externalDataSize(forKey: "image") == 333)
        }
    }

    @Test func batchRequestsAndCascadesWriteAndRemoveFiles() throws {
        let stack = try ExternalDataStack()
        let context = stack.context()
        try context.performAndWait {
            var insert = BatchInsertRequest(entityName: "Photo", objects: (0..<4).map { index in
                ["title": .string("batch \(index)"), "image": .binary(Model.bytes(index.isMultiple(of: 2) ? 200 : 20, seed: index))]
            })
            insert.resultType = .count
            _ = try context.execute(insert)
            #expect(stack.files.count == 2)
            #expect(try ExternalDataStack.photo("batch 2", in: context)?["image"] == Model.bytes(200, seed: 2))

            // One large value for every row: each row gets a file of its own; the old ones go.
            let before = Set(stack.files)
            _ = try context.execute(BatchUpdateRequest(entityName: "Photo", propertiesToUpdate: ["image": .binary(Model.bytes(150, seed: 7))]))
            let names = try stack.columns().values.compactMap(ExternalDataStack.fileName)
            #expect(names.count == 4 && Set(names).count == 4 && Set(stack.files) == Set(names))
            #expect(before.isDisjoint(with: stack.files))

            _ = try context.execute(BatchDeleteRequest(entityName: "Photo",
                predicate: try FetchPredicate(format: "title IN %@", ["batch 0", "batch 1"])))
            #expect(stack.files.count == 2)

            // A cascade from an album, through the context and through a batch delete.
            for name in ["saved", "batched"] {
                let album = try context.insertNewObject(forEntityName: "Album")
                album["name"] = name
                for index in 0..<2 {
                    let photo = try context.insertNewObject(forEntityName: "Photo")
                    photo["title"] = "\(name) \(index)"
                    photo["image"] = Model.bytes(120 + index, seed: index)
                    photo.setRelatedObject(album, forKey: "album")
                }
            }
            try context.save()
            #expect(stack.files.count == 6)
            let saved = try context.fetch(FetchRequest<ManagedObject>(entityName: "Album",
                predicate: try FetchPredicate(format: "name == 'saved'")))
            context.delete(try #require(saved.first))
            try context.save()
            #expect(stack.files.count == 4)
            _ = try context.execute(BatchDeleteRequest(entityName: "Album", predicate: try FetchPredicate(format: "name == 'batched'")))
            #expect(stack.files.count == 2)
            _ = try context.execute(BatchDeleteRequest(entityName: "Photo"))
            #expect(stack.files.isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func predicatesCompareExternalValuesWithNilOnly(kind: StoreKind) throws {
        let stack = try ExternalDataStack(kind)
        let context = stack.context()
        try stack.insertPhoto("large", image: Model.bytes(300), in: context)
        try stack.insertPhoto("small", image: Model.bytes(3), in: context)
        try stack.insertPhoto("none", image: nil, in: context)
        try context.performAndWait {
            func titles(_ format: String) throws -> [String] {
                try context.fetch(FetchRequest<ManagedObject>(entityName: "Photo", predicate: try FetchPredicate(format: format),
                    sortCriteria: [SortCriterion("title")])).compactMap { $0["title"] as String? }
            }
            #expect(try titles("image == nil") == ["none"])
            #expect(try titles("image != nil") == ["large", "small"])
            #expect(try titles("image != nil AND title BEGINSWITH 'l'") == ["large"])
            let request = FetchRequest<ManagedObject>(entityName: "Photo",
                predicate: try FetchPredicate(format: "image == %@", Model.bytes(3)))
            if kind == .sqlite {
                #expect {
                    try context.fetch(request)
                } throws: { error in
                    guard case ObjectGraphError.predicate(let failure) = error else { return false }
                    return failure.kind == .unsupported && failure.message.contains("'image'")
                }
            } else {
                #expect(try context.fetch(request).count == 1)
            }
        }
    }

    @Test func dictionaryFetchesHoldTheBytes() throws {
        let stack = try ExternalDataStack()
        let context = stack.context()
        try stack.insertPhoto("large", image: Model.bytes(300), in: context)
        try stack.insertPhoto("small", image: Model.bytes(3), in: context)
        try context.performAndWait {
            var request = FetchRequest<ManagedObject>(entityName: "Photo", sortCriteria: [SortCriterion("title")])
            request.propertiesToFetch = ["title", "image"]
            let rows = try context.fetchDictionaries(request)
            #expect(rows.map { $0["image"] } == [.binary(Model.bytes(300)), .binary(Model.bytes(3))])
        }
    }

    @Test func undoAfterASaveBringsBackTheBytesOfARemovedFile() throws {
        let stack = try ExternalDataStack()
        let id = try stack.insertPhoto("p", image: Model.bytes(300), in: stack.context())
        let context = stack.context()
        context.undoManager = ContextUndoManager()
        let photo = try context.performAndWait { try context.existingObject(with: id) }
        try context.performAndWait {
            photo["image"] = Model.bytes(310, seed: 4)
            try context.save()
        }
        let replaced = stack.files
        context.performAndWait { context.undo() }
        try context.performAndWait {
            #expect(photo["image"] == Model.bytes(300))
            try context.save()
            #expect(stack.files.count == 1 && stack.files != replaced)
        }
        // Undoing a saved deletion brings the object back with its bytes.
        try context.performAndWait {
            context.delete(photo)
            try context.save()
            #expect(stack.files.isEmpty)
        }
        context.performAndWait { context.undo() }
        try context.performAndWait {
            try context.save()
            #expect(stack.files.count == 1)
        }
        try stack.reopen()
        let reader = stack.context()
        try reader.performAndWait { () throws in
            #expect(try ExternalDataStack.photo("p", in: reader)?["image"] == Model.bytes(300))
        }
    }

    @Test func undoOfAnUnsavedEditLeavesTheObjectUnchanged() throws {
        let stack = try ExternalDataStack()
        let id = try stack.insertPhoto("p", image: Model.bytes(300), in: stack.context())
        let context = stack.context()
        context.undoManager = ContextUndoManager()
        let photo = try context.performAndWait { try context.existingObject(with: id) }
        context.performAndWait { photo["image"] = Model.bytes(310, seed: 4) }
        context.performAndWait {
            context.undo()
            #expect(photo["image"] == Model.bytes(300))
            #expect(!photo.isUpdated && !context.hasChanges)
        }
    }

    @Test func inMemoryStoreKeepsEveryValueInMemory() throws {
        let stack = try ExternalDataStack(.inMemory)
        let context = stack.context()
        try stack.insertPhoto("large", image: Model.bytes(5_000), in: context)
        try context.performAndWait {
            let photo = try #require(try ExternalDataStack.photo("large", in: context))
            #expect(photo["image"] == Model.bytes(5_000))
            #expect(photo.externalDataSize(forKey: "image") == nil)
        }
        #expect(!FileManager.default.fileExists(atPath: stack.externalFolder.deletingLastPathComponent().path))
    }

    @Test func backupMigrationAndDestructionCarryTheFiles() throws {
        let stack = try ExternalDataStack()
        try stack.insertPhoto("large", image: Model.bytes(700), in: stack.context())
        try stack.insertPhoto("small", image: Model.bytes(7), in: stack.context())
        let store = try #require(stack.coordinator.persistentStores.first)

        // Backup: the copy has the file, and reads.
        let backupURL = stack.directory.url.resolvingSymlinksInPath().appendingPathComponent("Backup.sqlite")
        try stack.coordinator.backupPersistentStore(store, to: backupURL)
        let backupFiles = try FileManager.default.contentsOfDirectory(
            atPath: ExternalBinaryStorage.folder(ofStore: backupURL).path)
        #expect(backupFiles == stack.files)

        // To an in-memory store: every value is read in, so the store no longer needs the files.
        let memory = try stack.coordinator.migratePersistentStore(store, to: stack.storeURL, type: .inMemory)
        try stack.coordinator.destroyPersistentStore(at: stack.storeURL)
        #expect(!FileManager.default.fileExists(atPath: stack.externalFolder.path))
        let context = stack.context()
        try context.performAndWait { () throws in
            #expect(try ExternalDataStack.photo("large", in: context)?["image"] == Model.bytes(700))
            #expect(try ExternalDataStack.photo("small", in: context)?["image"] == Model.bytes(7))
        }

        // Back to SQLite at a new place: large values go to files there again.
        let diskURL = stack.directory.url.resolvingSymlinksInPath().appendingPathComponent("Again.sqlite")
        var options = PersistentStoreOptions()
        options.externalBinaryDataThreshold = ExternalDataStack.threshold
        _ = try stack.coordinator.migratePersistentStore(memory, to: diskURL, options: options, type: .sqlite)
        #expect(try FileManager.default.contentsOfDirectory(atPath: ExternalBinaryStorage.folder(ofStore: diskURL).path).count == 1)
        let again = stack.context()
        try again.performAndWait { () throws in
            #expect(try ExternalDataStack.photo("large", in: again)?["image"] == Model.bytes(700))
        }

        // The backup opens on its own.
        let restored = PersistentStoreCoordinator(managedObjectModel: stack.model)
        try restored.addPersistentStore(ofType: .sqlite, at: backupURL)
        let reader = ManagedObjectContext(concurrencyType: .privateQueue)
        reader.persistentStoreCoordinator = restored
        try reader.performAndWait { () throws in
            #expect(try ExternalDataStack.photo("large", in: reader)?["image"] == Model.bytes(700))
        }
        try restored.destroyPersistentStore(at: backupURL)
        #expect(!FileManager.default.fileExists(atPath: StoreFiles.supportDirectory(of: backupURL).path))
    }
}
