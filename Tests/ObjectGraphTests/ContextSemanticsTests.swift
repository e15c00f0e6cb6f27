import Foundation
import SQLiteStorage
import Testing
@testable import ObjectGraph

/// Counts a context's objects-did-change notifications and what they carried.
private final class ChangeLog: @unchecked Sendable {
    private let condition = NSCondition()
    private(set) var changes: [(inserted: Int, updated: Int, deleted: Int, refreshed: Int, invalidatedAll: Bool)] = []
    private var token: ObservationToken?

    init(_ context: ManagedObjectContext) {
        token = context.addObjectsDidChangeObserver { [weak self] change in
            guard let self else { return }
            self.condition.lock()
            self.changes.append((change.insertedObjects.count, change.updatedObjects.count,
                change.deletedObjects.count, change.refreshedObjects.count, change.invalidatedAllObjects))
            self.condition.broadcast()
            self.condition.unlock()
        }
    }

    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return changes.count
    }

    /// Waits (at most 10 s) until the inserted objects reported add up to `expected`.
    func waitForInserted(_ expected: Int) -> Int {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(10)
        while changes.map(\.inserted).reduce(0, +) < expected, condition.wait(until: deadline) {}
        return changes.map(\.inserted).reduce(0, +)
    }
}

/// Keeps `context`'s queue busy until `release` is signalled, returning once the queue is held — so saves made
/// afterwards are certainly queued behind it (a `perform` block merges what has already arrived first).
private func holdQueue(of context: ManagedObjectContext, until release: DispatchSemaphore) {
    let held = DispatchSemaphore(value: 0)
    context.perform {
        held.signal()
        release.wait()
    }
    held.wait()
}

/// Saves `saves` batches of `size` new people from a context of their own (what the receiver must merge).
private func importBacklog(_ stack: TestStack, saves: Int, of size: Int) throws {
    let importer = stack.context(name: "importer")
    try importer.performAndWait {
        for save in 0..<saves {
            for index in 0..<size {
                try importer.insertNewObject(forEntityName: "Person")["lastName"] = "P\(save)-\(index)"
            }
            try importer.save()
        }
    }
}

private func savedPerson(_ stack: TestStack, _ lastName: String, city: String = "Oslo") throws -> ManagedObjectID {
    let context = stack.context()
    return try context.performAndWait {
        let person = try context.insertNewObject(forEntityName: "Person")
        person["lastName"] = lastName
        person["city"] = city
        try context.save()
        return person.objectID
    }
}

private func reads(_ stack: TestStack) -> Int? {
    (stack.coordinator.persistentStores.first?.backend as? SQLiteStore)?.readCount.load(ordering: .relaxed)
}

@Suite struct ContextSemanticsTests {
    @Test(arguments: StoreKind.allCases) func identityLookupsDoWhatTheirNamesPromise(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let id = try savedPerson(stack, "Lamarr")
        let context = stack.context()
        try context.performAndWait {
            #expect(context.registeredObject(for: id) == nil)
            let before = reads(stack)
            let fault = try context.object(with: id)
            #expect(fault.isFault)
            #expect(reads(stack) == before, "object(with:) does no I/O")
            #expect(context.registeredObject(for: id) === fault)
            let loaded = try context.existingObject(with: id)
            #expect(loaded === fault)
            #expect(!loaded.isFault)
            #expect(loaded["lastName"] as String? == "Lamarr")
        }
        let deleter = stack.context()
        try deleter.performAndWait {
            deleter.delete(try deleter.object(with: id))
            try deleter.save()
        }
        let late = stack.context()
        try late.performAndWait {
            #expect(throws: ObjectGraphError.self) { try late.existingObject(with: id) }
            let fault = try late.object(with: id)  // still never nil and never I/O
            _ = fault["lastName"] as String?
            #expect(fault.isDeleted, "a fault whose row is gone turns into a deleted object when fired")
        }
    }

    @Test(arguments: StoreKind.allCases) func everyEditInOneEventIsOneObjectsDidChange(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let id = try savedPerson(stack, "Franklin")
        let context = stack.context()
        let log = ChangeLog(context)
        try context.performAndWait {
            let person = try context.existingObject(with: id)
            person["city"] = "Cambridge"
            person["age"] = Int64(37)
            person["city"] = "London"
            let other = try context.insertNewObject(forEntityName: "Person")
            other["lastName"] = "Wilkins"
        }
        #expect(log.count == 1)
        #expect(log.changes.first?.inserted == 1)
        #expect(log.changes.first?.updated == 1)
    }

