import Foundation
import ObjectGraph

/// Gives people written by other programs their section: the app stores each person's section position
/// (`sectionOrder`, A → 1 … Z → 26) when it saves them, but another program — `objectgraph import` into the app's
/// store, a script on PostgreSQL — leaves the model's default, 27 (`#`), so every such person would sit under `#`.
/// At each opening, people still at 27 whose last name starts with a letter (as ``Person`` folds it) are moved to
/// that letter's section: one batch update per letter, recorded as `people`'s, and nothing at all when no one is
/// at 27 (the position is indexed, so asking costs one index lookup).
enum SectionOrderRepair {
    /// Repairs the people of the store `coordinator` holds; returns how many were moved.
    @discardableResult
    static func run(_ coordinator: PersistentStoreCoordinator) throws(ObjectGraphError) -> Int {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.transactionAuthor = PeopleStack.transactionAuthor
        context.name = "section repair"
        func predicate(_ format: String, _ arguments: any PredicateArgument...) throws(ObjectGraphError) -> FetchPredicate {
            do {
                return try FetchPredicate(format: format, argumentArray: arguments)
            } catch {
                throw .predicate(error)
            }
        }
        let unplaced = try predicate("%K == 27", PeopleModel.sectionOrderKey)
        let letters = try "abcdefghijklmnopqrstuvwxyz".map { letter throws(ObjectGraphError) in
            try predicate("%K == 27 AND lastName BEGINSWITH[cd] %@", PeopleModel.sectionOrderKey, String(letter))
        }
        let outcome: Result<Int, ObjectGraphError> = context.performAndWait {
            Result { () throws(ObjectGraphError) -> Int in
                var anyone = FetchRequest<ManagedObject>(entityName: PeopleModel.entityName, predicate: unplaced)
                anyone.fetchLimit = 1
                guard try !context.fetchObjectIDs(anyone).isEmpty else { return 0 }
                var moved = 0
                for (offset, letter) in letters.enumerated() {
                    let result = try context.execute(BatchUpdateRequest(entityName: PeopleModel.entityName,
                        predicate: letter,
                        propertiesToUpdate: [PeopleModel.sectionOrderKey: .integer(Int64(offset + 1))]))
                    moved += result.count
                }
                return moved
            }
        }
        return try outcome.get()
    }
}
