// The code of the "Fetching" article (Sources/ObjectGraph/ObjectGraph.docc/Fetching.md), word for word between
// the `// article:` markers.
import Foundation
import ObjectGraph
import People

enum FetchingExamples {
    typealias Person = People.Person

    /// The typed queries, run in `context` (call on its queue).
    static func typedQueries(context: ManagedObjectContext, viewContext: ManagedObjectContext,
                             model: ManagedObjectModel) throws -> (typed: [Person], twin: [Person]) {
        // article: typed
        // Typed
        let city = "Oslo"
        let request = try FetchRequest<Person>(
            predicate: #Predicate {
                $0.age >= 30 && $0.city == city
                    && $0.tags.contains { $0.name == "swift" } },
            sortBy: [SortDescriptor(\.age, order: .reverse)])
        // end
        // article: format-twin
        // Format string
        var twin = FetchRequest<Person>(entityName: "Person")
        twin.predicate = try FetchPredicate(format:
            "age >= 30 AND city == %@ AND "
            + "ANY tags.name == 'swift'", city)
        twin.sortCriteria = [SortCriterion("age", ascending: false)]
        // end
        // article: typed-uses
        let people = try context.fetch(request)
        let count = try context.count(for: request)
        let ids = try context.fetchObjectIDs(request)
        let zoe = try FetchPredicate(#Predicate<Person> { $0.nickname?.localizedStandardContains("zoe") ?? false })
        // nickname != nil AND nickname CONTAINS[cd] "zoe"
        let byName = try SortCriterion(\Person.lastName, comparison: .localizedStandard)
        // SortCriterion("lastName", comparison: .localizedStandard)
        let controller = try FetchedResultsController(fetchRequest: request, managedObjectContext: viewContext,
                                                      sectionNameKeyPath: \Person.city)   // sectionNameKeyPath: "city"
        _ = try context.execute(BatchUpdateRequest(predicate: #Predicate<Person> { $0.age > 99 }, propertiesToUpdate: ["age": 99]))
        _ = try context.execute(BatchDeleteRequest(predicate: #Predicate<Person> { $0.company == nil && $0.age > 150 }))
        let adultsInOslo = try model.fetchRequest(fromTemplateWithName: "PeopleInCity", as: Person.self,   // a model template, typed:
            substitutionVariables: ["CITY": "Oslo"], combinedWith: #Predicate { $0.age >= 18 })  // FetchRequest<Person>?
        // end
        _ = (count, ids, zoe, byName, controller, adultsInOslo)
        return (people, try context.fetch(twin))
    }

    /// The dictionary fetch, run in `context` (call on its queue).
    static func dictionaries(context: ManagedObjectContext) throws -> [[String: AttributeValue]] {
        // article: dictionaries
        var request = FetchRequest<ManagedObject>(entityName: "Person")
        request.predicate = try FetchPredicate(format: "age >= 18")
        request.propertiesToFetch = ["city", .count(as: "people"), .average("age", as: "meanAge"), .maximum("company.name")]
        request.propertiesToGroupBy = ["city"]
        request.havingPredicate = try FetchPredicate(format: "people > 10")
        request.sortCriteria = [SortCriterion("people", ascending: false)]
        let rows = try context.fetchDictionaries(request)
        // [["city": "Oslo", "people": 42, "meanAge": 37.5, "max_company_name": "Globex"], …]
        // end
        return rows
    }

    /// The batch requests, run in `context` (call on its queue); `total` people are inserted.
    static func batchRequests(context: ManagedObjectContext, viewContext: ManagedObjectContext,
                              total: Int) throws -> (inserted: BatchResult, updated: BatchResult) {
        // article: batch
        // Insert: from an array of dictionaries, or a handler that fills one dictionary at a time (return true when done).
        var produced = 0
        let inserted = try context.execute(BatchInsertRequest(entityName: "Person") { person in
            guard produced < total else { return true }
            produced += 1
            person["lastName"] = .string("Person \(produced)")
            return false
        })
        // Update: a predicate and new values.
        var update = BatchUpdateRequest(entityName: "Person", predicate: try FetchPredicate(format: "city == 'Oslo'"),
                                        propertiesToUpdate: ["city": "Bergen", "age": 40])
        update.resultType = .objectIDs
        let result = try context.execute(update)          // result.count, result.objectIDs
        ManagedObjectContext.mergeChanges(fromBatchResult: result, into: [viewContext])   // controllers follow
        // Delete: a predicate (or a fetch request), or object IDs.
        _ = try context.execute(BatchDeleteRequest(entityName: "Person", predicate: try FetchPredicate(format: "age < 18")))
        let ids = result.objectIDs ?? []
        _ = try context.execute(BatchDeleteRequest(objectIDs: ids))
        // end
        return (inserted, result)
    }
}