    @Test(arguments: StoreKind.allCases) func resetInvalidatesEverythingAndSaysSo(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let id = try savedPerson(stack, "Goodall")
        let context = stack.context()
        let log = ChangeLog(context)
        try context.performAndWait {
            let person = try context.existingObject(with: id)
            person["city"] = "Gombe"
            context.reset()
            #expect(context.registeredObjectsCount == 0)
            #expect(!context.hasChanges)
            #expect(person.managedObjectContext == nil)
            #expect(try context.existingObject(with: id)["city"] as String? == "Oslo")
        }
        #expect(log.changes.contains { $0.invalidatedAll })
    }

    /// Saves that arrive while the receiving queue is busy are merged as one merge with one objects-did-change.
    @Test(arguments: StoreKind.allCases) func savesArrivingFasterThanTheQueueDrainsMergeAsOne(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let receiver = stack.context(name: "receiver")
        receiver.automaticallyMergesChangesFromParent = true
        let log = ChangeLog(receiver)
        let busy = DispatchSemaphore(value: 0)
        holdQueue(of: receiver, until: busy)  // the receiving queue is busy while the saves arrive
        let importer = stack.context(name: "importer")
        try importer.performAndWait {
            for index in 0..<200 {
                try importer.insertNewObject(forEntityName: "Person")["lastName"] = "P\(index)"
                try importer.save()
            }
        }
        busy.signal()
        #expect(log.waitForInserted(200) == 200, "nothing is lost")
        #expect(log.count == 1, "200 saves, one merge")
        try receiver.performAndWait { () throws in
            #expect(try receiver.count(for: FetchRequest<ManagedObject>(entityName: "Person")) == 200)
        }
    }

    /// A backlog of big saves is merged a few whole saves per turn of the queue, so one merge never takes
    /// the whole backlog (the main queue would stall for it) and no save is ever split.
    @Test func aBacklogOfBigSavesIsMergedInWholeSavesOverSeveralTurns() throws {
        let stack = try TestStack(.inMemory)
        let receiver = stack.context(name: "receiver")
        receiver.automaticallyMergesChangesFromParent = true
        let log = ChangeLog(receiver)
        let busy = DispatchSemaphore(value: 0)
        holdQueue(of: receiver, until: busy)
        let saveSize = 900
        try importBacklog(stack, saves: 5, of: saveSize)
        busy.signal()
        #expect(log.waitForInserted(5 * saveSize) == 5 * saveSize, "nothing is lost")
        let merged = log.changes.map(\.inserted)
        #expect(merged.count > 1, "one merge took the whole backlog: \(merged)")
        #expect(merged.allSatisfy { $0 % saveSize == 0 }, "a save was split: \(merged)")
        #expect(merged.allSatisfy { $0 <= ManagedObjectContext.maximumCoalescedMergeObjects }, "\(merged)")
    }

    /// A user interface can tell that saves are still waiting to be merged (and when they no longer are).
    @Test func aContextSaysWhetherSavesWaitToBeMerged() throws {
        let stack = try TestStack(.inMemory)
        let receiver = stack.context(name: "receiver")
        receiver.automaticallyMergesChangesFromParent = true
        #expect(!receiver.hasQueuedMerges)
        let busy = DispatchSemaphore(value: 0)
        holdQueue(of: receiver, until: busy)
        try importBacklog(stack, saves: 3, of: 900)
        #expect(receiver.hasQueuedMerges, "the receiving queue is busy: the saves wait")
        busy.signal()
        receiver.performAndWait {}
        #expect(!receiver.hasQueuedMerges)
    }

    /// Slicing a backlog must not reorder it behind later work: a `performAndWait` sent after the saves
    /// runs with every one of them merged.
    @Test func workSentAfterABacklogSeesItAllMerged() throws {
        let stack = try TestStack(.inMemory)
        let receiver = stack.context(name: "receiver")
        receiver.automaticallyMergesChangesFromParent = true
        let log = ChangeLog(receiver)
        let busy = DispatchSemaphore(value: 0)
        holdQueue(of: receiver, until: busy)
        try importBacklog(stack, saves: 5, of: 900)
        busy.signal()
        // The log hears every merge on the receiver's queue, so inside the block it is up to date.
        let merged = receiver.performAndWait { log.changes.map(\.inserted).reduce(0, +) }
        #expect(merged == 4_500)
    }

