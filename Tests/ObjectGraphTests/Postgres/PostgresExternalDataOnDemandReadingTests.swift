import Foundation
import SQLiteStorage
import Testing
import TestSupport

@testable @_spi(StoreImplementation) import ObjectGraph
@testable @_spi(StoreImplementation) import ObjectGraphPostgres

/// How a PostgreSQL store reads large values on demand (``PostgresValueReader``): on a connection of its own that
/// never waits for saves, many at a time for backups, and from databases made before value IDs existed.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresExternalDataOnDemandReadingTests {
    typealias OnDemand = PostgresExternalDataOnDemandTests

    @Test func aReadCompletesWhileASaveHoldsTheStore() throws {
        let database = try PostgresTestDatabase()
        let id = try #require(try OnDemand.insertPhotos(1, in: database).first)
        let coordinator = try OnDemand.coordinator(database)
        let store = try OnDemand.store(coordinator)
        let context = PostgresStoreTests.context(coordinator)
        let photo = try context.performAndWait { try context.existingObject(with: id) }
        #expect(context.performAndWait { OnDemand.reference(photo) } != nil)

        // A save under way: it holds the store's lock, and its transaction on the writer has replaced the value
        // (not committed yet).
        store.lock.lock()
        var locked = true
        defer { if locked { store.lock.unlock() } }
        try store.writer.execute("BEGIN")
        try store.writer.execute(#"UPDATE "Z_EXTERNALDATA" SET "Z_BYTES" = $1, "#
            + #""Z_VALUEID" = nextval('"Z_EXTERNALVALUEID"')"#,
            [PostgresValueCoding.encode(.binary(OnDemand.image(5, seed: 7)), as: .binary)])

        let read = Locked<AttributeValue?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let value = context.performAndWait { try? context.existingObject(with: id).value(forKey: "image") }
            read.withLock { $0 = value }
            done.signal()
        }
        // (The deadline only keeps a read that waits for the lock from hanging the test: it is then a failure.)
        let completed = done.wait(timeout: .now() + 60) == .success
        #expect(completed, "the read waited for the save")
        #expect(read.withLock { $0 } == .binary(OnDemand.image(0)), "the committed value, not the save's")
        try store.writer.execute("ROLLBACK")
        store.lock.unlock()
        locked = false
        if !completed { done.wait() }
        withExtendedLifetime(photo) {}
        #expect(store.valueReader.backendPID != 0 && store.valueReader.backendPID != store.writerBackendPID)
    }

    @Test func aReadReconnectsWhenItsConnectionWasCut() throws {
        let database = try PostgresTestDatabase()
        let ids = try OnDemand.insertPhotos(2, in: database)
        let coordinator = try OnDemand.coordinator(database)
        let store = try OnDemand.store(coordinator)
        let context = PostgresStoreTests.context(coordinator)
        let photos = try context.performAndWait { try ids.map { try context.existingObject(with: $0) } }
        #expect(context.performAndWait { photos[0].value(forKey: "image") } == .binary(OnDemand.image(0)))
        let admin = try database.connection()
        try admin.execute("SELECT pg_terminate_backend($1::int)", [String(store.valueReader.backendPID)])
        // The first read after the cut learns of it and fails (saying why); the next reconnects.
        _ = context.performAndWait { try? photos[1].loadValue(forKey: "image") }
        #expect(try context.performAndWait { try photos[1].loadValue(forKey: "image") } == .binary(OnDemand.image(1)))
    }

    @Test func aBackupReadsTheValuesABatchAtATime() throws {
        let database = try PostgresTestDatabase()
        let count = 60
        let ids = try OnDemand.insertPhotos(count, in: database)
        let coordinator = try OnDemand.coordinator(database)
        let store = try OnDemand.store(coordinator)
        let persistent = try #require(coordinator.persistentStores.first)
        let directory = TemporaryDirectory()
        let before = store.valueReader.roundTrips
        let backup = directory.url.appendingPathComponent("Backup.sqlite")
        try coordinator.backupPersistentStore(persistent, to: backup)
        #expect(store.externalValueReads.count == count)
        #expect(store.valueReader.roundTrips - before <= 2, "one statement for all \(count) values, not \(count)")

        let reader = PersistentStoreCoordinator(managedObjectModel: try PostgresExternalDataTests.model())
        var options = PersistentStoreOptions()
        options.externalBinaryDataThreshold = OnDemand.threshold
        try reader.addPersistentStore(ofType: .sqlite, configurationName: nil, at: backup, options: options)
        let context = PostgresStoreTests.context(reader)
        #expect(try context.performAndWait { try OnDemand.photos(in: context).map { $0.value(forKey: "image") } }
            == (0..<count).map { .binary(OnDemand.image($0)) })

        // A value that is gone fails the backup, naming that value.
        let missing = try #require(ids[17].primaryKey)
        try database.connection().execute(#"DELETE FROM "Z_EXTERNALDATA" WHERE "Z_OWNER" = $1"#, ["Photo/\(missing)"])
        #expect {
            try coordinator.backupPersistentStore(persistent, to: directory.url.appendingPathComponent("Second.sqlite"))
        } throws: { error in
            guard case .externalDataUnavailable(let path, let reason) = error as? ObjectGraphError else { return false }
            return path.contains("Photo/\(missing).image") && reason.contains("the value is gone")
        }
    }

    @Test func anExportReadsTheValuesABatchAtATime() throws {
        let database = try PostgresTestDatabase()
        let count = 30
        try OnDemand.insertPhotos(count, in: database)
        let coordinator = try OnDemand.coordinator(database)
        let store = try OnDemand.store(coordinator)
        let context = PostgresStoreTests.context(coordinator)
        let entity = try #require(coordinator.managedObjectModel.entity(named: "Photo"))
        let exporter = ObjectExporter(context: context, entity: entity,
            request: FetchRequest<ManagedObject>(entityName: "Photo", sortCriteria: [SortCriterion("name")]), batchSize: 10)
        let before = store.valueReader.roundTrips
        var output = Data()
        #expect(try exporter.write(format: .jsonLines) { output.append($0) } == count)
        #expect(store.externalValueReads.count == count)
        #expect(store.valueReader.roundTrips - before == 3, "one statement per batch of 10 objects")
        let text = String(decoding: output, as: UTF8.self)
        #expect((0..<count).allSatisfy { text.contains(OnDemand.image($0).base64EncodedString()) })
    }

    @Test func batchesAreBoundedInCountAndBytes() throws {
        let database = try PostgresTestDatabase()
        let count = PostgresValueReader.batchCount + 20
        try OnDemand.insertPhotos(1, in: database)
        let coordinator = try OnDemand.coordinator(database)
        let store = try OnDemand.store(coordinator)
        let context = PostgresStoreTests.context(coordinator)
        let reference = try #require(try context.performAndWait { OnDemand.reference(try OnDemand.photos(in: context)[0]) })
        // References to values that are not there (other owners): each fails on its own, naming itself.
        let references = (0..<count).map {
            StoredValueReference(storeIdentifier: reference.storeIdentifier, opening: reference.opening,
                owner: "Photo/\(1000 + $0)", attribute: "image", valueID: Int64(1000 + $0), byteCount: 10)
        } + [reference]
        let before = store.valueReader.roundTrips
        let outcomes = store.readExternalValues(references)
        #expect(store.valueReader.roundTrips - before == 2)
        #expect(try outcomes[reference]?.get() == OnDemand.image(0))
        for missing in references.dropLast() {
            #expect {
                try outcomes[missing]?.get()
            } throws: { error in
                guard case .externalDataUnavailable(let path, _) = error as? ObjectGraphError else { return false }
                return path.contains(missing.description)
            }
        }
        // Values whose sizes fill a batch each are read one per statement; equal references once.
        let large = (0..<3).map {
            StoredValueReference(storeIdentifier: reference.storeIdentifier, opening: reference.opening,
                owner: "Photo/\(5000 + $0)", attribute: "image", valueID: Int64(5000 + $0),
                byteCount: PostgresValueReader.batchBytes / 2 + 1)
        }
        var again = store.valueReader.roundTrips
        #expect(store.readExternalValues(large).count == 3)
        #expect(store.valueReader.roundTrips - again == 3)
        again = store.valueReader.roundTrips
        #expect(store.readExternalValues([reference, reference, reference]).count == 1)
        #expect(store.valueReader.roundTrips - again == 1)
    }
}

