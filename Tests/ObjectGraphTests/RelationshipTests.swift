import Foundation
import Testing
@testable import ObjectGraph
import SQLiteStorage

/// Company 1—n Employee (nullify / cascade), Employee n—m Tag, Department deny-deletes while it has staff.
private func graphModel() throws -> ManagedObjectModel {
    try ManagedObjectModel(entities: [
        EntityDescription(name: "Company", attributes: [AttributeDescription(name: "name", type: .string)],
            relationships: [
                RelationshipDescription(name: "employees", destination: "Employee", inverse: "company", isToMany: true,
                    deleteRule: .cascade),
                RelationshipDescription(name: "departments", destination: "Department", inverse: "company",
                    isToMany: true, deleteRule: .cascade),
            ]),
        EntityDescription(name: "Department", attributes: [AttributeDescription(name: "name", type: .string)],
            relationships: [
                RelationshipDescription(name: "company", destination: "Company", inverse: "departments"),
                RelationshipDescription(name: "staff", destination: "Employee", inverse: "department", isToMany: true,
                    deleteRule: .deny, maxCount: 3),
            ]),
        EntityDescription(name: "Employee", attributes: [AttributeDescription(name: "name", type: .string)],
            relationships: [
                RelationshipDescription(name: "company", destination: "Company", inverse: "employees"),
                RelationshipDescription(name: "department", destination: "Department", inverse: "staff"),
                RelationshipDescription(name: "tags", destination: "Tag", inverse: "employees", isToMany: true),
                RelationshipDescription(name: "mentor", destination: "Employee"),
            ]),
        EntityDescription(name: "Tag", attributes: [AttributeDescription(name: "name", type: .string)],
            relationships: [
                RelationshipDescription(name: "employees", destination: "Employee", inverse: "tags", isToMany: true),
            ]),
    ])
}

private struct Graph {
    let directory = TemporaryDirectory()
    let coordinator: PersistentStoreCoordinator
    init(_ kind: StoreKind) throws {
        coordinator = PersistentStoreCoordinator(managedObjectModel: try graphModel())
        try coordinator.addPersistentStore(ofType: kind.storeType, at: directory.file("g.sqlite"))
    }
    func context() -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }
}

private func named(_ objects: [ManagedObject]) -> [String] { objects.compactMap { $0["name"] as String? }.sorted() }

@Suite struct RelationshipTests {
    @Test func inversesFollowEverySideAndMoves() throws {
        let graph = try Graph(.inMemory)
        let context = graph.context()
        try context.performAndWait {
            let acme = try context.insertNewObject(forEntityName: "Company")
            let globex = try context.insertNewObject(forEntityName: "Company")
            let ada = try context.insertNewObject(forEntityName: "Employee")
            ada.setRelatedObject(acme, forKey: "company")
            #expect(acme.relatedObjects(forKey: "employees").map(ObjectIdentifier.init) == [ObjectIdentifier(ada)])
            // Moving to another owner updates both owners.
            globex.addRelatedObject(ada, forKey: "employees")
            #expect(acme.relatedObjects(forKey: "employees").isEmpty)
            #expect(ada.relatedObject(forKey: "company") === globex)
            ada.setRelatedObject(nil, forKey: "company")
            #expect(globex.relatedObjects(forKey: "employees").isEmpty)
            // Many-to-many.
            let swift = try context.insertNewObject(forEntityName: "Tag")
            ada.addRelatedObject(swift, forKey: "tags")
            #expect(swift.relatedObjects(forKey: "employees").first === ada)
            swift.removeRelatedObject(ada, forKey: "employees")
            #expect(ada.relatedObjects(forKey: "tags").isEmpty)
            // No inverse: only this side.
            let bob = try context.insertNewObject(forEntityName: "Employee")
            bob.setRelatedObject(ada, forKey: "mentor")
            #expect(bob.relatedObject(forKey: "mentor") === ada)
        }
    }