    /// A merge registers the objects it brings in only for as long as something holds them (Core Data holds
    /// registrations weakly): a context following a big import does not keep every imported object, while an
    /// object someone still holds stays registered and up to date.
    @Test(arguments: StoreKind.allCases) func mergedObjectsNobodyHoldsAreForgotten(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let receiver = stack.context(name: "receiver")
        let importer = stack.context(name: "importer")
        let kept = try savedPerson(stack, "Kept")
        let held = try receiver.performAndWait { try receiver.existingObject(with: kept) }
        let captured = try importer.performAndWait { () throws -> ContextDidSave? in
            for index in 0..<50 { try importer.insertNewObject(forEntityName: "Person")["lastName"] = "P\(index)" }
            let keptThere = try importer.existingObject(with: kept)
            keptThere["city"] = "Bergen"
            return try importer.saveCapturingDidSave()
        }
        let save = try #require(captured)
        var insertedSeen = 0
        let token = receiver.addObjectsDidChangeObserver { insertedSeen += $0.insertedObjects.count }
        receiver.performAndWait { receiver.mergeChanges(fromContextDidSave: save) }
        _ = token
        #expect(insertedSeen == 50, "observers still hear about every merged object")
        receiver.performAndWait {
            #expect(receiver.registeredObjectsCount == 1, "only the held object stays registered")
            #expect(held["city"] as String? == "Bergen")
        }
        let count = try receiver.performAndWait { () throws in
            try receiver.count(for: FetchRequest<ManagedObject>(entityName: "Person"))
        }
        #expect(count == 51)
    }

    /// Core Data before iOS 10 dropped updates of objects the receiving context had not registered, so a
    /// controller whose predicate the update made true never saw the object.
    @Test(arguments: StoreKind.allCases) func mergedUpdateOfAnUnregisteredObjectReachesTheController(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let id = try savedPerson(stack, "Nightingale", city: "Florence")
        let context = stack.context()
        let recorder = ChangeRecorder()
        let controller = try context.performAndWait {
            let request = FetchRequest<ManagedObject>(
                entityName: "Person", predicate: try FetchPredicate(format: "city == %@", "London"),
                sortCriteria: [SortCriterion("lastName")])
            let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context)
            controller.delegate = recorder
            try controller.performFetch()
            #expect(controller.numberOfFetchedObjects == 0)
            #expect(context.registeredObject(for: id) == nil)
            return controller
        }
        let editor = stack.context()
        let save = try editor.performAndWait {
            try editor.existingObject(with: id)["city"] = "London"
            let captured = Unchecked<ContextDidSave?>(nil)
            let token = editor.addDidSaveObserver { captured.value = $0 }
            try editor.save()
            token.cancel()
            return captured.value
        }
        try context.performAndWait {
            context.mergeChanges(fromContextDidSave: try #require(save))
            #expect(controller.numberOfFetchedObjects == 1)
            #expect(recorder.batches.map { $0.changeset.insertedRows.count } == [1])
        }
    }

