import Foundation
import Testing
@testable import ObjectGraph

/// The seed's configuration split in one coordinator: user data in a Recoverable SQLite store, downloaded
/// data in an Unrecoverable one (it can be fetched again), and a Cache configuration in an in-memory store.
@Suite struct ConfigurationSplitTests {
    let directory = TemporaryDirectory()

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Note", attributes: [AttributeDescription(name: "text", type: .string)]),
            EntityDescription(name: "Download", attributes: [AttributeDescription(name: "name", type: .string)]),
            EntityDescription(name: "Thumbnail", attributes: [AttributeDescription(name: "size", type: .integer64)]),
        ], configurations: [
            ModelConfiguration(name: "Recoverable", entityNames: ["Note"]),
            ModelConfiguration(name: "Unrecoverable", entityNames: ["Download"]),
            ModelConfiguration(name: "Cache", entityNames: ["Thumbnail"]),
        ])
    }

    /// A coordinator with the three stores; the SQLite files are `recoverable.sqlite` and `unrecoverable.sqlite`.
    func coordinator() throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        for (type, name, file) in [(PersistentStoreType.sqlite, "Recoverable", "recoverable.sqlite"),
            (.sqlite, "Unrecoverable", "unrecoverable.sqlite"), (.inMemory, "Cache", "")]
        {
            try coordinator.addPersistentStore(ofType: type, configurationName: name,
                at: file.isEmpty ? nil : directory.file(file), options: PersistentStoreOptions())
        }
        return coordinator
    }

    func fill(_ coordinator: PersistentStoreCoordinator) throws {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait { () throws in
            for text in ["b", "a", "c"] {
                try context.insertNewObject(forEntityName: "Note").setValue(.string(text), forKey: "text")
            }
            try context.insertNewObject(forEntityName: "Download").setValue(.string("feed"), forKey: "name")
            try context.insertNewObject(forEntityName: "Thumbnail").setValue(.integer(64), forKey: "size")
            try context.save()  // One save, three stores.
        }
    }

    func values(_ coordinator: PersistentStoreCoordinator, _ entity: String, _ key: String) throws -> [AttributeValue] {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait { () throws in
            try context.fetch(FetchRequest<ManagedObject>(entityName: entity, sortCriteria: [SortCriterion(key)]))
                .map { $0.value(forKey: key) }
        }
    }

    @Test func eachConfigurationGoesToItsStoreAndObjectsStayThere() throws {
        let coordinator = try coordinator()
        try fill(coordinator)
        let stores = coordinator.persistentStores
        #expect(stores.map(\.configurationName) == ["Recoverable", "Unrecoverable", "Cache"])
        let model = coordinator.managedObjectModel
        for (store, entity, count) in [(stores[0], "Note", 3), (stores[1], "Download", 1), (stores[2], "Thumbnail", 1)] {
            for other in ["Note", "Download", "Thumbnail"] {
                let entityDescription = try #require(model.entity(named: other))
                #expect(try StoreRows.count(store, entityDescription) == (other == entity ? count : 0))
            }
        }
        #expect(try values(coordinator, "Note", "text") == [.string("a"), .string("b"), .string("c")])
        // An object's store is fixed by its ID at the first save.
        let notes = try coordinator.fetchRows(entity: try #require(model.entity(named: "Note")), predicate: nil,
            sortCriteria: [], limit: 0, offset: 0, includesSubentities: true)
        #expect(notes.allSatisfy { $0.objectID.storeIdentifier == stores[0].identifier })
        // The cache lives in memory only: a new coordinator on the same files has no thumbnails.
        let reopened = try self.coordinator()
        #expect(try values(reopened, "Thumbnail", "size").isEmpty)
        #expect(try values(reopened, "Download", "name") == [.string("feed")])
    }

    @Test func deletingTheRecoverableFileAndAddingItAgainRecreatesItEmptyAndLeavesTheOther() throws {
        let coordinator = try coordinator()
        try fill(coordinator)
        let unrecoverable = directory.file("unrecoverable.sqlite")
        let recoverable = try #require(coordinator.persistentStores.first)
        try coordinator.destroyPersistentStore(at: directory.file("recoverable.sqlite"), type: .sqlite)
        #expect(!FileManager.default.fileExists(atPath: directory.file("recoverable.sqlite").path))
        #expect(!coordinator.persistentStores.contains { $0 === recoverable })
        let before = try Data(contentsOf: unrecoverable)
        try coordinator.addPersistentStore(ofType: .sqlite, configurationName: "Recoverable",
            at: directory.file("recoverable.sqlite"), options: PersistentStoreOptions())
        #expect(try values(coordinator, "Note", "text").isEmpty)
        #expect(try values(coordinator, "Download", "name") == [.string("feed")])
        #expect(try values(coordinator, "Thumbnail", "size") == [.integer(64)])
        #expect(try Data(contentsOf: unrecoverable) == before)
        try fill(coordinator)
        #expect(try values(coordinator, "Note", "text") == [.string("a"), .string("b"), .string("c")])
    }
}
