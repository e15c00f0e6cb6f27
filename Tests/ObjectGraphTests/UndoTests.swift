import Foundation
import Testing
@testable import ObjectGraph

/// Company 1—n Employee (employees cascade, company nullify), Employee n—m Tag (nullify both ways), and an
/// ordered to-many without inverse (Company.ranking).
private func undoModel() throws -> ManagedObjectModel {
    try ManagedObjectModel(entities: [
        EntityDescription(name: "Company", attributes: [AttributeDescription(name: "name", type: .string)],
            relationships: [
                RelationshipDescription(name: "employees", destination: "Employee", inverse: "company", isToMany: true,
                    deleteRule: .cascade),
                RelationshipDescription(name: "ranking", destination: "Employee", isToMany: true, isOrdered: true),
            ]),
        EntityDescription(name: "Employee", attributes: [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "age", type: .integer64, defaultValue: 0),
        ], relationships: [
            RelationshipDescription(name: "company", destination: "Company", inverse: "employees"),
            RelationshipDescription(name: "tags", destination: "Tag", inverse: "employees", isToMany: true),
        ]),
        EntityDescription(name: "Tag", attributes: [AttributeDescription(name: "name", type: .string)],
            relationships: [
                RelationshipDescription(name: "employees", destination: "Employee", inverse: "tags", isToMany: true),
            ]),
    ])
}

/// A store with the undo model, and contexts on it (with an undo manager unless asked otherwise).
private struct UndoStack {
    let directory = TemporaryDirectory()
    let coordinator: PersistentStoreCoordinator

    init(_ kind: StoreKind) throws {
        coordinator = PersistentStoreCoordinator(managedObjectModel: try undoModel())
        try coordinator.addPersistentStore(
            ofType: kind.storeType, at: directory.file("u.sqlite"))
    }

    func context(undoable: Bool = true) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        if undoable { context.undoManager = ContextUndoManager() }
        return context
    }

    /// Saves Acme (Ada, Bob) and Globex (no one); Ada is tagged "swift". Returns the IDs by name.
    func seed() throws -> [String: ManagedObjectID] {
        let context = context(undoable: false)
        return try context.performAndWait {
            let acme = try context.insertNewObject(forEntityName: "Company")
            acme["name"] = "Acme"
            let globex = try context.insertNewObject(forEntityName: "Company")
            globex["name"] = "Globex"
            let swift = try context.insertNewObject(forEntityName: "Tag")
            swift["name"] = "swift"
            var objects = ["Acme": acme, "Globex": globex, "swift": swift]
            for name in ["Ada", "Bob"] {
                let employee = try context.insertNewObject(forEntityName: "Employee")
                employee["name"] = name
                employee["age"] = Int64(name == "Ada" ? 36 : 41)
                employee.setRelatedObject(acme, forKey: "company")
                objects[name] = employee
            }
            objects["Ada"]?.addRelatedObject(swift, forKey: "tags")
            try context.save()
            return objects.mapValues(\.objectID)
        }
    }

    /// Names of the saved objects of `entity`, as a fresh context reads them from the store.
    func storedNames(_ entity: String) throws -> [String] {
        let context = context(undoable: false)
        return try context.performAndWait {
            names(try context.fetch(FetchRequest<ManagedObject>(entityName: entity)))
        }
    }
}

private func names(_ objects: [ManagedObject]) -> [String] { objects.compactMap { $0["name"] as String? }.sorted() }

private extension ManagedObjectContext {
    func object(_ ids: [String: ManagedObjectID], _ name: String) throws -> ManagedObject {
        try existingObject(with: try #require(ids[name]))
    }
}

@Suite struct UndoTests {
    @Test func noUndoManagerByDefault() throws {
        let stack = try UndoStack(.inMemory)
        let context = stack.context(undoable: false)
        #expect(context.undoManager == nil)
        try context.performAndWait {
            let company = try context.insertNewObject(forEntityName: "Company")
            company["name"] = "Acme"
            context.undo()  // nothing to undo with: harmless
            #expect(context.insertedObjects.count == 1)
        }
    }

