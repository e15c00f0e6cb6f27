import Foundation
@testable import ObjectGraph
import SQLiteStorage
import Testing

/// External binary storage in the SQLite store (issue 11): where values go, that files follow the saves that
/// write and drop them, lazy reading, and the clean-up of orphaned files on open. Columns and files are checked
/// with plain SQLite and the file system, not through the framework.
@Suite struct ExternalBinaryStorageTests {
    typealias Model = ExternalDataModel

    @Test func thresholdDecidesWhereValuesGo() throws {
        let stack = try ExternalDataStack()
        let limit = ExternalDataStack.threshold
        let context = stack.context()
        let values: [String: Data?] = [
            "below": Model.bytes(limit - 1), "at": Model.bytes(limit, seed: 2), "above": Model.bytes(limit + 1, seed: 3),
            "empty": Data(), "none": nil,
        ]
        try context.performAndWait {
            for (title, image) in values {
                let photo = try context.insertNewObject(forEntityName: "Photo")
                photo["title"] = title
                photo["image"] = image
                photo["thumbnail"] = Model.bytes(limit * 2)  // not external: raw bytes, always in the row
            }
            try context.save()
        }
        let columns = try stack.columns()
        #expect(columns["below"] == .blob([0x01] + Array(Model.bytes(limit - 1))))
        #expect(columns["empty"] == .blob([0x01]))
        #expect(columns["none"] == .null)
        let atName = try #require(ExternalDataStack.fileName(columns["at"]))
        let aboveName = try #require(ExternalDataStack.fileName(columns["above"]))
        #expect(UUID(uuidString: atName) != nil && atName == atName.uppercased())
        #expect(stack.files == [atName, aboveName].sorted())
        #expect(FileManager.default.contents(atPath: stack.externalFolder.appendingPathComponent(atName).path)
            == Model.bytes(limit, seed: 2))
        #expect(FileManager.default.contents(atPath: stack.externalFolder.appendingPathComponent(aboveName).path)
            == Model.bytes(limit + 1, seed: 3))
        #expect(try stack.columns("ZTHUMBNAIL")["at"] == .blob(Array(Model.bytes(limit * 2))))

        // Read back, in a new coordinator.
        try stack.reopen()
        let reader = stack.context()
        try reader.performAndWait {
            for (title, image) in values {
                let photo = try #require(try ExternalDataStack.photo(title, in: reader))
                #expect(photo["image"] == image, "\(title)")
                #expect((photo.externalDataSize(forKey: "image") != nil) == (title == "at" || title == "above"))
            }
            #expect(try ExternalDataStack.photo("at", in: reader)?.externalDataSize(forKey: "image") == limit)
        }
    }

    @Test func fetchingReadsNoFileAndAFileGoneBehindTheStoreIsATypedError() throws {
        let stack = try ExternalDataStack()
        try stack.insertPhoto("big", image: Model.bytes(500), in: stack.context())
        try stack.insertPhoto("cached", image: Model.bytes(600, seed: 2), in: stack.context())
        try stack.insertPhoto("small", image: Model.bytes(10), in: stack.context())
        try stack.reopen()
        let context = stack.context()
        try context.performAndWait {
            let photos = try context.fetch(FetchRequest<ManagedObject>(entityName: "Photo",
                sortCriteria: [SortCriterion("title")]))
            #expect(photos.map { $0["title"] as String? } == ["big", "cached", "small"])
            let cached = photos[1]
            #expect(cached["image"] == Model.bytes(600, seed: 2))
            // Remove the files after the fetch: the fetch read none of them, so the one not yet read is lost…
            for name in stack.files { try FileManager.default.removeItem(at: stack.externalFolder.appendingPathComponent(name)) }
            #expect(photos[0]["title"] == "big")
            #expect(photos[0].value(forKey: "image") == .null)
            #expect {
                try photos[0].loadValue(forKey: "image")
            } throws: { error in
                guard case ObjectGraphError.externalDataUnavailable(let path, _) = error else { return false }
                return path.hasPrefix(stack.externalFolder.path)
            }
            // …while one already read stays with its object, and values in the row never needed a file.
            #expect(cached["image"] == Model.bytes(600, seed: 2))
            #expect(try cached.loadValue(forKey: "image") == .binary(Model.bytes(600, seed: 2)))
            #expect(photos[2]["image"] == Model.bytes(10))
        }
    }

    @Test func unchangedValueKeepsItsFileAndReplacedOrDeletedValuesLoseTheirsAfterTheCommit() throws {
        let stack = try ExternalDataStack()
        let context = stack.context()
        try stack.insertPhoto("a", image: Model.bytes(300), in: context)
        try stack.insertPhoto("b", image: Model.bytes(400, seed: 2), in: context)
        let first = try #require(ExternalDataStack.fileName(try stack.columns()["a"]))
        let other = stack.context()
        try other.performAndWait {
            let photo = try #require(try ExternalDataStack.photo("a", in: other))
            #expect(photo["image"] == Model.bytes(300))
            photo["title"] = "a"  // no change
            photo["thumbnail"] = Model.bytes(5)
            try other.save()
            #expect(ExternalDataStack.fileName(try stack.columns()["a"]) == first)
            #expect(stack.files.count == 2)

            photo["image"] = Model.bytes(350, seed: 9)  // replaced by another large value
            #expect(stack.files.contains(first), "the old file stays until the save commits")
            try other.save()
            let second = try #require(ExternalDataStack.fileName(try stack.columns()["a"]))
            #expect(second != first && !stack.files.contains(first) && stack.files.contains(second))
            // Saved again (another attribute changed): the new file is kept, not rewritten.
            photo["thumbnail"] = Model.bytes(6)
            try other.save()
            #expect(ExternalDataStack.fileName(try stack.columns()["a"]) == second && stack.files.count == 2)

            photo["image"] = Model.bytes(3)  // now small: in the row
            try other.save()
            #expect(try stack.columns()["a"] == .blob([0x01] + Array(Model.bytes(3))))
            #expect(!stack.files.contains(second) && stack.files.count == 1)

            let b = try #require(try ExternalDataStack.photo("b", in: other))
            b.setValue(.null, forKey: "image")
            try other.save()
            #expect(try stack.columns()["b"] == .null && stack.files.isEmpty)

            b["image"] = Model.bytes(200, seed: 4)
            try other.save()
            #expect(stack.files.count == 1)
            other.delete(b)
            #expect(stack.files.count == 1, "a deletion removes the file only once saved")
            try other.save()
            #expect(stack.files.isEmpty)
        }
    }

    @Test func failedSaveLeavesNoNewFileAndTheStoreAsItWas() throws {
        let stack = try ExternalDataStack()
        let id = try stack.insertPhoto("shared", image: Model.bytes(100), in: stack.context())
        let kept = stack.files
        let loser = stack.context(name: "loser")
        let winner = stack.context(name: "winner")
        try loser.performAndWait { _ = try loser.existingObject(with: id)["title"] as String? }
        try winner.performAndWait {
            try winner.existingObject(with: id)["title"] = "changed"
            try winner.save()
        }
        try loser.performAndWait {
            // The insert's file is written first; the update then meets a merge conflict and the save fails.
            let photo = try loser.insertNewObject(forEntityName: "Photo")
            photo["title"] = "new"
            photo["image"] = Model.bytes(1_000, seed: 5)
            try loser.existingObject(with: id)["image"] = Model.bytes(900, seed: 6)
            #expect {
                try loser.save()
            } throws: { error in
                if case ObjectGraphError.mergeConflicts = error { return true }
                return false
            }
            #expect(stack.files == kept)
            #expect(try stack.columns().keys.sorted() == ["changed"])
        }
    }

    @Test func aFileThatCannotBeWrittenFailsTheSaveWholeAndARetrySucceeds() throws {
        let stack = try ExternalDataStack()
        try stack.insertPhoto("small", image: Model.bytes(5), in: stack.context())
        // Something that is not a folder where `_EXTERNAL_DATA` should be.
        try FileManager.default.createDirectory(at: stack.externalFolder.deletingLastPathComponent(),
            withIntermediateDirectories: true)
        try Data("not a folder".utf8).write(to: stack.externalFolder)
        let context = stack.context()
        try context.performAndWait {
            let small = try context.insertNewObject(forEntityName: "Photo")
            small["title"] = "second small"
            small["image"] = Model.bytes(6)
            let large = try context.insertNewObject(forEntityName: "Photo")
            large["title"] = "large"
            large["image"] = Model.bytes(800)
            #expect {
                try context.save()
            } throws: { error in
                if case ObjectGraphError.fileOperationFailed = error { return true }
                return false
            }
            #expect(try stack.columns().keys.sorted() == ["small"])
            #expect(context.hasChanges && large.objectID.isTemporaryID)

            try FileManager.default.removeItem(at: stack.externalFolder)
            try context.save()
            #expect(try stack.columns().keys.sorted() == ["large", "second small", "small"])
            #expect(stack.files.count == 1)
        }
    }

    @Test func openingTheStoreRemovesOrphanedFilesAndKeepsReferencedOnes() throws {
        let stack = try ExternalDataStack()
        try stack.insertPhoto("kept", image: Model.bytes(700), in: stack.context())
        let referenced = try #require(stack.files.first)
        // What a crash between writing a file and committing (or between committing and removing) leaves.
        let stray = UUID().uuidString
        try Model.bytes(300).write(to: stack.externalFolder.appendingPathComponent(stray))
        try Data("junk".utf8).write(to: stack.externalFolder.appendingPathComponent("notes.txt"))
        // A link to a stray file is a stray file too; a folder someone made there is not the store's to remove.
        let linked = stack.externalFolder.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: linked,
            withDestinationURL: stack.externalFolder.appendingPathComponent("notes.txt"))
        let folder = stack.externalFolder.appendingPathComponent("folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        #expect(stack.files.count == 5)

        try stack.reopen()
        #expect(stack.files == [referenced, "folder"].sorted())
        let context = stack.context()
        try context.performAndWait { () throws in
            #expect(try ExternalDataStack.photo("kept", in: context)?["image"] == Model.bytes(700))
        }
        // The lookup of referenced files goes through the partial index, not the whole table.
        let connection = try SQLiteConnection(path: stack.storeURL.path, mode: .readOnly)
        defer { connection.close() }
        let plan = try connection.rows("EXPLAIN QUERY PLAN SELECT ZIMAGE FROM ZPHOTO WHERE "
            + ExternalBinaryStorage.externalRowCondition("ZIMAGE"))
        #expect(plan.contains { $0.contains(.text("SCAN ZPHOTO USING COVERING INDEX ZPHOTO_ZIMAGE_EXTERNAL_INDEX")) })
    }

    @Test func anotherStoreSharingTheSupportFolderKeepsItsFiles() throws {
        let stack = try ExternalDataStack()
        try stack.insertPhoto("one", image: Model.bytes(700), in: stack.context())
        // Photos.db shares .Photos_SUPPORT with Photos.sqlite.
        let sibling = PersistentStoreCoordinator(managedObjectModel: stack.model)
        var options = PersistentStoreOptions()
        options.externalBinaryDataThreshold = ExternalDataStack.threshold
        let siblingURL = stack.storeURL.deletingPathExtension().appendingPathExtension("db")
        try sibling.addPersistentStore(ofType: .sqlite, configurationName: nil, at: siblingURL, options: options)
        let siblingContext = ManagedObjectContext(concurrencyType: .privateQueue)
        siblingContext.persistentStoreCoordinator = sibling
        try stack.insertPhoto("two", image: Model.bytes(800), in: siblingContext)
        #expect(stack.files.count == 2)
        try stack.reopen()
        #expect(stack.files.count == 2, "files of Photos.db must not be taken for orphans of Photos.sqlite")
    }

    @Test func negativeThresholdIsRefused() throws {
        let directory = TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Model.model())
        var options = PersistentStoreOptions()
        options.externalBinaryDataThreshold = -1
        #expect {
            try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil,
                at: directory.file("s.sqlite"), options: options)
        } throws: { error in
            if case ObjectGraphError.invalidStoreOption(let name, _) = error { return name == "externalBinaryDataThreshold" }
            return false
        }
    }
}
