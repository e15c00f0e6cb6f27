import Foundation
import Testing
import TestSupport

@testable import ObjectGraph

/// Counts without a predicate, which the in-memory store (and a PostgreSQL store's replica) counts where the rows
/// are: the same as the number of rows a fetch returns, for every entity of a hierarchy, with and without its
/// sub-entities, with and without a limit.
struct InMemoryCountTests {
    @Test func countsWithoutAPredicateAreWhatAFetchReturns() throws {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Person", attributes: [AttributeDescription(name: "name", type: .string)]),
            EntityDescription(name: "Adult", attributes: [], parentEntity: "Person"),
            EntityDescription(name: "Child", attributes: [], parentEntity: "Person"),
            EntityDescription(name: "Baby", attributes: [], parentEntity: "Child"),
            EntityDescription(name: "Tag", attributes: [AttributeDescription(name: "name", type: .string)]),
        ])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: .inMemory).incrementalStore
        var random = SeededRandom(seed: 7)
        for name in ["Person", "Adult", "Child", "Baby"] {
            let count = Int.random(in: 0..<40, using: &random)
            guard count > 0 else { continue }
            _ = try coordinator.execute(BatchInsertRequest(entityName: name,
                objects: (0..<count).map { ["name": .string("\(name) \($0)")] }))
        }
        for entity in model.entities {
            for includesSubentities in [true, false] {
                for limit in [0, 1, 7, 1_000] {
                    let request = StoreFetchRequest(entity: entity, fetchLimit: limit,
                        includesSubentities: includesSubentities)
                    let fetched = try store.fetch(request).count
                    var counting = request
                    counting.resultShape = .count
                    #expect(try store.count(counting) == fetched, "\(entity.name) \(includesSubentities) \(limit)")
                }
            }
        }
    }
}