    @Test(arguments: StoreKind.allCases) func everyKindRoundTripsThroughTheStore(kind: StoreKind) throws {
        let graph = try Graph(kind)
        let writer = graph.context()
        let acmeID = try writer.performAndWait {
            let acme = try writer.insertNewObject(forEntityName: "Company")
            acme["name"] = "Acme"
            let tags = try ["swift", "sql"].map { name in
                let tag = try writer.insertNewObject(forEntityName: "Tag")
                tag["name"] = name
                return tag
            }
            var previous: ManagedObject?
            for name in ["Ada", "Bob", "Cy"] {
                let employee = try writer.insertNewObject(forEntityName: "Employee")
                employee["name"] = name
                employee.setRelatedObject(acme, forKey: "company")
                employee.setRelatedObjects(name == "Cy" ? [tags[1]] : tags, forKey: "tags")
                employee.setRelatedObject(previous, forKey: "mentor")
                previous = employee
            }
            try writer.save()
            return acme.objectID
        }
        let reader = graph.context()
        try reader.performAndWait {
            let acme = try reader.existingObject(with: acmeID)
            #expect(acme.hasFaultForRelationshipNamed("employees"))
            let employees = acme.relatedObjects(forKey: "employees")
            #expect(named(employees) == ["Ada", "Bob", "Cy"])
            let cy = try #require(employees.first { $0["name"] == "Cy" })
            #expect(named(cy.relatedObjects(forKey: "tags")) == ["sql"])
            #expect(cy.relatedObject(forKey: "mentor")?["name"] == "Bob")
            #expect(cy.relatedObject(forKey: "company") === acme)
            let tags = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Tag", sortCriteria: [SortCriterion("name")]))
            #expect(tags.map { named($0.relatedObjects(forKey: "employees")) } == [["Ada", "Bob", "Cy"], ["Ada", "Bob"]])
            // Change and save again: the join rows follow.
            cy.removeRelatedObject(tags[0], forKey: "tags")
            tags[1].addRelatedObject(cy, forKey: "employees")
            try reader.save()
        }
        let third = graph.context()
        try third.performAndWait {
            let tags = try third.fetch(FetchRequest<ManagedObject>(entityName: "Tag", sortCriteria: [SortCriterion("name")]))
            #expect(tags.map { named($0.relatedObjects(forKey: "employees")) } == [["Ada", "Bob"], ["Ada", "Bob", "Cy"]])
        }
    }

    @Test(arguments: StoreKind.allCases) func deleteRulesCascadeNullifyAndDeny(kind: StoreKind) throws {
        let graph = try Graph(kind)
        let context = graph.context()
        try context.performAndWait {
            let acme = try context.insertNewObject(forEntityName: "Company")
            let sales = try context.insertNewObject(forEntityName: "Department")
            sales.setRelatedObject(acme, forKey: "company")
            let ada = try context.insertNewObject(forEntityName: "Employee")
            ada["name"] = "Ada"
            ada.setRelatedObject(acme, forKey: "company")
            ada.setRelatedObject(sales, forKey: "department")
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.addRelatedObject(ada, forKey: "employees")
            try context.save()

            // Deny: a department with staff cannot be deleted; the save fails and keeps every change.
            context.delete(sales)
            #expect {
                try context.save()
            } throws: { error in
                guard case ObjectGraphError.validation(let failures) = error else { return false }
                return failures.map(\.key) == ["staff"] && failures.first?.objectID == sales.objectID
            }
            #expect(context.deletedObjects.contains(sales))
            context.rollback()

            // Cascade, transitively: the company takes its employees and departments with it; nullify clears
            // the tag's side.
            context.delete(acme)
            #expect(ada.isDeleted && sales.isDeleted)
            #expect(tag.relatedObjects(forKey: "employees").isEmpty)
            try context.save()
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Employee")) == 0)
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Department")) == 0)
        }
        let reader = graph.context()
        try reader.performAndWait {
            let tags = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Tag"))
            #expect(tags.first?.relatedObjects(forKey: "employees").isEmpty == true)
        }
    }

    @Test func countRulesAreValidatedAtSave() throws {
        let graph = try Graph(.inMemory)
        let context = graph.context()
        try context.performAndWait {
            let sales = try context.insertNewObject(forEntityName: "Department")
            for _ in 0..<4 {
                try context.insertNewObject(forEntityName: "Employee").setRelatedObject(sales, forKey: "department")
            }
            #expect {
                try context.save()
            } throws: { error in
                guard case ObjectGraphError.validation(let failures) = error else { return false }
                return failures.contains { $0.key == "staff" && $0.reason.contains("maximum 3") }
            }
        }
    }

    @Test func sqliteLayoutHasForeignKeysAndJoinTables() throws {
        let graph = try Graph(.sqlite)
        let connection = try SQLiteConnection(path: graph.directory.file("g.sqlite").path, mode: .readOnly)
        #expect(try connection.columnNames(ofTable: "ZEMPLOYEE") == ["Z_PK", "Z_ENT", "Z_OPT", "ZCOMPANY", "ZDEPARTMENT", "ZMENTOR", "ZNAME"])
        // Employee is entity 3, Tag 4: Employee.tags owns Z_3TAGS (Z_3EMPLOYEES, Z_4TAGS).
        #expect(try connection.columnNames(ofTable: "Z_3TAGS") == ["Z_3EMPLOYEES", "Z_4TAGS"])
        #expect(try connection.tableExists("ZEMPLOYEE") && !(try connection.tableExists("Z_4EMPLOYEES")))
    }
}

