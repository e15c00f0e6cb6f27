import Foundation
import ObjectGraph

/// Gives people written by other programs their section: the app stores each person's section position
/// (`sectionOrder`, A → 1 … Z → 26) when it saves them, but another program — `objectgraph import` into the app's
/// store, a script on PostgreSQL — leaves the model's default, 27 (`#`), so every such person would sit under `#`.
/// At each opening, the distinct last names still at 27 are read (the position is indexed: people who belong under
/// `#` are the only ones usually there), and only the letters some of them start with (as ``Person`` folds them)
/// get a batch update, recorded as `people`'s. A store with nothing to move is not written to at all, so its
/// section cache stays valid.
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
        let outcome: Result<Int, ObjectGraphError> = context.performAndWait {
            Result { () throws(ObjectGraphError) -> Int in
                var names = FetchRequest<ManagedObject>(entityName: PeopleModel.entityName, predicate: unplaced)
                names.propertiesToFetch = ["lastName"]
                names.propertiesToGroupBy = ["lastName"]
                var letters: Set<String> = []
                for row in try context.fetchDictionaries(names) {
                    let initial = StringFolding.initial(row["lastName"]?.stringValue ?? "")
                    if initial != "#" { letters.insert(initial) }
                }
                var moved = 0
                for letter in letters.sorted() {
                    let order = PeopleModel.sectionOrder(forTitle: letter)
                    let result = try context.execute(BatchUpdateRequest(entityName: PeopleModel.entityName,
                        predicate: try predicate("%K == 27 AND lastName BEGINSWITH[cd] %@", PeopleModel.sectionOrderKey,
                            letter.lowercased()),
                        propertiesToUpdate: [PeopleModel.sectionOrderKey: .integer(order)]))
                    moved += result.count
                }
                return moved
            }
        }
        return try outcome.get()
    }
}
