import Foundation
import Synchronization
import Testing
@testable import ObjectGraph

@Suite struct ParentChildContextTests {
    @Test(arguments: StoreKind.allCases) func childSavePushesIntoParentAndTouchesNoDisk(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let parent = stack.context(name: "parent")
        let worker = child(of: parent, name: "worker")
        #expect(worker.persistentStoreCoordinator === stack.coordinator)
        let id = try worker.performAndWait {
            let person = try insertPerson("Lovelace", into: worker)
            try worker.save()
            #expect(!worker.hasChanges)
            #expect(!person.isInserted)
            return person.objectID
        }
        #expect(id.isTemporaryID)
        #expect(try storedLastNames(stack).isEmpty)
        try parent.performAndWait {
            #expect(parent.insertedObjects.count == 1)
            let person = try #require(parent.registeredObject(for: id))
            #expect(person.isInserted)
            #expect(person["lastName"] as String? == "Lovelace")
            try parent.save()
        }
        #expect(try storedLastNames(stack) == ["Lovelace"])
    }

    @Test(arguments: StoreKind.allCases) func childFetchesSeeTheParentsUnsavedState(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let parent = stack.context()
        try parent.performAndWait {
            for name in ["Babbage", "Curie", "Darwin"] { _ = try insertPerson(name, city: "London", into: parent) }
            try parent.save()
            let people = try parent.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
            for person in people where person["lastName"] as String? == "Curie" { person["city"] = "Paris" }
            for person in people where person["lastName"] as String? == "Darwin" { parent.delete(person) }
            _ = try insertPerson("Euler", city: "London", into: parent)
        }
        let reader = child(of: parent)
        try reader.performAndWait {
            let request = FetchRequest<ManagedObject>(
                entityName: "Person", predicate: try FetchPredicate(format: "city == %@", "London"),
                sortCriteria: [SortCriterion("lastName")])
            #expect(try reader.fetch(request).compactMap { $0["lastName"] as String? } == ["Babbage", "Euler"])
            #expect(try reader.count(for: request) == 2)
            let all = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Person", sortCriteria: [SortCriterion("lastName")]))
            #expect(all.compactMap { $0["city"] as String? } == ["London", "Paris", "London"])
            #expect(all.allSatisfy { !$0.hasChanges })
        }
    }

    /// The seed's parent/child scenario: two children of the main context; the first deletes an object and
    /// saves, the second then updates the same object and saves. Child → parent saves are last writer wins.
    @Test(arguments: StoreKind.allCases) func secondChildsUpdateRevivesWhatTheFirstDeleted(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let main = stack.context(name: "main")
        let id = try main.performAndWait {
            let person = try insertPerson("Hopper", city: "Arlington", into: main)
            try main.save()
            return person.objectID
        }
        let first = child(of: main, name: "first")
        let second = child(of: main, name: "second")
        let secondsCopy = try second.performAndWait { try second.existingObject(with: id) }
        try first.performAndWait {
            first.delete(try first.existingObject(with: id))
            try first.save()
        }
        try main.performAndWait {
            let person = try #require(main.registeredObject(for: id))
            #expect(person.isDeleted)
            #expect(try main.fetch(FetchRequest<ManagedObject>(entityName: "Person")).isEmpty)
        }
        try second.performAndWait {
            secondsCopy["city"] = "New York"
            try second.save()
        }
        try main.performAndWait {
            let person = try #require(main.registeredObject(for: id))
            #expect(!person.isDeleted)
            #expect(person["city"] as String? == "New York")
            #expect(person["lastName"] as String? == "Hopper")
            #expect(try main.fetch(FetchRequest<ManagedObject>(entityName: "Person")).count == 1)
            try main.save()
        }
        let reader = stack.context()
        try reader.performAndWait {
            let person = try reader.existingObject(with: id)
            #expect(person["city"] as String? == "New York")
        }
    }