/// Faults, fetch options and prefetching, counted in store reads.
@Suite struct FaultingTests {
    private static func seeded() throws -> (Graph, ManagedObjectID) {
        let graph = try Graph(.sqlite)
        let writer = graph.context()
        let acmeID = try writer.performAndWait {
            let acme = try writer.insertNewObject(forEntityName: "Company")
            acme["name"] = "Acme"
            for index in 0..<10 {
                let employee = try writer.insertNewObject(forEntityName: "Employee")
                employee["name"] = "E\(index)"
                employee.setRelatedObject(acme, forKey: "company")
            }
            try writer.save()
            return acme.objectID
        }
        // The counts below are of store reads: start without the rows the save left in the row cache.
        graph.coordinator.rowCache.withLock { $0.removeAll() }
        return (graph, acmeID)
    }

    private static func reads(_ graph: Graph) -> Int {
        (graph.coordinator.persistentStores.first?.backend as? SQLiteStore)?.readCount.load(ordering: .relaxed) ?? -1
    }

    @Test func fetchedObjectsAreFaultsThatFireWithoutAQuery() throws {
        let (graph, _) = try Self.seeded()
        let context = graph.context()
        try context.performAndWait {
            let employees = try context.fetch(FetchRequest<ManagedObject>(entityName: "Employee"))
            #expect(employees.allSatisfy { $0.isFault })
            let before = Self.reads(graph)
            #expect(employees.compactMap { $0["name"] as String? }.count == 10)
            #expect(Self.reads(graph) == before, "the fetch's values were kept")
            #expect(!employees[0].isFault)

            var bare = FetchRequest<ManagedObject>(entityName: "Company")
            bare.includesPropertyValues = false
            let other = graph.context()
            try other.performAndWait {
                let company = try #require(try other.fetch(bare).first)
                let start = Self.reads(graph)
                #expect(company.isFault)
                #expect(company["name"] == "Acme")
                #expect(Self.reads(graph) == start + 1, "a bare fault fires with one query")
            }
            let third = graph.context()
            try third.performAndWait {
                let company = try #require(try third.fetch(bare).first)
                let start = Self.reads(graph)
                #expect(company["name"] == "Acme")
                #expect(Self.reads(graph) == start, "the row cache had the row the other fault read")
            }
        }
    }

    @Test func prefetchingLoadsToManyRelationshipsInOneQueryPerKeyPath() throws {
        let (graph, _) = try Self.seeded()
        let context = graph.context()
        try context.performAndWait {
            var request = FetchRequest<ManagedObject>(entityName: "Company")
            request.relationshipKeyPathsForPrefetching = ["employees"]
            let before = Self.reads(graph)
            let companies = try context.fetch(request)
            #expect(Self.reads(graph) == before + 3, "the fetch, the relationship, and the destinations' rows")
            let names = companies.flatMap { $0.relatedObjects(forKey: "employees") }.compactMap { $0["name"] as String? }
            #expect(names.count == 10)
            #expect(Self.reads(graph) == before + 3, "nothing more to fire")
        }
    }

    @Test func prefetchingLoadsToOneDestinationsInOneQuery() throws {
        let (graph, acmeID) = try Self.seeded()
        let context = graph.context()
        try context.performAndWait {
            var request = FetchRequest<ManagedObject>(entityName: "Employee")
            request.relationshipKeyPathsForPrefetching = ["company"]
            let employees = try context.fetch(request)
            let before = Self.reads(graph)
            #expect(employees.allSatisfy { $0.relatedObject(forKey: "company")?["name"] == "Acme" })
            #expect(Self.reads(graph) == before, "prefetched: no fault fired")
            #expect(try context.fetchObjectIDs(FetchRequest<ManagedObject>(entityName: "Company")) == [acmeID])
            let acme = try context.existingObject(with: acmeID)
            let start = Self.reads(graph)
            #expect(acme.relatedObjects(forKey: "employees").count == 10)
            #expect(Self.reads(graph) == start + 1, "a to-many fault fires with one query")
        }
    }
}