    @Test(arguments: StoreKind.allCases) func attributeEditUndoesAndRedoes(kind: StoreKind) throws {
        let stack = try UndoStack(kind)
        let ids = try stack.seed()
        let context = stack.context()
        let manager = try #require(context.undoManager)
        let ada = try context.performAndWait { try context.object(ids, "Ada") }
        #expect(!manager.canUndo)
        context.performAndWait {
            ada["name"] = "Ada L."
            ada["age"] = Int64(37)
            manager.setActionName("Rename")
        }
        #expect(manager.canUndo && !manager.canRedo)
        #expect(manager.undoActionName == "Rename")
        context.performAndWait {
            #expect(context.updatedObjects == [ada])
            context.undo()
            #expect(ada["name"] == "Ada" && ada["age"] == Int64(36))
            // Back to its saved values: no longer updated.
            #expect(!ada.isUpdated && !context.hasChanges && ada.changedValues().isEmpty)
        }
        #expect(!manager.canUndo && manager.canRedo)
        #expect(manager.redoActionName == "Rename")
        context.performAndWait {
            context.redo()
            #expect(ada["name"] == "Ada L." && ada["age"] == Int64(37))
            #expect(context.updatedObjects == [ada])
            #expect(Set(ada.changedValues().keys) == ["name", "age"])
        }
        #expect(manager.canUndo && !manager.canRedo)
        // A new change after an undo empties the redo stack.
        context.performAndWait {
            context.undo()
            ada["age"] = Int64(50)
        }
        #expect(!manager.canRedo)
    }

    @Test(arguments: StoreKind.allCases) func insertUndoesAndRedoes(kind: StoreKind) throws {
        let stack = try UndoStack(kind)
        let ids = try stack.seed()
        let context = stack.context()
        let (acme, cy) = try context.performAndWait {
            let acme = try context.object(ids, "Acme")
            _ = acme.relatedObjects(forKey: "employees")
            let cy = try context.insertNewObject(forEntityName: "Employee")
            cy["name"] = "Cy"
            cy.setRelatedObject(acme, forKey: "company")
            return (acme, cy)
        }
        try context.performAndWait {
            context.undo()
            #expect(context.insertedObjects.isEmpty && !context.hasChanges)
            #expect(names(acme.relatedObjects(forKey: "employees")) == ["Ada", "Bob"])
            #expect(!acme.isUpdated)
            #expect(names(try context.fetch(FetchRequest<ManagedObject>(entityName: "Employee"))) == ["Ada", "Bob"])
            context.redo()
            #expect(context.insertedObjects == [cy])
            #expect(cy.relatedObject(forKey: "company") === acme && cy["name"] == "Cy")
            #expect(names(acme.relatedObjects(forKey: "employees")) == ["Ada", "Bob", "Cy"])
            try context.save()
        }
        #expect(try stack.storedNames("Employee") == ["Ada", "Bob", "Cy"])
        // Undoing the insert after it was saved deletes it (a new unsaved change).
        try context.performAndWait {
            context.undo()
            #expect(cy.isDeleted && context.deletedObjects == [cy])
            #expect(names(acme.relatedObjects(forKey: "employees")) == ["Ada", "Bob"])
            try context.save()
        }
        #expect(try stack.storedNames("Employee") == ["Ada", "Bob"])
    }

