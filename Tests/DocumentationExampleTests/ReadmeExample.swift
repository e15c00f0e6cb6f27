// The code sample of README.md, word for word between the `// article:` markers.
import Foundation
import ObjectGraph

enum ReadmeExample {
    // article: readme-person
    final class Person: ManagedObject {                       // or let `objectgraph codegen` write it
        @Attribute("lastName") var lastName: String
        @Attribute("city") var city: String
    }
    // end

    /// The README's stack on the model at `modelURL` with its store at `storeURL`; `peopleList` hears the changes.
    @MainActor static func run(modelURL: URL, storeURL: URL, peopleList: some FetchedResultsControllerDelegate)
        async throws -> FetchedResultsController<Person>
    {
        // article: readme-stack
        let container = try PersistentContainer(name: "People", contentsOf: modelURL, classes: [Person.self])
        container.persistentStoreDescriptions[0].url = storeURL  // default: ~/.local/share/People.sqlite
        try await container.loadPersistentStores()
        try await container.performBackgroundTask { context in
            let person = Person(context: context)
            person.lastName = "Lovelace"
            person.city = "London"
            try context.save()                                   // one transaction; the view context merges it
        }
        let request = FetchRequest<Person>(entityName: "Person",
            predicate: try FetchPredicate(format: "city BEGINSWITH[cd] %@", "lon"), sortCriteria: [SortCriterion("lastName")])
        let controller = FetchedResultsController(fetchRequest: request,
            managedObjectContext: container.viewContext, sectionNameKeyPath: "city")
        controller.delegate = peopleList                         // each change batch → tableView.applyChanges(_:)
        try controller.performFetch()
        // end
        return controller
    }
}
