import Foundation
import Testing
@testable import ObjectGraph

/// `fetchBatched(_:)`: IDs up front, objects a batch at a time, old batches let go and re-faulted, pending
/// changes included as `fetch(_:)` includes them.
@Suite struct BatchedFetchResultsTests {
    private func fill(_ stack: TestStack, count: Int) throws {
        let context = stack.context()
        try context.performAndWait {
            for index in 0..<count {
                let person = try context.insertNewObject(forEntityName: "Person")
                person.setValue(.string("L\(index % 13)"), forKey: "lastName")
                person.setValue(.integer(Int64(index % 17)), forKey: "age")
            }
            try context.save()
        }
    }

    private static func request() -> FetchRequest<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: "Person",
            predicate: try? FetchPredicate(format: "age >= 2"))
        request.sortCriteria = [SortCriterion("age"), SortCriterion("lastName", ascending: false)]
        request.fetchBatchSize = 10
        return request
    }

    @Test(arguments: StoreKind.allCases) func sameResultsAsFetchBatchByBatch(_ kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try fill(stack, count: 95)
        let context = stack.context()
        try context.performAndWait {
            // Pending changes count as in fetch(_:): a new match, a changed object, a deleted one.
            let newcomer = try context.insertNewObject(forEntityName: "Person")
            newcomer.setValue("Zed", forKey: "lastName")
            newcomer.setValue(.integer(5), forKey: "age")
            let all = try context.fetch(Self.request())
            all[3].setValue(.integer(16), forKey: "age")
            context.delete(all[4])
            let expected = try context.fetch(Self.request())

            let results = try context.fetchBatched(Self.request())
            #expect(results.count == expected.count)
            #expect(results.objectIDs == expected.map(\.objectID))
            #expect(results.map(\.objectID) == expected.map(\.objectID))
            #expect(results.loadedBatchCount == 3)
            // The first batch was let go: its unchanged objects are faults again; the changed one is not.
            let first = try #require(context.registeredObject(for: results.objectIDs[0]))
            #expect(first.isFault)
            #expect(!all[3].isFault && all[3].value(forKey: "age") == .integer(16))
            // Reading it again makes it (and its batch) again, with its saved values.
            #expect(results[0] === first)
            #expect(!first.isFault && first.value(forKey: "lastName") == expected[0].value(forKey: "lastName"))
            #expect(Array(results[20..<25]).map(\.objectID) == Array(expected[20..<25]).map(\.objectID))
            let position = try #require(results.objectIDs.firstIndex(of: newcomer.objectID))
            #expect(results[position] === newcomer)
        }
    }

    @Test func oneQueryForTheIDsAndOnePerBatch() throws {
        let stack = try TestStack(.sqlite)
        try fill(stack, count: 60)
        // A second coordinator on the file: its row cache is empty, so every row read is a query.
        let coordinator = PersistentStoreCoordinator(managedObjectModel: stack.coordinator.managedObjectModel)
        try coordinator.addPersistentStore(ofType: .sqlite, at: stack.storeURL)
        let store = try #require(coordinator.persistentStores.first?.backend as? SQLiteStore)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let before = store.readCount.load(ordering: .relaxed)
            let results = try context.fetchBatched(Self.request())
            #expect(store.readCount.load(ordering: .relaxed) == before + 1)
            _ = results[25].value(forKey: "lastName")
            _ = results[29].value(forKey: "age")
            #expect(store.readCount.load(ordering: .relaxed) == before + 2)
            _ = results[30].value(forKey: "age")
            #expect(store.readCount.load(ordering: .relaxed) == before + 3)
            #expect(context.registeredObjectsCount == 20)
        }
    }

    @Test func aWrongResultClassIsATypedError() throws {
        final class Other: ManagedObject {}
        let stack = try TestStack(.inMemory)
        let context = stack.context()
        context.performAndWait {
            _ = #expect(throws: ObjectGraphError.self) {
                try context.fetchBatched(FetchRequest<Other>(entityName: "Person"))
            }
        }
    }
}
