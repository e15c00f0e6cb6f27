import Foundation
import Testing
@testable import ObjectGraph
import TestSupport

/// ID-only fetches (and the batched controller's key fetch) read only IDs and a few columns; they must name
/// every object by its own entity and keep the full fetch's order, limit and offset.
@Suite struct KeyedRowFetchTests {
    /// Animal (abstract) ← Dog ← Puppy, and Animal ← Cat.
    private static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Animal", attributes: [
                AttributeDescription(name: "name", type: .string), AttributeDescription(name: "rank", type: .integer32),
            ], isAbstract: true),
            EntityDescription(name: "Dog", attributes: [AttributeDescription(name: "barks", type: .boolean)],
                parentEntity: "Animal"),
            EntityDescription(name: "Cat", attributes: [AttributeDescription(name: "lives", type: .integer16)],
                parentEntity: "Animal"),
            EntityDescription(name: "Puppy", attributes: [AttributeDescription(name: "age", type: .integer16)],
                parentEntity: "Dog"),
        ])
    }

    @Test(arguments: [StoreKind.sqlite, .inMemory])
    func idOnlyFetchesMatchWholeFetches(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        try coordinator.addPersistentStore(ofType: kind == .sqlite ? .sqlite : .inMemory,
            at: kind == .sqlite ? directory.file("animals.sqlite") : nil)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        var random = SeededRandom(seed: 7)
        try context.performAndWait {
            for serial in 0..<120 {
                let entityName = ["Dog", "Cat", "Puppy"][Int(random.next() % 3)]
                let animal = try context.insertNewObject(forEntityName: entityName)
                animal.setValue(.string("n\(random.next() % 10)"), forKey: "name")
                animal.setValue(.integer(Int64(serial % 7)), forKey: "rank")
            }
            try context.save()
        }
        let requests: [FetchRequest<ManagedObject>] = [
            FetchRequest(entityName: "Animal", sortCriteria: [SortCriterion("name"), SortCriterion("rank", ascending: false)]),
            FetchRequest(entityName: "Dog", predicate: try FetchPredicate(format: "rank > 2"), sortCriteria: [SortCriterion("rank")]),
            FetchRequest(entityName: "Animal", sortCriteria: [SortCriterion("rank")], fetchLimit: 17, fetchOffset: 30),
            { var request = FetchRequest<ManagedObject>(entityName: "Dog", sortCriteria: [SortCriterion("name")])
              request.includesSubentities = false
              return request }(),
        ]
        for request in requests {
            let fresh = ManagedObjectContext(concurrencyType: .privateQueue)
            fresh.persistentStoreCoordinator = coordinator
            let (ids, objects) = try fresh.performAndWait { () throws in
                (try fresh.fetchObjectIDs(request), try fresh.fetch(request).map(\.objectID))
            }
            #expect(!ids.isEmpty)
            #expect(ids == objects, "\(request)")
            #expect(ids.map(\.entityName) == objects.map(\.entityName))
        }
    }
}