    @Test(arguments: StoreKind.allCases) func writerMainWorkerChainReachesTheStoreAndIDsBecomePermanent(
        kind: StoreKind
    ) throws {
        let stack = try TestStack(kind)
        let writer = stack.context(.privateQueue, name: "writer")
        let main = child(of: writer, name: "main")
        let worker = child(of: main, name: "worker")
        // (Held: a context lets go of saved objects that nothing else holds, as Core Data's does.)
        let workerPeople = try worker.performAndWait {
            let people = try ["Noether", "Ramanujan", "Turing"].map { try insertPerson($0, into: worker) }
            try worker.save()
            return people
        }
        let workerIDs = worker.performAndWait { workerPeople.map(\.objectID) }
        try main.performAndWait {
            #expect(main.insertedObjects.count == 3)
            try main.save()
        }
        try writer.performAndWait {
            #expect(writer.insertedObjects.count == 3)
            try writer.save()
        }
        #expect(try storedLastNames(stack) == ["Noether", "Ramanujan", "Turing"])
        // The main context and the worker follow the permanent IDs (Core Data leaves them temporary).
        let mainIDs = try main.performAndWait {
            main.adoptPendingPermanentIDs()
            return try main.fetch(FetchRequest<ManagedObject>(entityName: "Person", sortCriteria: [SortCriterion("lastName")]))
                .map(\.objectID)
        }
        #expect(mainIDs.allSatisfy { !$0.isTemporaryID })
        try worker.performAndWait {
            worker.adoptPendingPermanentIDs()
            for (temporary, permanent) in zip(workerIDs, mainIDs) {
                let object = try #require(worker.registeredObject(for: permanent))
                #expect(worker.registeredObject(for: temporary) === object)
                #expect(object.objectID == permanent)
            }
            // An edit made now reaches the store through the whole chain.
            try #require(worker.registeredObject(for: mainIDs[0]))["city"] = "Erlangen"
            try worker.save()
        }
        withExtendedLifetime(workerPeople) {}
        try main.performAndWait { try main.save() }
        try writer.performAndWait { try writer.save() }
        let reader = stack.context()
        try reader.performAndWait { () throws in
            #expect(try reader.existingObject(with: mainIDs[0])["city"] as String? == "Erlangen")
            #expect(try reader.count(for: FetchRequest<ManagedObject>(entityName: "Person")) == 3)
        }
    }