@Suite struct OrderedAndMergedRelationshipTests {
    private static func playlists(_ kind: StoreKind) throws -> (PersistentStoreCoordinator, TemporaryDirectory) {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Playlist", attributes: [AttributeDescription(name: "name", type: .string)],
                relationships: [RelationshipDescription(name: "songs", destination: "Song", inverse: "playlist",
                    isToMany: true, isOrdered: true)]),
            EntityDescription(name: "Song", attributes: [AttributeDescription(name: "title", type: .string)],
                relationships: [RelationshipDescription(name: "playlist", destination: "Playlist", inverse: "songs")]),
        ])
        let directory = TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: kind.storeType, at: directory.file("p.sqlite"))
        return (coordinator, directory)
    }

    @Test(arguments: StoreKind.allCases) func orderedRelationshipsKeepTheirOrderInTheStore(kind: StoreKind) throws {
        let (coordinator, directory) = try Self.playlists(kind)
        _ = directory
        let writer = ManagedObjectContext(concurrencyType: .privateQueue)
        writer.persistentStoreCoordinator = coordinator
        let id = try writer.performAndWait {
            let list = try writer.insertNewObject(forEntityName: "Playlist")
            var songs: [ManagedObject] = []
            for title in ["c", "a", "d", "b"] {
                let song = try writer.insertNewObject(forEntityName: "Song")
                song["title"] = title
                songs.append(song)
            }
            list.setRelatedObjects(songs, forKey: "songs")
            try writer.save()
            // Reorder and save again.
            list.setRelatedObjects([songs[1], songs[3], songs[0], songs[2]], forKey: "songs")
            try writer.save()
            return list.objectID
        }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue)
        reader.persistentStoreCoordinator = coordinator
        try reader.performAndWait {
            let list = try reader.existingObject(with: id)
            #expect(list.relatedObjects(forKey: "songs").compactMap { $0["title"] as String? } == ["a", "b", "c", "d"])
        }
    }

    @Test(arguments: StoreKind.allCases) func orderedManyToManyKeepsItsOrder(kind: StoreKind) throws {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Album", attributes: [], relationships: [
                RelationshipDescription(name: "photos", destination: "Photo", inverse: "albums", isToMany: true,
                    isOrdered: true)]),
            EntityDescription(name: "Photo", attributes: [AttributeDescription(name: "title", type: .string)],
                relationships: [RelationshipDescription(name: "albums", destination: "Album", inverse: "photos",
                    isToMany: true)]),
        ])
        let directory = TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: kind.storeType, at: directory.file("a.sqlite"))
        let writer = ManagedObjectContext(concurrencyType: .privateQueue)
        writer.persistentStoreCoordinator = coordinator
        let id = try writer.performAndWait {
            let album = try writer.insertNewObject(forEntityName: "Album")
            let photos = try ["z", "x", "y"].map { title in
                let photo = try writer.insertNewObject(forEntityName: "Photo")
                photo["title"] = title
                return photo
            }
            album.setRelatedObjects(photos, forKey: "photos")
            try writer.save()
            album.setRelatedObjects([photos[1], photos[2], photos[0]], forKey: "photos")
            try writer.save()
            return album.objectID
        }
        if kind == .sqlite {
            let connection = try SQLiteConnection(path: directory.file("a.sqlite").path, mode: .readOnly)
            #expect(try connection.columnNames(ofTable: "Z_1PHOTOS") == ["Z_1ALBUMS", "Z_2PHOTOS", "Z_FOK_2PHOTOS"])
        }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue)
        reader.persistentStoreCoordinator = coordinator
        try reader.performAndWait {
            let album = try reader.existingObject(with: id)
            #expect(album.relatedObjects(forKey: "photos").compactMap { $0["title"] as String? } == ["x", "y", "z"])
        }
    }

    @Test func mergedRelationshipChangesReachLoadedRelationships() throws {
        let graph = try Graph(.sqlite)
        let background = graph.context()
        let view = graph.context()
        let (acmeID, globexID, adaID) = try background.performAndWait {
            let acme = try background.insertNewObject(forEntityName: "Company")
            let globex = try background.insertNewObject(forEntityName: "Company")
            let ada = try background.insertNewObject(forEntityName: "Employee")
            ada.setRelatedObject(acme, forKey: "company")
            try background.save()
            return (acme.objectID, globex.objectID, ada.objectID)
        }
        let (acme, globex) = try view.performAndWait {
            let acme = try view.existingObject(with: acmeID)
            let globex = try view.existingObject(with: globexID)
            #expect(acme.relatedObjects(forKey: "employees").map(\.objectID) == [adaID])
            #expect(globex.relatedObjects(forKey: "employees").isEmpty)
            return (Unchecked(acme), Unchecked(globex))
        }
        let save = try background.performAndWait {
            let ada = try background.existingObject(with: adaID)
            let globex = try background.existingObject(with: globexID)
            ada.setRelatedObject(globex, forKey: "company")
            let captured = Unchecked<ContextDidSave?>(nil)
            let token = background.addDidSaveObserver { captured.value = $0 }
            try background.save()
            token.cancel()
            return captured.value
        }
        view.performAndWait {
            if let save { view.mergeChanges(fromContextDidSave: save) }
            #expect(acme.value.relatedObjects(forKey: "employees").isEmpty)
            #expect(globex.value.relatedObjects(forKey: "employees").map(\.objectID) == [adaID])
            let ada = view.registeredObject(for: adaID)
            #expect(ada?.relatedObject(forKey: "company") === globex.value)
        }
    }
}

