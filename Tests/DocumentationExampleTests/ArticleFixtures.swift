import Foundation
import ObjectGraph
import People
import PeopleResources

/// What the articles' examples start from: the People model (`Resources/People.xcdatamodeld`), whose typed
/// classes `People.Person`, `Company` and `Tag` the examples use, and stores in a temporary folder.
enum ArticleFixtures {
    /// The People bundle.
    static var modelURL: URL {
        get throws {
            guard let url = PeopleResources.modelURL else { throw FixtureError.missingModel }
            return url
        }
    }

    /// The People model with its classes.
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel.load(contentsOf: modelURL, classes: PeopleModel.classes)
    }

    /// A coordinator of the People model with an SQLite store at `url`.
    static func coordinator(storeAt url: URL) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try model())
        try coordinator.addPersistentStore(ofType: .sqlite, at: url)
        return coordinator
    }

    /// A private-queue context on `coordinator`.
    static func context(on coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Saves `count` people in `context` (on its queue), in cities taken in turn from `cities`.
    static func insertPeople(_ count: Int, cities: [String] = ["Oslo", "Bergen", "London"],
                             in context: ManagedObjectContext) throws {
        try context.performAndWait {
            for index in 0..<count {
                let person = People.Person(context: context)
                person.firstName = "P\(index)"
                person.lastName = "Person \(index)"
                person.city = cities[index % cities.count]
                person.age = Int64(10 + index % 60)
            }
            try context.save()
        }
    }

    enum FixtureError: Error { case missingModel }
}