    @Test(arguments: StoreKind.allCases) func deleteUndoRestoresCascadeAndNullify(kind: StoreKind) throws {
        let stack = try UndoStack(kind)
        let ids = try stack.seed()
        let context = stack.context()
        try context.performAndWait {
            let acme = try context.object(ids, "Acme")
            let ada = try context.object(ids, "Ada")
            let bob = try context.object(ids, "Bob")
            let swift = try context.object(ids, "swift")
            #expect(names(swift.relatedObjects(forKey: "employees")) == ["Ada"])
            context.delete(acme)  // cascades to Ada and Bob; Ada leaves the tag (nullify)
            #expect(context.deletedObjects == [acme, ada, bob])
            #expect(swift.relatedObjects(forKey: "employees").isEmpty)
            context.undo()
            #expect(context.deletedObjects.isEmpty && !context.hasChanges)
            #expect(!acme.isDeleted && !ada.isDeleted && !bob.isDeleted)
            #expect(names(acme.relatedObjects(forKey: "employees")) == ["Ada", "Bob"])
            #expect(ada.relatedObject(forKey: "company") === acme && bob.relatedObject(forKey: "company") === acme)
            #expect(names(swift.relatedObjects(forKey: "employees")) == ["Ada"])
            #expect(names(ada.relatedObjects(forKey: "tags")) == ["swift"])
            #expect(!swift.isUpdated && !ada.isUpdated)
            context.redo()
            #expect(context.deletedObjects == [acme, ada, bob])
            #expect(swift.relatedObjects(forKey: "employees").isEmpty)
            try context.save()
        }
        #expect(try stack.storedNames("Company") == ["Globex"])
        #expect(try stack.storedNames("Employee") == [])
        let reader = stack.context(undoable: false)
        try reader.performAndWait {
            let swift = try reader.object(ids, "swift")
            #expect(swift.relatedObjects(forKey: "employees").isEmpty)
        }
    }

    /// The nullified side was a fault when the object was deleted, and loaded (without it) afterwards.
    @Test(arguments: StoreKind.allCases) func deleteUndoFixesInversesLoadedAfterTheChange(kind: StoreKind) throws {
        let stack = try UndoStack(kind)
        let ids = try stack.seed()
        let context = stack.context()
        try context.performAndWait {
            let bob = try context.object(ids, "Bob")
            let acme = try context.object(ids, "Acme")
            #expect(acme.hasFaultForRelationshipNamed("employees"))
            context.delete(bob)
            #expect(names(acme.relatedObjects(forKey: "employees")) == ["Ada"])
            context.undo()
            #expect(names(acme.relatedObjects(forKey: "employees")) == ["Ada", "Bob"])
            #expect(!context.hasChanges)
        }
    }

    @Test(arguments: StoreKind.allCases) func relationshipChangesUndoOnBothSides(kind: StoreKind) throws {
        let stack = try UndoStack(kind)
        let ids = try stack.seed()
        let context = stack.context()
        try context.performAndWait {
            let acme = try context.object(ids, "Acme")
            let globex = try context.object(ids, "Globex")
            let ada = try context.object(ids, "Ada")
            let swift = try context.object(ids, "swift")
            _ = (acme.relatedObjects(forKey: "employees"), globex.relatedObjects(forKey: "employees"))
            _ = swift.relatedObjects(forKey: "employees")
            // Moving to another owner changes three objects.
            ada.setRelatedObject(globex, forKey: "company")
            ada.removeRelatedObject(swift, forKey: "tags")
            #expect(context.updatedObjects == [acme, globex, ada, swift])
            context.undo()
            #expect(ada.relatedObject(forKey: "company") === acme)
            #expect(names(acme.relatedObjects(forKey: "employees")) == ["Ada", "Bob"])
            #expect(globex.relatedObjects(forKey: "employees").isEmpty)
            #expect(names(ada.relatedObjects(forKey: "tags")) == ["swift"])
            #expect(names(swift.relatedObjects(forKey: "employees")) == ["Ada"])
            #expect(!context.hasChanges)
            context.redo()
            #expect(ada.relatedObject(forKey: "company") === globex)
            #expect(names(acme.relatedObjects(forKey: "employees")) == ["Bob"])
            #expect(names(globex.relatedObjects(forKey: "employees")) == ["Ada"])
            #expect(swift.relatedObjects(forKey: "employees").isEmpty && ada.relatedObjects(forKey: "tags").isEmpty)
            try context.save()
        }
        let reader = stack.context(undoable: false)
        try reader.performAndWait {
            let globex = try reader.object(ids, "Globex")
            let swift = try reader.object(ids, "swift")
            #expect(names(globex.relatedObjects(forKey: "employees")) == ["Ada"])
            #expect(swift.relatedObjects(forKey: "employees").isEmpty)
        }
    }

