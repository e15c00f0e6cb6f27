import Foundation
import Testing
@testable import ObjectGraph

/// The seed's split across four stores in one coordinator: user data in a Recoverable SQLite store (notes and
/// their tags), downloaded data in an Unrecoverable SQLite store, old notes in an Archive atomic store, and a
/// Cache configuration in memory. Notes live in two stores and thumbnails in two: fetches merge them, new
/// objects go to the first store holding their entity unless assigned, and stay where they were saved.
@Suite struct MultiStoreRoutingTests {
    let directory = TemporaryDirectory(prefix: "routing")

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Note", attributes: [
                AttributeDescription(name: "text", type: .string),
                AttributeDescription(name: "kind", type: .string),
            ], relationships: [
                RelationshipDescription(name: "tags", destination: "Tag", inverse: "notes", isToMany: true),
            ]),
            EntityDescription(name: "Tag", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(name: "notes", destination: "Note", inverse: "tags", isToMany: true),
                ]),
            EntityDescription(name: "Download", attributes: [AttributeDescription(name: "name", type: .string)]),
            EntityDescription(name: "Thumbnail", attributes: [AttributeDescription(name: "size", type: .integer64)]),
        ], configurations: [
            ModelConfiguration(name: "Recoverable", entityNames: ["Note", "Tag"]),
            ModelConfiguration(name: "Unrecoverable", entityNames: ["Download", "Thumbnail"]),
            ModelConfiguration(name: "Archive", entityNames: ["Note"]),
            ModelConfiguration(name: "Cache", entityNames: ["Thumbnail"]),
        ])
    }

    /// The four stores, in this order: Recoverable, Unrecoverable, Archive, Cache.
    func coordinator() throws -> (PersistentStoreCoordinator, [PersistentStore]) {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        var stores: [PersistentStore] = []
        for (type, name, file) in [(PersistentStoreType.sqlite, "Recoverable", "recoverable.sqlite"),
            (.sqlite, "Unrecoverable", "unrecoverable.sqlite"), (.atomic, "Archive", "archive.store"),
            (.inMemory, "Cache", "")]
        {
            stores.append(try coordinator.addPersistentStore(ofType: type, configurationName: name,
                at: file.isEmpty ? nil : directory.file(file), options: PersistentStoreOptions()))
        }
        return (coordinator, stores)
    }

    private static func context(_ coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Notes a–f (b, d, f archived; a is tagged; b, c, d are ideas, the others todos), a download, thumbnails
    /// of sizes 1–4 (2 and 4 cached).
    private func fill(_ coordinator: PersistentStoreCoordinator, _ stores: [PersistentStore]) throws {
        let context = Self.context(coordinator)
        try context.performAndWait {
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag["name"] = "work"
            // Ideas: b, c, d (b and d archived); todos: a, e, f (f archived).
            for text in ["d", "a", "f", "c", "b", "e"] {
                let note = try context.insertNewObject(forEntityName: "Note")
                note["text"] = text
                note["kind"] = ["b", "c", "d"].contains(text) ? "idea" : "todo"
                if ["b", "d", "f"].contains(text) { try context.assign(note, to: stores[2]) }
                if text == "a" { note.setRelatedObjects([tag], forKey: "tags") }
            }
            try context.insertNewObject(forEntityName: "Download").setValue("feed", forKey: "name")
            for size in 1...4 {
                let thumbnail = try context.insertNewObject(forEntityName: "Thumbnail")
                thumbnail["size"] = Int64(size)
                if size.isMultiple(of: 2) { try context.assign(thumbnail, to: stores[3]) }
            }
            try context.save()  // One save, four stores.
        }
    }

    private static func texts(_ context: ManagedObjectContext, _ stores: [PersistentStore]? = nil) throws -> [String] {
        var request = FetchRequest<ManagedObject>(entityName: "Note", sortCriteria: [SortCriterion("text")])
        request.affectedStores = stores
        return try context.fetch(request).compactMap { $0["text"] as String? }
    }

    @Test func objectsGoWhereTheyAreAssignedOrRoutedAndFetchesMergeTheStores() throws {
        let (coordinator, stores) = try coordinator()
        try fill(coordinator, stores)
        let context = Self.context(coordinator)
        try context.performAndWait {
            #expect(try Self.texts(context) == ["a", "b", "c", "d", "e", "f"])
            #expect(try Self.texts(context, [stores[0]]) == ["a", "c", "e"])
            #expect(try Self.texts(context, [stores[2]]) == ["b", "d", "f"])
            #expect(try Self.texts(context, [stores[1], stores[3]]).isEmpty, "stores that do not hold notes add nothing")
            let notes = try context.fetch(FetchRequest<ManagedObject>(entityName: "Note"))
            for note in notes {
                let archived = ["b", "d", "f"].contains(note["text"] ?? "")
                #expect(note.objectID.storeIdentifier == stores[archived ? 2 : 0].identifier)
            }
            let thumbnails = try context.fetch(FetchRequest<ManagedObject>(entityName: "Thumbnail",
                sortCriteria: [SortCriterion("size", ascending: false)], fetchLimit: 3))
            #expect(thumbnails.compactMap { $0["size"] as Int64? } == [4, 3, 2])
            #expect(thumbnails.map(\.objectID.storeIdentifier) == [stores[3], stores[1], stores[3]].map(\.identifier))
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Thumbnail")) == 4)
            // Dictionary results group across stores: the idea and todo notes of both stores.
            var kinds = FetchRequest<ManagedObject>(entityName: "Note", sortCriteria: [SortCriterion("kind")])
            kinds.propertiesToFetch = ["kind", .count(as: "notes"), .minimum("text", as: "first")]
            kinds.propertiesToGroupBy = ["kind"]
            #expect(try context.fetchDictionaries(kinds) == [
                ["kind": "idea", "notes": 3, "first": "b"], ["kind": "todo", "notes": 3, "first": "a"],
            ])
            kinds.affectedStores = [stores[2]]
            #expect(try context.fetchDictionaries(kinds) == [
                ["kind": "idea", "notes": 2, "first": "b"], ["kind": "todo", "notes": 1, "first": "f"],
            ])

            // Assigning to a store whose configuration lacks the entity is refused at once.
            let download = try context.insertNewObject(forEntityName: "Download")
            let error = try #require(throws: ObjectGraphError.self) { try context.assign(download, to: stores[2]) }
            guard case .cannotAssignStore(_, _, let reason) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(reason.contains("Archive"))
            context.delete(download)
            // Relationships stay inside a store: an archived note cannot have a Recoverable tag.
            let tag = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag")).first)
            let archived = try context.insertNewObject(forEntityName: "Note")
            archived["text"] = "g"
            try context.assign(archived, to: stores[2])
            archived.setRelatedObjects([tag], forKey: "tags")
            let crossing = try #require(throws: ObjectGraphError.self) { try context.save() }
            guard case .crossStoreRelationship = crossing else {
                Issue.record("\(crossing)")
                return
            }
            #expect(context.hasChanges)
            archived.setRelatedObjects([], forKey: "tags")
            try context.save()
            #expect(archived.objectID.storeIdentifier == stores[2].identifier)
        }
    }

    @Test func aReopenedCoordinatorFindsEveryObjectInItsStoreAndTheCacheEmpty() throws {
        let (coordinator, stores) = try coordinator()
        try fill(coordinator, stores)
        let writer = Self.context(coordinator)
        let ids = try writer.performAndWait {
            try writer.fetchObjectIDs(FetchRequest<ManagedObject>(entityName: "Note", sortCriteria: [SortCriterion("text")]))
        }
        let (reopened, again) = try self.coordinator()
        #expect(again[2].identifier == stores[2].identifier && again[0].identifier == stores[0].identifier)
        let context = Self.context(reopened)
        try context.performAndWait {
            #expect(try context.fetchObjectIDs(FetchRequest<ManagedObject>(entityName: "Note",
                sortCriteria: [SortCriterion("text")])) == ids)
            let sizes = try context.fetch(FetchRequest<ManagedObject>(entityName: "Thumbnail", sortCriteria: [SortCriterion("size")]))
            #expect(sizes.compactMap { $0["size"] as Int64? } == [1, 3], "the cache is memory only")
        }
        // Destroying the Recoverable store and adding it again recreates it empty; the archive is untouched.
        let recoverable = try #require(again[0].url)
        try reopened.destroyPersistentStore(at: recoverable, type: .sqlite)
        try reopened.addPersistentStore(ofType: .sqlite, configurationName: "Recoverable", at: recoverable,
            options: PersistentStoreOptions())
        try context.performAndWait {
            context.reset()
            #expect(try Self.texts(context) == ["b", "d", "f"])
            let note = try context.insertNewObject(forEntityName: "Note")
            note["text"] = "new"
            try context.save()
            // The re-added Recoverable store is now last in the coordinator's order: the first store holding
            // notes is the archive.
            #expect(reopened.persistentStores.last?.configurationName == "Recoverable")
            #expect(note.objectID.storeIdentifier == again[2].identifier)
        }
    }
}