    @Test(arguments: StoreKind.allCases) func failedChildSaveKeepsEverythingAndChangesNothing(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let parent = stack.context()
        let worker = child(of: parent)
        try worker.performAndWait {
            let nameless = try worker.insertNewObject(forEntityName: "Person")  // lastName is required
            nameless["city"] = "Nowhere"
            #expect(throws: ObjectGraphError.self) { try worker.save() }
            #expect(worker.insertedObjects.count == 1)
            nameless["lastName"] = "Someone"
            try worker.save()
        }
        parent.performAndWait { #expect(parent.insertedObjects.count == 1) }
    }

    @Test(arguments: StoreKind.allCases) func childrenMergeTheirParentsSavesAndSiblingPushes(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let parent = stack.context(name: "parent")
        let id = try parent.performAndWait {
            let person = try insertPerson("Meitner", city: "Vienna", into: parent)
            try parent.save()
            return person.objectID
        }
        let watcher = child(of: parent, name: "watcher")
        watcher.automaticallyMergesChangesFromParent = true
        let editor = child(of: parent, name: "editor")
        let watched = try watcher.performAndWait { try watcher.existingObject(with: id) }
        let merged = Merges(watcher)

        try editor.performAndWait {
            try editor.existingObject(with: id)["city"] = "Berlin"
            try editor.save()
        }
        try merged.wait(for: 1)
        watcher.performAndWait { #expect(watched["city"] as String? == "Berlin") }

        try parent.performAndWait {
            try #require(parent.registeredObject(for: id))["city"] = "Stockholm"
            try parent.save()
        }
        try merged.wait(for: 2)
        watcher.performAndWait { #expect(watched["city"] as String? == "Stockholm") }
    }

    /// A pushed insert lands in the parent with its values taken at once: it must look exactly like an
    /// object whose values were set one by one (the oracle, in another context) — same values, same changed
    /// keys (a value equal to the default is no change), transient attributes at their defaults — and undo
    /// and redo in the parent must remove and restore it.
    @Test(arguments: StoreKind.allCases) func aPushedInsertLooksLikeOneWhoseValuesWereSetOneByOne(kind: StoreKind)
        throws
    {
        let stack = try TestStack(kind)
        let parent = stack.context(name: "parent")
        parent.performAndWait { parent.undoManager = ContextUndoManager() }
        let worker = child(of: parent, name: "worker")
        let settings: [(key: String, value: AttributeValue)] = [
            ("group", .string("A")), ("rank", .integer(0)), ("name", .string("first")), ("flag", .boolean(true)),
            ("note", .string("transient, stays in the child")),
        ]
        let id = try worker.performAndWait {
            let item = try worker.insertNewObject(forEntityName: "Item")
            for (key, value) in settings { item.setValue(value, forKey: key) }
            try worker.save()
            return item.objectID
        }
        let oracle = stack.context(name: "oracle")
        let (expectedValues, expectedChanges) = try oracle.performAndWait {
            let item = try oracle.insertNewObject(forEntityName: "Item")
            for (key, value) in settings where key != "note" { item.setValue(value, forKey: key) }
            return (item.entity.attributes.map { item.value(forKey: $0.name) }, item.changedValues())
        }
        let savedID = try parent.performAndWait {
            let item = try #require(parent.registeredObject(for: id))
            #expect(item.isInserted && item.hasChanges)
            #expect(item.entity.attributes.map { item.value(forKey: $0.name) } == expectedValues)
            #expect(item.changedValues() == expectedChanges)
            #expect(Set(item.changedValues().keys) == ["group", "name", "flag"])
            parent.processPendingChanges()
            parent.undoManager?.undo()
            #expect(!item.isInserted && parent.registeredObject(for: id) == nil)
            parent.undoManager?.redo()
            #expect(item.isInserted && parent.registeredObject(for: id) === item)
            #expect(item.entity.attributes.map { item.value(forKey: $0.name) } == expectedValues)
            try parent.save()
            return item.objectID
        }
        let reader = stack.context(name: "reader")
        try reader.performAndWait {
            let saved = try reader.existingObject(with: savedID)
            #expect(saved["name"] as String? == "first" && saved["flag"] as Bool? == true)
            #expect(saved["note"] as String? == nil)
        }
    }

    @Test func aPushArrivesAsOneObjectsDidChangeAndAwakeFromInsertRunsOnce() throws {
        let entity = EntityDescription(name: "Awakened", attributes: [AttributeDescription(name: "name", type: .string)])
        let coordinator = PersistentStoreCoordinator(
            managedObjectModel: try ManagedObjectModel(entities: [entity], classes: [Awakened.self]))
        try coordinator.addPersistentStore(ofType: .inMemory)
        let parent = ManagedObjectContext(concurrencyType: .privateQueue)
        parent.persistentStoreCoordinator = coordinator
        let worker = child(of: parent)
        final class Counter: @unchecked Sendable { var batches = 0, inserted = 0 }
        let counter = Counter()
        let token = parent.addObjectsDidChangeObserver { change in
            counter.batches += 1
            counter.inserted += change.insertedObjects.count
        }
        defer { _ = token }
        let before = Awakened.awakenings.load(ordering: .relaxed)
        try worker.performAndWait {
            for name in ["A", "B"] { try worker.insertNewObject(forEntityName: "Awakened")["name"] = name }
            try worker.save()
        }
        parent.performAndWait {
            #expect(counter.batches == 1)
            #expect(counter.inserted == 2)
        }
        try parent.performAndWait { try parent.save() }
        #expect(Awakened.awakenings.load(ordering: .relaxed) - before == 2)
    }
}

/// Counts `awakeFromInsert` calls.
final class Awakened: ManagedObject {
    static let awakenings = Atomic<Int>(0)
    override class var entityName: String { "Awakened" }
    override func awakeFromInsert() { Self.awakenings.add(1, ordering: .relaxed) }
}

/// Counts merges (objects-did-change with refreshed or inserted objects) delivered to a context.
private final class Merges: @unchecked Sendable {
    private let condition = NSCondition()
    private var count = 0
    private var token: ObservationToken?

    init(_ context: ManagedObjectContext) {
        token = context.addObjectsDidChangeObserver { [weak self] change in
            guard let self, !change.refreshedObjects.isEmpty || !change.insertedObjects.isEmpty else { return }
            self.condition.lock()
            self.count += 1
            self.condition.broadcast()
            self.condition.unlock()
        }
    }

    /// Waits (at most 10 s) until `expected` merges arrived.
    func wait(for expected: Int) throws {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(10)
        while count < expected {
            guard condition.wait(until: deadline) else { break }
        }
        try #require(count >= expected, "only \(count) of \(expected) merges arrived")
    }
}