    /// The new owner's to-many was not loaded when the change was made (so it was left a fault), then
    /// loaded with the change reconciled in: undo takes the object out of it again.
    @Test(arguments: StoreKind.allCases) func relationshipUndoFixesAToManyLoadedLater(kind: StoreKind) throws {
        let stack = try UndoStack(kind)
        let ids = try stack.seed()
        let context = stack.context()
        try context.performAndWait {
            let globex = try context.object(ids, "Globex")
            let ada = try context.object(ids, "Ada")
            ada.setRelatedObject(globex, forKey: "company")
            #expect(names(globex.relatedObjects(forKey: "employees")) == ["Ada"])
            context.undo()
            #expect(globex.relatedObjects(forKey: "employees").isEmpty)
            #expect(names(try context.object(ids, "Acme").relatedObjects(forKey: "employees")) == ["Ada", "Bob"])
            #expect(!context.hasChanges)
        }
    }

    @Test(arguments: StoreKind.allCases) func orderedRelationshipOrderIsUndone(kind: StoreKind) throws {
        let stack = try UndoStack(kind)
        let ids = try stack.seed()
        let context = stack.context()
        try context.performAndWait {
            let acme = try context.object(ids, "Acme")
            let ada = try context.object(ids, "Ada")
            let bob = try context.object(ids, "Bob")
            acme.setRelatedObjects([ada, bob], forKey: "ranking")
            try context.save()
        }
        try context.performAndWait {
            let acme = try context.object(ids, "Acme")
            let ada = try context.object(ids, "Ada")
            let bob = try context.object(ids, "Bob")
            acme.setRelatedObjects([bob, ada], forKey: "ranking")
            #expect(acme.isUpdated)
            context.undo()
            #expect(acme.relatedObjects(forKey: "ranking") == [ada, bob])
            #expect(!context.hasChanges)
            context.redo()
            #expect(acme.relatedObjects(forKey: "ranking") == [bob, ada])
            #expect(acme.isUpdated)
            context.undo()
            context.undo()  // the save's step: the ranking was empty before it
            #expect(acme.relatedObjects(forKey: "ranking").isEmpty && acme.isUpdated)
            try context.save()
        }
        let reader = stack.context(undoable: false)
        try reader.performAndWait {
            let acme = try reader.object(ids, "Acme")
            #expect(acme.relatedObjects(forKey: "ranking").isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func eachEventIsOneStep(kind: StoreKind) throws {
        let stack = try UndoStack(kind)
        let ids = try stack.seed()
        let context = stack.context()
        let manager = try #require(context.undoManager)
        let adaID = try #require(ids["Ada"])
        // Two perform blocks: two steps.
        context.perform { (try? context.existingObject(with: adaID))?["name"] = "One" }
        context.perform { (try? context.existingObject(with: adaID))?["name"] = "Two" }
        try context.performAndWait {
            let ada = try context.existingObject(with: adaID)
            #expect(ada["name"] == "Two")
            context.undo()
            #expect(ada["name"] == "One")
            context.undo()
            #expect(ada["name"] == "Ada")
        }
        #expect(!manager.canUndo)
        // Everything in one performAndWait (nested ones included): one step.
        try context.performAndWait {
            let ada = try context.existingObject(with: adaID)
            ada["name"] = "Three"
            context.performAndWait { ada["age"] = Int64(1) }
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag["name"] = "new"
            ada.addRelatedObject(tag, forKey: "tags")
        }
        try context.performAndWait {
            let ada = try context.existingObject(with: adaID)
            context.undo()
            #expect(ada["name"] == "Ada" && ada["age"] == Int64(36))
            #expect(names(ada.relatedObjects(forKey: "tags")) == ["swift"])
            #expect(!context.hasChanges)
        }
        #expect(!manager.canUndo)
    }

    /// A main-queue context used directly (no perform): each turn of the main queue is one step.
    @Test func eachMainQueueTurnIsOneStep() async throws {
        let stack = try UndoStack(.inMemory)
        let ids = try stack.seed()
        let main = ManagedObjectContext(concurrencyType: .mainQueue)
        main.persistentStoreCoordinator = stack.coordinator
        main.undoManager = ContextUndoManager()
        let adaID = try #require(ids["Ada"])
        try await onMainQueue { try main.existingObject(with: adaID)["name"] = "One" }
        try await onMainQueue {
            let ada = try main.existingObject(with: adaID)
            ada["name"] = "Two"
            ada["age"] = Int64(2)
        }
        let (afterOne, afterTwo) = try await onMainQueue {
            let ada = try main.existingObject(with: adaID)
            main.undo()
            let first = (ada["name"] as String?, ada["age"] as Int64?)
            main.undo()
            return (first, (ada["name"] as String?, ada["age"] as Int64?))
        }
        #expect(afterOne.0 == "One" && afterOne.1 == 36)
        #expect(afterTwo.0 == "Ada" && afterTwo.1 == 36)
        #expect(try await onMainQueue { main.undoManager?.canUndo } == false)
    }

    @Test func explicitGroupsNestAndSpanEvents() throws {
        let stack = try UndoStack(.inMemory)
        let ids = try stack.seed()
        let context = stack.context()
        let manager = try #require(context.undoManager)
        let ada = try context.performAndWait { try context.object(ids, "Ada") }
        // With groupsByEvent, a group begun in one event and ended in a later one is one step.
        context.performAndWait {
            manager.beginUndoGrouping()
            ada["name"] = "A"
        }
        #expect(manager.groupingLevel == 2)
        context.performAndWait {
            ada["age"] = Int64(1)
            manager.endUndoGrouping()
        }
        #expect(manager.groupingLevel == 0)
        context.performAndWait {
            context.undo()
            #expect(ada["name"] == "Ada" && ada["age"] == Int64(36))
            #expect(!manager.canUndo)
        }
        // Without groupsByEvent only explicit groups record; nested groups make one step.
        manager.groupsByEvent = false
        context.performAndWait { ada["name"] = "not recorded" }
        #expect(!manager.canUndo)
        context.performAndWait {
            manager.beginUndoGrouping()
            ada["name"] = "B"
            manager.beginUndoGrouping()
            ada["age"] = Int64(2)
            manager.endUndoGrouping()
        }
        context.performAndWait {
            ada["name"] = "C"
            manager.endUndoGrouping()
            manager.beginUndoGrouping()
            ada["age"] = Int64(3)
            manager.endUndoGrouping()
        }
        context.performAndWait {
            context.undo()
            #expect(ada["name"] == "C" && ada["age"] == Int64(2))
            context.undo()
            #expect(ada["name"] == "not recorded" && ada["age"] == Int64(36))
            #expect(!manager.canUndo)
            context.redo()
            context.redo()
            #expect(ada["name"] == "C" && ada["age"] == Int64(3))
        }
        // An unbalanced end is ignored.
        manager.endUndoGrouping()
        #expect(manager.groupingLevel == 0)
    }

    @Test func levelsOfUndoBoundsTheStack() throws {
        let stack = try UndoStack(.inMemory)
        let ids = try stack.seed()
        let context = stack.context()
        let manager = try #require(context.undoManager)
        manager.levelsOfUndo = 2
        let ada = try context.performAndWait { try context.object(ids, "Ada") }
        for age in 1...3 { context.performAndWait { ada["age"] = Int64(age) } }
        context.performAndWait {
            context.undo()
            context.undo()
            #expect(ada["age"] == Int64(1))
            #expect(!manager.canUndo)
            context.undo()  // nothing left
            #expect(ada["age"] == Int64(1))
        }
        manager.levelsOfUndo = 1
        #expect(manager.canRedo)
        context.performAndWait {
            context.redo()
            #expect(ada["age"] == Int64(2))
            #expect(!manager.canRedo)
        }
    }

    @Test(arguments: StoreKind.allCases) func undoAfterSaveRevertsTheSavedValues(kind: StoreKind) throws {
        let stack = try UndoStack(kind)
        let ids = try stack.seed()
        let context = stack.context()
        try context.performAndWait {
            let ada = try context.object(ids, "Ada")
            ada["name"] = "Ada L."
            try context.save()
        }
        #expect(try stack.storedNames("Employee") == ["Ada L.", "Bob"])
        try context.performAndWait {
            let ada = try context.object(ids, "Ada")
            context.undo()
            #expect(ada["name"] == "Ada")
            // A new unsaved change that reverts the saved one.
            #expect(context.updatedObjects == [ada] && Set(ada.changedValues().keys) == ["name"])
            try context.save()
        }
        #expect(try stack.storedNames("Employee") == ["Ada", "Bob"])
        try context.performAndWait {
            context.redo()
            try context.save()
        }
        #expect(try stack.storedNames("Employee") == ["Ada L.", "Bob"])
    }

    @Test(arguments: StoreKind.allCases) func undoingASavedDeletionInsertsTheObjectAgain(kind: StoreKind) throws {
        let stack = try UndoStack(kind)
        let ids = try stack.seed()
        let context = stack.context()
        try context.performAndWait {
            let bob = try context.object(ids, "Bob")
            _ = try context.object(ids, "Acme").relatedObjects(forKey: "employees")
            context.delete(bob)
            try context.save()
        }
        #expect(try stack.storedNames("Employee") == ["Ada"])
        let newID = try context.performAndWait {
            context.undo()
            let bob = try #require(context.insertedObjects.first)
            #expect(bob["name"] == "Bob" && bob.isInserted)
            #expect(names(try context.object(ids, "Acme").relatedObjects(forKey: "employees")) == ["Ada", "Bob"])
            try context.save()
            return bob.objectID
        }
        #expect(try stack.storedNames("Employee") == ["Ada", "Bob"])
        let reader = stack.context(undoable: false)
        try reader.performAndWait {
            let bob = try reader.existingObject(with: newID)
            #expect(bob.relatedObject(forKey: "company")?["name"] == "Acme")
        }
    }

    @Test func undoOfChangesToAnUnsavedObjectKeepsItInserted() throws {
        let stack = try UndoStack(.inMemory)
        let context = stack.context()
        let tag = try context.performAndWait {
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag["name"] = "draft"
            return tag
        }
        context.performAndWait { tag["name"] = "final" }
        context.performAndWait {
            context.undo()
            #expect(tag["name"] == "draft" && tag.isInserted && context.insertedObjects == [tag])
            context.undo()
            #expect(!tag.isInserted && context.insertedObjects.isEmpty && !context.hasChanges)
        }
    }

    @Test(arguments: StoreKind.allCases) func rollbackAndResetClearTheStacks(kind: StoreKind) throws {
        let stack = try UndoStack(kind)
        let ids = try stack.seed()
        let context = stack.context()
        let manager = try #require(context.undoManager)
        try context.performAndWait { try context.object(ids, "Ada")["name"] = "X" }
        #expect(manager.canUndo)
        context.performAndWait { context.rollback() }
        #expect(!manager.canUndo && !manager.canRedo)
        try context.performAndWait { try context.object(ids, "Ada")["name"] = "Y" }
        context.performAndWait { context.undo() }
        #expect(manager.canRedo)
        context.performAndWait { context.reset() }
        #expect(!manager.canUndo && !manager.canRedo)
    }

    @Test func disabledRegistrationRecordsNothing() throws {
        let stack = try UndoStack(.inMemory)
        let ids = try stack.seed()
        let context = stack.context()
        let manager = try #require(context.undoManager)
        try context.performAndWait {
            manager.disableUndoRegistration()
            try context.object(ids, "Ada")["name"] = "quiet"
            manager.enableUndoRegistration()
        }
        #expect(!manager.canUndo && manager.isUndoRegistrationEnabled)
        // Moving the manager to another context clears it.
        try context.performAndWait { try context.object(ids, "Ada")["name"] = "loud" }
        let other = stack.context(undoable: false)
        other.undoManager = manager
        #expect(!manager.canUndo && context.undoManager === manager)
        try context.performAndWait { try context.object(ids, "Bob")["name"] = "ignored here" }
        #expect(!manager.canUndo)
    }

    @Test(arguments: StoreKind.allCases) func mergedChangesAreNotUndoable(kind: StoreKind) throws {
        let stack = try UndoStack(kind)
        let ids = try stack.seed()
        let context = stack.context()
        let manager = try #require(context.undoManager)
        let ada = try context.performAndWait {
            let ada = try context.object(ids, "Ada")
            _ = ada["name"] as String?
            return ada
        }
        context.performAndWait { ada["age"] = Int64(99) }
        let other = stack.context(undoable: false)
        let received = Unchecked<ContextDidSave?>(nil)
        let token = other.addDidSaveObserver { received.value = $0 }
        try other.performAndWait {
            try other.object(ids, "Ada")["name"] = "Merged"
            try other.save()
        }
        _ = token
        let save = try #require(received.value)
        context.performAndWait {
            context.mergeChanges(fromContextDidSave: save)
            #expect(ada["name"] == "Merged" && ada["age"] == Int64(99))
            context.undo()  // undoes the local edit only
            #expect(ada["name"] == "Merged" && ada["age"] == Int64(36))
            #expect(!manager.canUndo)
            #expect(!context.hasChanges)
        }
    }

    @Test(arguments: StoreKind.allCases) func observersAndControllersSeeUndo(kind: StoreKind) throws {
        let stack = try UndoStack(kind)
        let ids = try stack.seed()
        let context = stack.context()
        let recorder = ChangeRecorder()
        var request = FetchRequest<ManagedObject>(entityName: "Employee")
        request.sortCriteria = [SortCriterion("name")]
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context,
            sectionNameKeyPath: nil)
        controller.delegate = recorder
        let changes = Unchecked<[ObjectsDidChange]>([])
        let token = context.addObjectsDidChangeObserver { changes.value.append($0) }
        defer { _ = token }
        try context.performAndWait { try controller.performFetch() }
        let before = context.performAndWait { controller.sectionedIDs }
        try context.performAndWait { context.delete(try context.object(ids, "Bob")) }
        #expect(recorder.batches.last?.changeset.deletedRows == [IndexPath(row: 1, section: 0)])
        changes.value = []
        context.performAndWait { context.undo() }
        #expect(changes.value.count == 1)
        #expect(changes.value.first?.insertedObjects.map(\.objectID) == [try #require(ids["Bob"])])
        #expect(recorder.batches.last?.changeset.insertedRows == [IndexPath(row: 1, section: 0)])
        #expect(context.performAndWait { controller.sectionedIDs } == before)
        #expect(recorder.protocolErrors.isEmpty)
        // An undone edit is reported as an update, and the controller moves the row back.
        try context.performAndWait { try context.object(ids, "Ada")["name"] = "Zed" }
        changes.value = []
        context.performAndWait { context.undo() }
        #expect(changes.value.first?.updatedObjects.map(\.objectID) == [try #require(ids["Ada"])])
        #expect(context.performAndWait { controller.sectionedIDs } == before)
        #expect(recorder.protocolErrors.isEmpty)
    }
}
