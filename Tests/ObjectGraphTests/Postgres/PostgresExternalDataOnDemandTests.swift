import Foundation
import SQLiteStorage
import Testing
import TestSupport

@testable @_spi(StoreImplementation) import ObjectGraph
@testable @_spi(StoreImplementation) import ObjectGraphPostgres

/// Values in `Z_EXTERNALDATA` are read on demand: opening a store, fetching and following other clients' commits
/// hold references (``StoredValueReference``), and the bytes come from the server only when the attribute is read.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresExternalDataOnDemandTests {
    /// Values from this many bytes on go to `Z_EXTERNALDATA` (small, so that the tests stay quick).
    static let threshold = 100

    static func image(_ number: Int, seed: UInt8 = 0) -> Data {
        PostgresExternalDataTests.bytes(threshold + 10 * number, seed: UInt8(truncatingIfNeeded: number) &+ seed)
    }

    static func coordinator(_ database: PostgresTestDatabase, remoteChanges: Bool = false) throws
        -> PersistentStoreCoordinator
    {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PostgresExternalDataTests.model())
        var options = PersistentStoreOptions()
        options.externalBinaryDataThreshold = threshold
        options.remoteChangeNotifications = remoteChanges
        try coordinator.addPersistentStore(ofType: .postgreSQL, configurationName: nil, at: database.url, options: options)
        return coordinator
    }

    static func store(_ coordinator: PersistentStoreCoordinator) throws -> PostgresStore {
        try #require(coordinator.persistentStores.first?.incrementalStore as? PostgresStore)
    }

    /// Saves photos `name0…` with ``image(_:seed:)`` through a client of its own; returns their IDs.
    @discardableResult
    static func insertPhotos(_ count: Int, in database: PostgresTestDatabase) throws -> [ManagedObjectID] {
        let context = PostgresStoreTests.context(try coordinator(database))
        return try context.performAndWait {
            let photos = try (0..<count).map { number in
                let photo = try context.insertNewObject(forEntityName: "Photo")
                photo.setValue(.string(String(format: "name%02d", number)), forKey: "name")
                photo.setValue(.binary(image(number)), forKey: "image")
                return photo
            }
            try context.save()
            return photos.map(\.objectID)
        }
    }

    static func photos(in context: ManagedObjectContext) throws -> [ManagedObject] {
        try context.fetch(FetchRequest<ManagedObject>(entityName: "Photo", sortCriteria: [SortCriterion("name")]))
    }

    /// The reference the (fulfilled) object holds for its image, or nil when it holds bytes or nothing.
    static func reference(_ photo: ManagedObject) -> StoredValueReference? {
        _ = photo.externalDataSize(forKey: "image")  // (fulfils a fault)
        return photo.entity.attributeIndex(named: "image").flatMap { StoredValueReference(photo.storage[$0]) }
    }

    static func valueIDs(_ database: PostgresTestDatabase) throws -> [String?] {
        try database.connection().execute(#"SELECT "Z_VALUEID"::text FROM "Z_EXTERNALDATA" ORDER BY "Z_OWNER""#)
            .map { $0[0] }
    }

    @Test func openingAndFetchingReadNoLargeValueAndReadingOneReadsIt() throws {
        let database = try PostgresTestDatabase()
        let count = 12
        try Self.insertPhotos(count, in: database)
        let coordinator = try Self.coordinator(database)
        let store = try Self.store(coordinator)
        let context = PostgresStoreTests.context(coordinator)
        try context.performAndWait {
            let photos = try Self.photos(in: context)
            #expect(photos.count == count)
            for (number, photo) in photos.enumerated() {
                #expect(Self.reference(photo)?.byteCount == Self.image(number).count)
                #expect(photo.externalDataSize(forKey: "image") == Self.image(number).count)
            }
            #expect(store.externalValueReads == (0, 0), "opening, fetching and sizes read no value")

            #expect(photos[3].value(forKey: "image") == .binary(Self.image(3)))
            #expect(store.externalValueReads == (1, Self.image(3).count))
            #expect(try photos[3].loadValue(forKey: "image") == .binary(Self.image(3)))
            #expect(store.externalValueReads.count == 1, "the object keeps the bytes it read")
            let all = photos.map { $0.value(forKey: "image") }
            #expect(all == (0..<count).map { .binary(Self.image($0)) })
            #expect(store.externalValueReads.count == count)
        }
        // Dictionary results hold the bytes.
        let dictionaries = try context.performAndWait {
            var request = FetchRequest<ManagedObject>(entityName: "Photo", sortCriteria: [SortCriterion("name")])
            request.propertiesToFetch = ["name", "image"]
            return try context.fetchDictionaries(request)
        }
        #expect(dictionaries.map { $0["image"] } == (0..<count).map { .binary(Self.image($0)) })
    }

    @Test func anotherClientsNewValueArrivesAsAReferenceAndReadsOnAccess() throws {
        let database = try PostgresTestDatabase()
        let id = try #require(try Self.insertPhotos(1, in: database).first)
        let watching = try Self.coordinator(database, remoteChanges: true)
        let store = try Self.store(watching)
        let arrived = DispatchSemaphore(value: 0)
        let token = watching.addCommitObserver { event in if event.origin.isRemote { arrived.signal() } }
        defer { token.cancel() }
        let reader = PostgresStoreTests.context(watching)
        let photo = try reader.performAndWait {
            let photo = try reader.existingObject(with: id)
            #expect(photo.value(forKey: "image") == .binary(Self.image(0)))
            return photo
        }
        let editor = PostgresStoreTests.context(try Self.coordinator(database))
        try editor.performAndWait {
            try editor.existingObject(with: id).setValue(.binary(Self.image(4, seed: 9)), forKey: "image")
            try editor.save()
        }
        #expect(arrived.wait(timeout: .now() + 30) == .success)
        #expect(store.externalValueReads.count == 1, "another client's commit brings no value's bytes")
        reader.performAndWait {
            reader.refresh(photo, mergeChanges: false)
            #expect(photo.externalDataSize(forKey: "image") == Self.image(4, seed: 9).count)
            #expect(store.externalValueReads.count == 1)
            #expect(photo.value(forKey: "image") == .binary(Self.image(4, seed: 9)))
        }
        #expect(store.externalValueReads.count == 2)
    }

    @Test func aValueAnotherClientReplacedOrRemovedIsAnErrorNeverOtherBytes() throws {
        let database = try PostgresTestDatabase()
        let ids = try Self.insertPhotos(3, in: database)
        let reader = PostgresStoreTests.context(try Self.coordinator(database))
        let photos = try reader.performAndWait {
            let photos = try ids.map { try reader.existingObject(with: $0) }
            #expect(photos.allSatisfy { Self.reference($0) != nil })
            return photos
        }
        let editor = PostgresStoreTests.context(try Self.coordinator(database))
        try editor.performAndWait {
            try editor.existingObject(with: ids[0]).setValue(.binary(Self.image(7, seed: 1)), forKey: "image")
            try editor.existingObject(with: ids[1]).setValue(.null, forKey: "image")
            editor.delete(try editor.existingObject(with: ids[2]))
            try editor.save()
        }
        reader.performAndWait {
            // The reader has not merged the save: its references name values that are no longer there.
            for (photo, why) in zip(photos, ["a later save replaced it", "the value is gone", "the value is gone"]) {
                #expect {
                    _ = try photo.loadValue(forKey: "image")
                } throws: { error in
                    guard case .externalDataUnavailable(let path, let reason) = error as? ObjectGraphError else { return false }
                    return path.contains("Z_EXTERNALDATA") && path.contains("Photo/") && reason.contains(why)
                }
                #expect(photo.value(forKey: "image") == .null, "value(forKey:) cannot throw: nil, as for a missing file")
            }
        }
        // A new fetch (which catches up with the commits before it) reads the new value.
        let later = PostgresStoreTests.context(try #require(reader.persistentStoreCoordinator))
        try later.performAndWait {
            let found = try Self.photos(in: later)
            #expect(found.map { $0.value(forKey: "image") } == [.binary(Self.image(7, seed: 1)), .null])
        }
    }

    @Test func savingAnUnchangedValueAgainSendsNoBytes() throws {
        let database = try PostgresTestDatabase()
        let id = try #require(try Self.insertPhotos(1, in: database).first)
        let before = try Self.valueIDs(database)
        let coordinator = try Self.coordinator(database)
        let context = PostgresStoreTests.context(coordinator)
        try context.performAndWait {
            let photo = try context.existingObject(with: id)
            photo.setValue(.string("renamed"), forKey: "name")
            try context.save()
            photo.setValue(.string("renamed again"), forKey: "name")
            try context.save()
        }
        #expect(try Self.valueIDs(database) == before, "the value was neither rewritten nor sent again")
        #expect(try Self.store(coordinator).externalValueReads == (0, 0))
        // A new value written by this client: the context keeps a reference to it, and saving again keeps it.
        try context.performAndWait {
            let photo = try context.existingObject(with: id)
            photo.setValue(.binary(Self.image(2, seed: 5)), forKey: "image")
            try context.save()
            #expect(Self.reference(photo) != nil)
            photo.setValue(.string("third name"), forKey: "name")
            try context.save()
        }
        let after = try Self.valueIDs(database)
        #expect(after != before && after.count == 1)
        try context.performAndWait {
            try context.existingObject(with: id).setValue(.string("fourth name"), forKey: "name")
            try context.save()
        }
        #expect(try Self.valueIDs(database) == after)
        let other = PostgresStoreTests.context(try Self.coordinator(database))
        #expect(try other.performAndWait { try other.existingObject(with: id).value(forKey: "image") }
            == .binary(Self.image(2, seed: 5)))
    }

    @Test func undoAndMergedSavesKeepWorking() throws {
        let database = try PostgresTestDatabase()
        let id = try #require(try Self.insertPhotos(1, in: database).first)
        let coordinator = try Self.coordinator(database)
        let context = PostgresStoreTests.context(coordinator)
        context.undoManager = ContextUndoManager()
        let photo = try context.performAndWait { try context.existingObject(with: id) }
        try context.performAndWait {
            photo.setValue(.binary(Self.image(3, seed: 2)), forKey: "image")
            try context.save()
        }
        context.performAndWait { context.undo() }
        try context.performAndWait {
            #expect(photo.value(forKey: "image") == .binary(Self.image(0)))
            try context.save()
        }
        // An unsaved edit undone leaves the object as it was: saving it again keeps the stored value.
        let saved = try Self.valueIDs(database)
        try context.performAndWait {
            photo.setValue(.binary(Self.image(5)), forKey: "image")
            context.undo()
            #expect(!photo.isUpdated)
            photo.setValue(.string("renamed"), forKey: "name")
            try context.save()
        }
        #expect(try Self.valueIDs(database) == saved)

        // Another context of the coordinator merges a save and reads the new value.
        let viewer = PostgresStoreTests.context(coordinator)
        let seen = try viewer.performAndWait {
            let seen = try viewer.existingObject(with: id)
            #expect(seen.value(forKey: "image") == .binary(Self.image(0)))
            return seen
        }
        let editor = PostgresStoreTests.context(coordinator)
        let save = try editor.performAndWait {
            try editor.existingObject(with: id).setValue(.binary(Self.image(6, seed: 3)), forKey: "image")
            return try #require(try editor.saveCapturingDidSave())
        }
        viewer.performAndWait {
            viewer.mergeChanges(fromContextDidSave: save)
            #expect(seen.value(forKey: "image") == .binary(Self.image(6, seed: 3)))
        }
    }

    @Test func backupAndMigrationToSQLiteCarryTheBytes() throws {
        let database = try PostgresTestDatabase()
        let directory = TemporaryDirectory()
        try Self.insertPhotos(3, in: database)
        let coordinator = try Self.coordinator(database)
        let store = try #require(coordinator.persistentStores.first)
        func images(at url: URL) throws -> [AttributeValue] {
            let reader = PersistentStoreCoordinator(managedObjectModel: try PostgresExternalDataTests.model())
            var options = PersistentStoreOptions()
            options.externalBinaryDataThreshold = Self.threshold
            try reader.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url, options: options)
            let context = PostgresStoreTests.context(reader)
            return try context.performAndWait { try Self.photos(in: context).map { $0.value(forKey: "image") } }
        }
        let expected = (0..<3).map { AttributeValue.binary(Self.image($0)) }
        let backup = directory.url.appendingPathComponent("Backup.sqlite")
        try coordinator.backupPersistentStore(store, to: backup)
        #expect(try images(at: backup) == expected)
        let migrated = directory.url.appendingPathComponent("Migrated.sqlite")
        var options = PersistentStoreOptions()
        options.externalBinaryDataThreshold = Self.threshold
        _ = try coordinator.migratePersistentStore(store, to: migrated, options: options, type: .sqlite)
        #expect(try images(at: migrated) == expected)
        #expect(try FileManager.default.contentsOfDirectory(
            atPath: ExternalBinaryStorage.folder(ofStore: migrated).path).count == 3)
    }

    @Test func predicatesCompareLargeValuesWithNilOnly() throws {
        let database = try PostgresTestDatabase()
        try Self.insertPhotos(2, in: database)
        let coordinator = try Self.coordinator(database)
        let context = PostgresStoreTests.context(coordinator)
        try context.performAndWait {
            let photo = try context.insertNewObject(forEntityName: "Photo")
            photo.setValue(.string("none"), forKey: "name")
            try context.save()
            func names(_ format: String) throws -> [String] {
                try context.fetch(FetchRequest<ManagedObject>(entityName: "Photo", predicate: try FetchPredicate(format: format),
                    sortCriteria: [SortCriterion("name")])).compactMap { $0.value(forKey: "name").stringValue }
            }
            #expect(try names("image == nil") == ["none"])
            #expect(try names("image != nil") == ["name00", "name01"])
            // The replica holds references, not the bytes: comparing them is refused, as on SQLite.
            let request = FetchRequest<ManagedObject>(entityName: "Photo",
                predicate: try FetchPredicate(format: "image == %@", Self.image(1)))
            for attempt in [{ _ = try context.fetch(request) }, { _ = try context.count(for: request) }] {
                #expect {
                    try attempt()
                } throws: { error in
                    guard case ObjectGraphError.predicate(let failure) = error else { return false }
                    return failure.kind == .unsupported && failure.message.contains("'image'")
                }
            }
        }
        #expect(try Self.store(coordinator).externalValueReads == (0, 0))
    }

    @Test func exportWritesTheBytes() throws {
        let database = try PostgresTestDatabase()
        try Self.insertPhotos(2, in: database)
        let coordinator = try Self.coordinator(database)
        let context = PostgresStoreTests.context(coordinator)
        let entity = try #require(coordinator.managedObjectModel.entity(named: "Photo"))
        let exporter = ObjectExporter(context: context, entity: entity,
            request: FetchRequest<ManagedObject>(entityName: "Photo", sortCriteria: [SortCriterion("name")]))
        var output = Data()
        #expect(try exporter.write(format: .jsonLines) { output.append($0) } == 2)
        let text = String(decoding: output, as: UTF8.self)
        #expect(text.contains(Self.image(0).base64EncodedString()) && text.contains(Self.image(1).base64EncodedString()))
        #expect(try Self.store(coordinator).externalValueReads.count == 2)
    }

    /// Through the store API: a row holding another object's reference (of this store: copied on the server, of
    /// another store: read through that store and sent) — and a stale one fails the save, which writes nothing.
    @Test func aReferenceSavedOnAnotherObjectIsCopied() throws {
        let database = try PostgresTestDatabase(), elsewhere = try PostgresTestDatabase()
        try Self.insertPhotos(1, in: database)
        _ = try #require(try Self.insertPhotos(3, in: elsewhere).last)
        let coordinator = try Self.coordinator(database), foreignCoordinator = try Self.coordinator(elsewhere)
        let store = try Self.store(coordinator), foreign = try Self.store(foreignCoordinator)
        let entity = try #require(coordinator.managedObjectModel.entity(named: "Photo"))
        let image = try #require(entity.attributeIndex(named: "image"))
        func row(in store: PostgresStore) throws -> [AttributeValue] {
            try #require(try store.fetch(StoreFetchRequest(entity: entity, sortCriteria: [SortCriterion("name")])).last).values
        }
        func insert(_ values: [AttributeValue]) throws -> ManagedObjectID {
            let key = try store.allocatePrimaryKeys(for: entity, count: 1).lowerBound
            let id = store.replicaStorage.objectID(entityName: "Photo", primaryKey: key)
            var request = StoreSaveRequest()
            request.inserts = [StoreSaveRequest.Insert(temporaryID: id, entity: entity, values: values, permanentID: id)]
            let result = try store.save(request)
            let reference = try #require(result.externalValues[id]?[image])
            #expect(StoredValueReference(reference)?.owner == "Photo/\(key)")
            return id
        }
        let copied = try insert(try row(in: store))
        let fromElsewhere = try insert(try row(in: foreign))
        #expect(store.externalValueReads == (0, 0), "the copy never left the server")
        #expect(foreign.externalValueReads.count == 1, "another store's value is read through that store")
        #expect(Set(try Self.valueIDs(database)).count == 3)
        let reader = PostgresStoreTests.context(try Self.coordinator(database))
        try reader.performAndWait { () throws in
            #expect(try reader.existingObject(with: copied).value(forKey: "image") == .binary(Self.image(0)))
            #expect(try reader.existingObject(with: fromElsewhere).value(forKey: "image") == .binary(Self.image(2)))
        }

        // A reference to a value another client has replaced since: the save fails and writes nothing.
        let stale = try row(in: store)
        let editor = PostgresStoreTests.context(try Self.coordinator(database))
        try editor.performAndWait {
            try editor.existingObject(with: fromElsewhere).setValue(.binary(Self.image(9)), forKey: "image")
            try editor.save()
        }
        let before = try Self.valueIDs(database)
        #expect {
            _ = try insert(stale)
        } throws: { error in
            guard case .externalDataUnavailable(let path, _) = error as? ObjectGraphError else { return false }
            return path.contains("Z_EXTERNALDATA")
        }
        #expect(try Self.valueIDs(database) == before)
        #expect(try database.connection().execute(#"SELECT count(*) FROM "ZPHOTO""#).first?.first == "3")
    }

    @Test func aReadWhileTheServerIsUnreachableIsAnErrorSayingSo() throws {
        let database = try PostgresTestDatabase()
        let id = try #require(try Self.insertPhotos(1, in: database).first)
        let reader = PostgresStoreTests.context(try Self.coordinator(database))
        let photo = try reader.performAndWait { try reader.existingObject(with: id) }
        // The database takes no connections, and this client's are cut: its server is out of reach.
        let admin = try PostgresConnection(uri: try #require(PostgresTestDatabase.baseURI), displayName: "test server")
        let name = database.url.lastPathComponent
        try admin.execute("ALTER DATABASE \(name) WITH ALLOW_CONNECTIONS false")
        defer { _ = try? admin.execute("ALTER DATABASE \(name) WITH ALLOW_CONNECTIONS true") }
        try admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name])
        reader.performAndWait {
            for _ in 0..<2 {
                #expect {
                    _ = try photo.loadValue(forKey: "image")
                } throws: { error in
                    guard case .externalDataUnavailable(let path, let reason) = error as? ObjectGraphError else { return false }
                    return path.contains("Photo/") && reason.contains("the server cannot give it")
                }
            }
            #expect(photo.value(forKey: "image") == .null)
        }
        try admin.execute("ALTER DATABASE \(name) WITH ALLOW_CONNECTIONS true")
        #expect(reader.performAndWait { photo.value(forKey: "image") } == .binary(Self.image(0)))
    }
}
