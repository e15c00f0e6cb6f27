import Foundation
@testable import ObjectGraph

/// A child context of `parent` on a private queue.
func child(of parent: ManagedObjectContext, name: String? = nil) -> ManagedObjectContext {
    let context = ManagedObjectContext(concurrencyType: .privateQueue)
    context.parent = parent
    context.name = name
    return context
}

/// Last names of the people a fresh root context reads from the store, sorted.
func storedLastNames(_ stack: TestStack) throws -> [String] {
    let reader = stack.context()
    return try reader.performAndWait {
        try reader.fetch(FetchRequest<ManagedObject>(entityName: "Person", sortCriteria: [SortCriterion("lastName")]))
            .compactMap { $0["lastName"] as String? }
    }
}

/// Inserts a person with `lastName` (and `city`) into `context`; call it on the context's queue.
@discardableResult
func insertPerson(_ lastName: String, city: String? = nil, into context: ManagedObjectContext) throws
    -> ManagedObject
{
    let person = try context.insertNewObject(forEntityName: "Person")
    person["lastName"] = lastName
    if let city { person["city"] = city }
    return person
}
