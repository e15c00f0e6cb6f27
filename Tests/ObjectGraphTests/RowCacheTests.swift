import Foundation
import Testing
@testable import ObjectGraph

@Suite struct RowCacheTests {
    /// Saves people named `names` through a context (so the save reaches the coordinator's broadcast) and
    /// returns their permanent IDs.
    private func savePeople(_ names: [String], in stack: TestStack) throws -> [ManagedObjectID] {
        let context = stack.context()
        return try context.performAndWait {
            let people = try names.map { name in
                let person = try context.insertNewObject(forEntityName: "Person")
                person["lastName"] = name
                return person
            }
            try context.save()
            return people.map(\.objectID)
        }
    }

    private func sqliteStore(_ stack: TestStack) throws -> SQLiteStore {
        try #require(stack.coordinator.persistentStores.first?.backend as? SQLiteStore)
    }

    private func personEntity(_ stack: TestStack) throws -> EntityDescription {
        try #require(stack.coordinator.managedObjectModel.entity(named: "Person"))
    }

    @Test func rowsOfSavedObjectsCostNoStoreRead() throws {
        let stack = try TestStack(.sqlite)
        let ids = try savePeople(["Ada", "Grace", "Edsger"], in: stack)
        let store = try sqliteStore(stack)
        let readsBefore = store.readCount.load(ordering: .relaxed)
        let hitsBefore = stack.coordinator.rowCacheHits.load(ordering: .relaxed)

        let rows = try stack.coordinator.rows(for: ids.reversed(), entity: try personEntity(stack))
        #expect(rows.map(\.objectID) == ids.reversed())
        let lastNameIndex = try #require(try personEntity(stack).attributeIndex(named: "lastName"))
        #expect(rows.map { $0.values[lastNameIndex] } == [.string("Edsger"), .string("Grace"), .string("Ada")])
        #expect(rows.allSatisfy { $0.version == 1 })
        #expect(store.readCount.load(ordering: .relaxed) == readsBefore)
        #expect(stack.coordinator.rowCacheHits.load(ordering: .relaxed) == hitsBefore + 3)
    }