    /// A merge forgets the objects it brought in when nobody holds them; deleting one of them later in
    /// another context must still take it out of the controller (the benchmark found this one).
    @Test(arguments: StoreKind.allCases) func mergedDeletionOfAForgottenObjectReachesTheController(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let context = stack.context(name: "view")
        let importer = stack.context(name: "importer")
        let recorder = ChangeRecorder()
        var deletedSeen: [ManagedObjectID] = []
        let token = context.addObjectsDidChangeObserver { deletedSeen += $0.deletedObjects.map(\.objectID) }
        defer { token.cancel() }
        let controller = try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Person", sortCriteria: [SortCriterion("lastName")])
            let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context)
            controller.delegate = recorder
            try controller.performFetch()
            return controller
        }
        let inserted = try #require(try importer.performAndWait { () throws -> ContextDidSave? in
            for name in ["Ada", "Bea", "Cy"] { try importer.insertNewObject(forEntityName: "Person")["lastName"] = name }
            return try importer.saveCapturingDidSave()
        })
        let victim = try #require(inserted.insertedObjectIDs.first)
        context.performAndWait {
            context.mergeChanges(fromContextDidSave: inserted)
            #expect(context.registeredObject(for: victim) == nil, "the merge kept an object nobody holds")
        }
        let deletion = try #require(try importer.performAndWait { () throws -> ContextDidSave? in
            importer.delete(try importer.existingObject(with: victim))
            return try importer.saveCapturingDidSave()
        })
        context.performAndWait {
            context.mergeChanges(fromContextDidSave: deletion)
            #expect(controller.numberOfFetchedObjects == 2)
            #expect(!controller.sectionedIDs.joined().contains(victim))
            #expect(recorder.batches.last?.changeset.deletedRows.count == 1)
        }
        #expect(deletedSeen == [victim], "observers hear of the deletion")
    }

    @Test func remoteSavesMergeIntoSeveralContexts() throws {
        let stack = try TestStack(.sqlite)
        let kept = try savedPerson(stack, "Kept", city: "Oslo")
        let doomed = try savedPerson(stack, "Doomed", city: "Oslo")
        let contexts = [stack.context(name: "a"), stack.context(name: "b")]
        for context in contexts {
            try context.performAndWait { _ = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")) }
        }
        // Another coordinator on the same file saves: this coordinator's contexts hear nothing of it.
        let other = PersistentStoreCoordinator(managedObjectModel: stack.coordinator.managedObjectModel)
        try other.addPersistentStore(ofType: .sqlite, at: stack.storeURL)
        let elsewhere = ManagedObjectContext(concurrencyType: .privateQueue)
        elsewhere.persistentStoreCoordinator = other
        let added = try elsewhere.performAndWait {
            try elsewhere.existingObject(with: kept)["city"] = "Bergen"
            elsewhere.delete(try elsewhere.existingObject(with: doomed))
            let new = try elsewhere.insertNewObject(forEntityName: "Person")
            new["lastName"] = "New"
            try elsewhere.save()
            return new.objectID.uriRepresentation
        }
        let changes = RemoteContextSave(
            insertedURIs: [added], updatedURIs: [kept.uriRepresentation], deletedURIs: [doomed.uriRepresentation],
            coordinator: stack.coordinator)
        let logs = contexts.map(ChangeLog.init)
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: contexts)
        for (context, log) in zip(contexts, logs) {
            try context.performAndWait {
                #expect(context.registeredObject(for: kept)?["city"] as String? == "Bergen")
                #expect(context.registeredObject(for: doomed)?.isDeleted ?? true)
                let names = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person",
                    sortCriteria: [SortCriterion("lastName")])).compactMap { $0["lastName"] as String? }
                #expect(names == ["Kept", "New"])
            }
            #expect(log.count == 1)
        }
    }

    /// A main-context fetch must not queue behind a background save: the store's writer is held (as by a
    /// long save) while another context fetches and counts.
    @Test func aFetchReturnsWhileTheWriterIsHeld() throws {
        let stack = try TestStack(.sqlite)
        _ = try savedPerson(stack, "Before")
        let store = try #require(stack.coordinator.persistentStores.first?.backend as? SQLiteStore)
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? store.withWriter { connection throws(ObjectGraphError) in
                _ = try? connection.execute("BEGIN IMMEDIATE")
                _ = try? connection.execute(
                    "INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZLASTNAME) VALUES (99, 1, 1, 'Uncommitted')")
                holding.signal()
                release.wait()
                _ = try? connection.execute("ROLLBACK")
            }
            finished.signal()
        }
        holding.wait()
        let reader = stack.context(name: "reader")
        let result = Unchecked<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        reader.perform {
            result.value = try? reader.fetch(FetchRequest<ManagedObject>(entityName: "Person")).count
            done.signal()
        }
        let returned = done.wait(timeout: .now() + 10) == .success
        release.signal()
        finished.wait()
        #expect(returned, "the fetch waited for the writer")
        #expect(result.value == 1)
    }
}

/// Traps of the queue checker, each in a child process, with the message checked.
@Suite struct ConcurrencyCheckerMessageTests {
    @Test func readingAnObjectOffItsQueueNamesTheContextAndTheQueue() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            setenv("OBJECTGRAPH_CONCURRENCY_DEBUG", "1", 1)
            guard let stack = try? TestStack(.inMemory) else { exit(0) }
            let context = stack.context(name: "importer")
            let person = context.performAndWait { try? context.insertNewObject(forEntityName: "Person") }
            _ = person?["lastName"] as String?  // off the queue: traps
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("importer"))
        #expect(message.contains("ObjectGraph.ManagedObjectContext."))
        #expect(message.contains("reading Person.lastName"))
    }

    @Test func aChildContextUsedOffItsQueueTraps() async {
        await #expect(processExitsWith: .failure) {
            setenv("OBJECTGRAPH_CONCURRENCY_DEBUG", "1", 1)
            guard let stack = try? TestStack(.inMemory) else { exit(0) }
            let child = ManagedObjectContext(concurrencyType: .privateQueue)
            child.parent = stack.context(name: "parent")
            _ = try? child.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
        }
    }
}