@Suite struct UnloadedInverseTests {
    @Test(arguments: StoreKind.allCases) func settingTheToOneSideLeavesAnUnloadedToManyAlone(kind: StoreKind) throws {
        let graph = try Graph(kind)
        let writer = graph.context()
        let (acmeID, adaID) = try writer.performAndWait {
            let acme = try writer.insertNewObject(forEntityName: "Company")
            let ada = try writer.insertNewObject(forEntityName: "Employee")
            ada.setRelatedObject(acme, forKey: "company")
            let tag = try writer.insertNewObject(forEntityName: "Tag")
            tag["name"] = "swift"
            try writer.save()
            return (acme.objectID, ada.objectID)
        }
        let context = graph.context()
        try context.performAndWait {
            let acme = try context.existingObject(with: acmeID)
            let bob = try context.insertNewObject(forEntityName: "Employee")
            bob.setRelatedObject(acme, forKey: "company")
            #expect(acme.hasFaultForRelationshipNamed("employees"), "adding from the to-one side reads nothing")
            #expect(acme.relatedObjects(forKey: "employees").count == 2, "loading includes the unsaved change")
            // Many-to-many changed from the side the store does not own, the other side never loaded.
            let tag = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag")).first)
            let ada = try context.existingObject(with: adaID)
            tag.addRelatedObject(ada, forKey: "employees")
            #expect(ada.hasFaultForRelationshipNamed("tags"))
            #expect(ada.relatedObjects(forKey: "tags").first === tag)
            try context.save()
        }
        let reader = graph.context()
        try reader.performAndWait {
            let acme = try reader.existingObject(with: acmeID)
            let ada = try reader.existingObject(with: adaID)
            #expect(acme.relatedObjects(forKey: "employees").count == 2)
            #expect(ada.relatedObjects(forKey: "tags").count == 1)
        }
    }

    /// Saving an object whose to-many relationship has no count rules does not read its members (a tag's
    /// thousands of people, at every batch of an import that tags someone); one with rules still does.
    @Test(arguments: StoreKind.allCases) func savingDoesNotLoadToManyRelationshipsWithoutCountRules(kind: StoreKind) throws {
        let graph = try Graph(kind)
        let writer = graph.context()
        let (tagID, departmentID) = try writer.performAndWait {
            let tag = try writer.insertNewObject(forEntityName: "Tag")
            let department = try writer.insertNewObject(forEntityName: "Department")
            for number in 0..<3 {
                let employee = try writer.insertNewObject(forEntityName: "Employee")
                employee["name"] = "E\(number)"
                employee.addRelatedObject(tag, forKey: "tags")
                if number < 2 { employee.setRelatedObject(department, forKey: "department") }
            }
            try writer.save()
            return (tag.objectID, department.objectID)
        }
        let context = graph.context()
        try context.performAndWait {
            let tag = try context.existingObject(with: tagID)
            tag["name"] = "renamed"
            let department = try context.existingObject(with: departmentID)
            department["name"] = "renamed"
            try context.save()
            #expect(tag.hasFaultForRelationshipNamed("employees"), "no count rules: nothing to check, nothing read")
            #expect(!department.hasFaultForRelationshipNamed("staff"), "at most three staff: checked")
        }
    }
}