/// A database made before values had IDs (`Z_VALUEID`, which only a read-write opening adds) opened read-only.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipReason))
struct PostgresExternalDataOnDemandOldLayoutTests {
    typealias OnDemand = PostgresExternalDataOnDemandTests

    /// Whether `Z_EXTERNALDATA` has the `Z_VALUEID` column.
    static func hasValueIDs(_ database: PostgresTestDatabase) throws -> Bool {
        try !database.connection().execute("SELECT 1 FROM information_schema.columns WHERE table_name = "
            + "'Z_EXTERNALDATA' AND column_name = 'Z_VALUEID'").isEmpty
    }

    static func readOnlyCoordinator(_ database: PostgresTestDatabase) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PostgresExternalDataTests.model())
        var options = PersistentStoreOptions()
        options.externalBinaryDataThreshold = OnDemand.threshold
        options.isReadOnly = true
        try coordinator.addPersistentStore(ofType: .postgreSQL, configurationName: nil, at: database.url, options: options)
        return coordinator
    }

    @Test func aReadOnlyClientReadsValuesOfADatabaseWithoutValueIDs() throws {
        let database = try PostgresTestDatabase()
        let count = 4
        let ids = try OnDemand.insertPhotos(count, in: database)
        try database.connection().executeScript(#"ALTER TABLE "Z_EXTERNALDATA" DROP COLUMN "Z_VALUEID"; "#
            + #"DROP SEQUENCE "Z_EXTERNALVALUEID""#)
        #expect(try !Self.hasValueIDs(database))

        let coordinator = try Self.readOnlyCoordinator(database)
        let store = try OnDemand.store(coordinator)
        let context = PostgresStoreTests.context(coordinator)
        let photos = try context.performAndWait {
            let photos = try OnDemand.photos(in: context)
            #expect(photos.map { $0.externalDataSize(forKey: "image") } == (0..<count).map { OnDemand.image($0).count })
            #expect(store.externalValueReads.count == 0)
            #expect(photos.map { $0.value(forKey: "image") } == (0..<count).map { .binary(OnDemand.image($0)) })
            return photos
        }
        #expect(try !Self.hasValueIDs(database), "a read-only opening changes nothing")

        // A backup reads them too (a batch at a time).
        let directory = TemporaryDirectory()
        try coordinator.backupPersistentStore(try #require(coordinator.persistentStores.first),
            to: directory.url.appendingPathComponent("Backup.sqlite"))

        // A value rewritten since the reference was made (by a client of a version without value IDs) is an
        // error, never the newer bytes; so is one removed.
        let writer = try database.connection()
        let owner = try #require(ids[1].primaryKey), removed = try #require(ids[2].primaryKey)
        try writer.execute(#"UPDATE "Z_EXTERNALDATA" SET "Z_BYTES" = $1 WHERE "Z_OWNER" = $2"#,
            [PostgresValueCoding.encode(.binary(OnDemand.image(8, seed: 4)), as: .binary), "Photo/\(owner)"])
        try writer.execute(#"DELETE FROM "Z_EXTERNALDATA" WHERE "Z_OWNER" = $1"#, ["Photo/\(removed)"])
        let reader = PostgresStoreTests.context(coordinator)
        reader.performAndWait {
            for (number, why) in [(1, "a later save replaced it"), (2, "the value is gone")] {
                let photo = try? reader.existingObject(with: ids[number])
                #expect {
                    _ = try photo?.loadValue(forKey: "image")
                } throws: { error in
                    guard case .externalDataUnavailable(let path, let reason) = error as? ObjectGraphError else {
                        return false
                    }
                    return path.contains("Photo/") && reason.contains(why)
                }
            }
            #expect(photos[0].value(forKey: "image") == .binary(OnDemand.image(0)))
        }

        // A read-write opening adds the column; a new read-only client then reads by value ID.
        _ = try OnDemand.coordinator(database)
        #expect(try Self.hasValueIDs(database))
        let later = try Self.readOnlyCoordinator(database)
        let laterContext = PostgresStoreTests.context(later)
        #expect(try laterContext.performAndWait { try OnDemand.photos(in: laterContext).map { $0.value(forKey: "image") } }
            == [.binary(OnDemand.image(0)), .binary(OnDemand.image(8, seed: 4)), .null, .binary(OnDemand.image(3))])
    }
}
