import Foundation
import ObjectGraph
import PeopleResources

/// The browser's Core Data stack: a coordinator on the store file and a main-queue context that merges
/// every background save automatically.
public final class PeopleStack: Sendable {
    /// The coordinator with the SQLite store.
    public let coordinator: PersistentStoreCoordinator
    /// The context the user interface reads, on the main queue.
    public let viewContext: ManagedObjectContext
    /// The store file.
    public let storeURL: URL

    /// Opens (creating if needed) the store at `storeURL` with the app's model.
    public convenience init(storeURL: URL) throws {
        try self.init(storeURL: storeURL, model: PeopleModel.loadModel())
    }

    /// Opens (creating if needed) the store at `storeURL` with `model`.
    public init(storeURL: URL, model: ManagedObjectModel) throws(ObjectGraphError) {
        self.storeURL = storeURL
        coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: .sqlite, at: storeURL)
        viewContext = ManagedObjectContext(concurrencyType: .mainQueue)
        viewContext.name = "view"
        viewContext.persistentStoreCoordinator = coordinator
        viewContext.automaticallyMergesChangesFromParent = true
    }

    /// A new private-queue context on the same coordinator, for background work.
    public func newBackgroundContext(name: String) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.name = name
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// The default store location: `$XDG_DATA_HOME/people/people.sqlite`, else
    /// `~/.local/share/people/people.sqlite`.
    public static func defaultStoreURL(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let base: URL
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty {
            base = URL(fileURLWithPath: data, isDirectory: true)
        } else {
            let home = environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
                ?? FileManager.default.homeDirectoryForCurrentUser
            base = home.appendingPathComponent(".local/share", isDirectory: true)
        }
        return base.appendingPathComponent("people", isDirectory: true).appendingPathComponent("people.sqlite")
    }

    /// Fills an empty store with the sample people shipped in `Resources/`; does nothing otherwise.
    ///
    /// - Returns: how many people were added.
    @discardableResult
    public func seedIfEmpty() throws -> Int {
        let context = newBackgroundContext(name: "seed")
        return try context.performAndWait {
            guard try context.count(for: PeopleModel.listRequest()) == 0 else { return 0 }
            guard let url = PeopleResources.samplePeopleURL else { return 0 }
            let records = try PersonRecord.loadSamplePeople(from: url)
            let people = records.map { record in
                let person = Person(context: context)
                person.update(from: record)
                return person
            }
            try GeneratedAffiliations.attach(people, records: records, in: context)
            try context.save()
            return records.count
        }
    }
}