    @Test func missingRowsAreReadOnceThenServedFromTheCache() throws {
        let stack = try TestStack(.sqlite)
        let ids = try savePeople(["Ada", "Grace"], in: stack)
        // A second coordinator on the file starts with an empty cache.
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestModels.model())
        let store = try coordinator.addPersistentStore(ofType: .sqlite, at: stack.storeURL)
        let backend = try #require(store.backend as? SQLiteStore)
        let person = try personEntity(stack)
        let first = try coordinator.rows(for: ids, entity: person)
        #expect(first.count == 2)
        #expect(backend.readCount.load(ordering: .relaxed) == 1)
        #expect(coordinator.rowCacheHits.load(ordering: .relaxed) == 0)
        let second = try coordinator.rows(for: ids, entity: person)
        #expect(second.map(\.objectID) == first.map(\.objectID))
        #expect(backend.readCount.load(ordering: .relaxed) == 1)
        #expect(coordinator.rowCacheHits.load(ordering: .relaxed) == 2)
        // Bypassing the cache reads the store again.
        _ = try coordinator.rows(for: ids, entity: person, bypassingCache: true)
        #expect(backend.readCount.load(ordering: .relaxed) == 2)
        // Fetched rows are cached too.
        let fetched = try coordinator.fetchRows(entity: person, predicate: nil, sortCriteria: [], limit: 0, offset: 0,
            includesSubentities: true)
        #expect(fetched.count == 2)
        coordinator.rowCache.withLock { $0.removeAll() }
        _ = try coordinator.fetchRows(entity: person, predicate: nil, sortCriteria: [], limit: 0, offset: 0,
            includesSubentities: true)
        let reads = backend.readCount.load(ordering: .relaxed)
        #expect(try coordinator.rows(for: ids, entity: person).count == 2)
        #expect(backend.readCount.load(ordering: .relaxed) == reads)
    }

    @Test(arguments: StoreKind.allCases) func updatesReplaceAndDeletesRemoveCachedRows(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ids = try savePeople(["Ada", "Grace"], in: stack)
        let person = try personEntity(stack)
        let lastNameIndex = try #require(person.attributeIndex(named: "lastName"))
        let context = stack.context()
        try context.performAndWait {
            let ada = try context.object(with: ids[0])
            ada["lastName"] = "Lovelace"
            // Fired first, so the delete carries the row version it read.
            let grace = try context.existingObject(with: ids[1])
            context.delete(grace)
            try context.save()
        }
        let hitsBefore = stack.coordinator.rowCacheHits.load(ordering: .relaxed)
        let rows = try stack.coordinator.rows(for: ids, entity: person)
        #expect(rows.map(\.objectID) == [ids[0]])
        #expect(rows.first?.version == 2)
        #expect(rows.first?.values[lastNameIndex] == .string("Lovelace"))
        #expect(stack.coordinator.rowCacheHits.load(ordering: .relaxed) == hitsBefore + 1)
        #expect(stack.coordinator.rowCache.withLock { $0.count } == 1)
    }

    @Test func aNewerVersionReplacesAnOlderOneAndNeverTheReverse() throws {
        var cache = RowCache()
        let id = ManagedObjectID(entityName: "Person", storeIdentifier: "S", primaryKey: 1)
        cache.insert(RowSnapshot(objectID: id, values: [.string("two")], version: 2))
        cache.insert(RowSnapshot(objectID: id, values: [.string("one")], version: 1))
        #expect(cache.snapshot(for: id)?.values == [.string("two")])
        cache.insert(RowSnapshot(objectID: id, values: [.string("two again")], version: 2))
        #expect(cache.snapshot(for: id)?.values == [.string("two again")])
        cache.insert(RowSnapshot(objectID: id, values: [.string("three")], version: 3))
        #expect(cache.snapshot(for: id)?.version == 3)
        #expect(cache.count == 1)
    }

    @Test func fetchedRowsReplaceOlderCachedOnesAndAddNone() throws {
        var cache = RowCache()
        let cached = ManagedObjectID(entityName: "Person", storeIdentifier: "S", primaryKey: 1)
        let other = ManagedObjectID(entityName: "Person", storeIdentifier: "S", primaryKey: 2)
        cache.insert(RowSnapshot(objectID: cached, values: [.string("two")], version: 2))
        cache.replaceOlder(with: [RowSnapshot(objectID: cached, values: [.string("one")], version: 1),
            RowSnapshot(objectID: other, values: [.string("x")], version: 1)], ifEpoch: cache.epoch)
        #expect(cache.snapshot(for: cached)?.values == [.string("two")], "an older read never replaces")
        #expect(cache.count == 1, "rows not cached stay out")
        cache.replaceOlder(with: [RowSnapshot(objectID: cached, values: [.string("three")], version: 3)],
            ifEpoch: cache.epoch &+ 1)
        #expect(cache.snapshot(for: cached)?.version == 2, "a read that overlapped a delete changes nothing")
        cache.replaceOlder(with: [RowSnapshot(objectID: cached, values: [.string("three")], version: 3)],
            ifEpoch: cache.epoch)
        #expect(cache.snapshot(for: cached)?.values == [.string("three")])
    }

    /// Another coordinator (another process) changes a row this coordinator has cached; a fetch reads the new
    /// version, so turning the object into a fault and firing it shows the new values — as in Core Data, where a
    /// fetch updates the row cache.
    @Test func aRefreshAfterAFetchShowsAnotherCoordinatorsSave() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("refresh.sqlite")
        let model = try TestModels.model()
        func context() throws -> ManagedObjectContext {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(ofType: .sqlite, configurationName: nil, at: url,
                options: PersistentStoreOptions())
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            return context
        }
        let writer = try context(), reader = try context()
        let id = try writer.performAndWait {
            let person = try writer.insertNewObject(forEntityName: "Person")
            person.setValue(.string("one"), forKey: "lastName")
            try writer.save()
            return person.objectID
        }
        let person = try reader.performAndWait {
            let person = try reader.existingObject(with: id)
            #expect(person.value(forKey: "lastName") == .string("one"))
            return person
        }
        try writer.performAndWait {
            try writer.existingObject(with: id).setValue(.string("two"), forKey: "lastName")
            try writer.save()
        }
        try reader.performAndWait {
            reader.refresh(person, mergeChanges: false)
            #expect(person.value(forKey: "lastName") == .string("one"), "without a fetch the cached row answers (stalenessInterval)")
            _ = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
            reader.refresh(person, mergeChanges: false)
            #expect(person.value(forKey: "lastName") == .string("two"))
        }
    }

    @Test func evictionKeepsTheBoundAndTheRecentlyUsedRows() throws {
        var cache = RowCache()
        cache.capacity = 10
        let ids = (1...100).map { ManagedObjectID(entityName: "Person", storeIdentifier: "S", primaryKey: Int64($0)) }
        let favourite = ids[0]
        for id in ids {
            cache.insert(RowSnapshot(objectID: id, values: [], version: 1))
            #expect(cache.count <= 10)
            // Reading a row keeps it among the recently used ones.
            #expect(cache.snapshot(for: favourite) != nil)
        }
        #expect(cache.snapshot(for: ids[99]) != nil)
        #expect(cache.snapshot(for: ids[50]) == nil)
        cache.capacity = 0
        cache.insert(RowSnapshot(objectID: favourite, values: [], version: 2))
        #expect(cache.count == 0)
    }

    @Test func theCoordinatorsCacheStaysWithinItsCapacity() throws {
        let stack = try TestStack(.inMemory)
        stack.coordinator.rowCacheCapacity = 4
        let ids = try savePeople((1...10).map { "P\($0)" }, in: stack)
        #expect(stack.coordinator.rowCache.withLock { $0.count } <= 4)
        // Rows that were evicted are read again from the store.
        #expect(try stack.coordinator.rows(for: ids, entity: try personEntity(stack)).count == 10)
        #expect(stack.coordinator.rowCache.withLock { $0.count } <= 4)
    }

    @Test func aReadThatOverlapsADeleteIsNotCached() throws {
        var cache = RowCache()
        let id = ManagedObjectID(entityName: "Person", storeIdentifier: "S", primaryKey: 1)
        let epoch = cache.epoch
        // The store read returned the row, but a save deleted it before the result reached the cache.
        cache.remove([id])
        cache.insert([RowSnapshot(objectID: id, values: [], version: 1)], ifEpoch: epoch)
        #expect(cache.snapshot(for: id) == nil)
        cache.insert([RowSnapshot(objectID: id, values: [], version: 1)], ifEpoch: cache.epoch)
        #expect(cache.snapshot(for: id) != nil)
    }
}
