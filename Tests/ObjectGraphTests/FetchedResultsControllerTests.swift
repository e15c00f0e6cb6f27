import Foundation
import Testing
@testable import ObjectGraph
import SectionedChanges

/// Builds an Item controller sectioned by `group`, sorted by group, rank, then folded name.
private func itemController(
    _ context: ManagedObjectContext, recorder: ChangeRecorder, predicate: FetchPredicate? = nil
) throws -> FetchedResultsController<ManagedObject> {
    var request = FetchRequest<ManagedObject>(entityName: "Item", predicate: predicate)
    request.sortCriteria = [
        SortCriterion("group"), SortCriterion("rank"),
        SortCriterion("name", comparison: .caseAndDiacriticInsensitive),
    ]
    let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context,
        sectionNameKeyPath: "group")
    controller.delegate = recorder
    try controller.performFetch()
    return controller
}

/// A fresh fetch's rows, sectioned the same way.
private func freshRows(_ stack: TestStack, predicate: FetchPredicate? = nil) throws -> [[ManagedObjectID]] {
    let context = stack.context()
    let recorder = ChangeRecorder()
    return try context.performAndWait {
        try itemController(context, recorder: recorder, predicate: predicate).sectionedIDs
    }
}

/// How the changes reach the controller's context in a differential test.
enum ChangeRoute: String, CaseIterable, CustomTestStringConvertible {
    /// Saved in a background context and merged.
    case merge
    /// Made directly in the controller's context (unsaved), then processed.
    case local
    var testDescription: String { rawValue }
}

/// Random edits: deletes, sort-key, section-key, name and flag changes, and a few inserts.
private func randomEdits(in context: ManagedObjectContext, _ rng: inout SeededRandom) throws {
    let existing = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
    for item in existing {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: context.delete(item)
        case 1: item["rank"] = Int64.random(in: 0..<5, using: &rng)
        case 2: item["group"] = groups[Int.random(in: 0..<groups.count, using: &rng)]
        case 3: item["name"] = names[Int.random(in: 0..<names.count, using: &rng)]
        case 4: item["flag"] = !(item["flag"] ?? false)
        default: break
        }
    }
    for _ in 0..<Int.random(in: 0..<6, using: &rng) {
        randomize(try context.insertNewObject(forEntityName: "Item"), &rng)
    }
}

private let groups = ["A", "B", "C", "D", "E", "F"]
private let names = ["ada", "Åsa", "bo", "émile", "Zoë", "zed", "東京", "e\u{301}va", "Ola", "ølaf"]

private func randomize(_ item: ManagedObject, _ rng: inout SeededRandom) {
    item["group"] = groups[Int.random(in: 0..<groups.count, using: &rng)]
    item["rank"] = Int64.random(in: 0..<5, using: &rng)
    item["name"] = names[Int.random(in: 0..<names.count, using: &rng)]
}

@Suite struct FetchedResultsControllerTests {
    /// The central property: for random batches of inserts, deletes and sort/section-key updates — saved in
    /// a background context and merged, or made in the controller's own context — applying the reported
    /// changes with UIKit's batch semantics to the previous rows gives exactly a fresh fetch's rows, with
    /// and without a predicate that objects enter and leave.
    @Test(arguments: StoreKind.allCases, ChangeRoute.allCases)
    func reportedChangesApplyToExactlyAFreshFetch(kind: StoreKind, route: ChangeRoute) throws {
        for seed in UInt64(1)...UInt64(8) {
            for predicate in [nil, try FetchPredicate(format: "flag == NO OR rank >= %d", 3)] {
                try checkDifferentially(kind: kind, route: route, seed: seed, predicate: predicate)
            }
        }
    }

    private func checkDifferentially(kind: StoreKind, route: ChangeRoute, seed: UInt64, predicate: FetchPredicate?)
        throws
    {
        var rng = SeededRandom(seed: seed)
        let stack = try TestStack(kind)
        let background = stack.context(name: "import")
        let viewContext = stack.context(name: "view")
        try background.performAndWait {
            for _ in 0..<Int.random(in: 0..<25, using: &rng) {
                randomize(try background.insertNewObject(forEntityName: "Item"), &rng)
            }
            try background.save()
        }
        let recorder = ChangeRecorder()
        let controller = try viewContext.performAndWait {
            try itemController(viewContext, recorder: recorder, predicate: predicate)
        }
        var rows = viewContext.performAndWait { controller.sectionedIDs }
        #expect(rows == (try freshRows(stack, predicate: predicate)))
        let label = "\(kind) \(route) seed \(seed) predicate \(predicate?.description ?? "none")"

        for round in 0..<25 {
            var save: ContextDidSave?
            if route == .merge {
                save = try background.performAndWait {
                    try randomEdits(in: background, &rng)
                    return try background.saveCapturingDidSave()
                }
            }
            let batchesBefore = recorder.batches.count
            try viewContext.performAndWait {
                switch route {
                case .merge: if let save { viewContext.mergeChanges(fromContextDidSave: save) }
                case .local:
                    try randomEdits(in: viewContext, &rng)
                    viewContext.processPendingChanges()
                }
                // The oracle: a new controller on the same state (same context for unsaved edits).
                let fresh = route == .merge
                    ? try freshRows(stack, predicate: predicate)
                    : try itemController(viewContext, recorder: ChangeRecorder(), predicate: predicate).sectionedIDs
                #expect(controller.sectionedIDs == fresh, "\(label) round \(round): controller differs from a fresh fetch")
                if recorder.batches.count == batchesBefore {
                    #expect(rows == fresh, "\(label) round \(round): rows changed without a callback")
                    return
                }
                #expect(recorder.batches.count == batchesBefore + 1, "one will/did pair per change")
                guard let batch = recorder.batches.last else { return }
                #expect(Set(batch.reportedObjects).count == batch.reportedObjects.count, "an object reported twice")
                let counts = { (sections: [[ManagedObjectID]]) in sections.map(\.count) }
                #expect(throws: Never.self, "\(label) round \(round)") {
                    try batch.changeset.validate(oldRowCounts: counts(rows), newRowCounts: counts(fresh))
                }
                let applied = batch.changeset.applied(to: rows) { batch.inserted[$0] }
                #expect(applied == fresh, "\(label) round \(round): \(batch.changeset)")
                rows = fresh
            }
        }
        #expect(recorder.protocolErrors.isEmpty, "\(recorder.protocolErrors)")
    }

    @Test func localEditsInTheControllersContextAreReportedOncePerEvent() throws {
        let stack = try TestStack()
        let context = stack.context()
        let recorder = ChangeRecorder()
        try context.performAndWait {
            let controller = try itemController(context, recorder: recorder)
            let first = try context.insertNewObject(forEntityName: "Item")
            first["group"] = "B"
            first["name"] = "first"
            let second = try context.insertNewObject(forEntityName: "Item")
            second["group"] = "A"
            second["name"] = "second"
            context.processPendingChanges()
            #expect(recorder.batches.count == 1)
            #expect(recorder.batches.last?.changeset.insertedSections == [0, 1])
            #expect(controller.sectionedIDs.map(\.count) == [1, 1])

            // Scenario 3: section key change into an existing section is one move, no update.
            second["group"] = "B"
            second["rank"] = Int64(9)
            context.processPendingChanges()
            let move = try #require(recorder.batches.last)
            #expect(move.changeset.movedRows == [RowMove(from: IndexPath(row: 0, section: 0), to: IndexPath(row: 1, section: 0))])
            #expect(move.changeset.deletedSections == [0])
            #expect(move.changeset.updatedRows.isEmpty)

            // Scenario 5/6: a change that keeps the order is an update, never a zero-distance move.
            first["flag"] = true
            context.processPendingChanges()
            #expect(recorder.batches.last?.changeset.updatedRows == [RowUpdate(from: IndexPath(row: 0, section: 0))])
            #expect(recorder.batches.last?.changeset.movedRows.isEmpty == true)

            // Unrelated or no-op changes produce no callbacks at all.
            let count = recorder.batches.count
            first["flag"] = true
            context.processPendingChanges()
            let person = try context.insertNewObject(forEntityName: "Person")
            person["lastName"] = "Unrelated"
            context.processPendingChanges()
            #expect(recorder.batches.count == count)

            // Saving turns temporary IDs permanent without reporting anything.
            try context.save()
            #expect(recorder.batches.count == count)
            #expect(controller.sectionedIDs.flatMap { $0 }.allSatisfy { !$0.isTemporaryID })
            #expect(controller.indexPath(forObject: second) == IndexPath(row: 1, section: 0))
        }
        #expect(recorder.protocolErrors.isEmpty)
    }

    /// Results that stopped being tracked (the delegate went away) keep their places while keys change
    /// unseen; once tracked again, the next change to such an object re-places it by its keys — the event's
    /// own attributes (here a flag) cannot tell that its rank changed meanwhile.
    @Test func anObjectWhoseKeysChangedWhileUntrackedIsPlacedByItsKeysWhenTrackedAgain() throws {
        let stack = try TestStack()
        let context = stack.context()
        let recorder = ChangeRecorder()
        try context.performAndWait {
            for (rank, name) in ["a", "b", "c"].enumerated() {
                let item = try context.insertNewObject(forEntityName: "Item")
                item["group"] = "A"
                item["rank"] = Int64(rank)
                item["name"] = name
            }
            try context.save()
            let controller = try itemController(context, recorder: recorder)
            let first = try #require(controller.fetchedObjects?.first)
            controller.delegate = nil
            first["rank"] = Int64(9)  // unseen: nothing tracks the results
            context.processPendingChanges()
            controller.delegate = recorder
            first["flag"] = true
            context.processPendingChanges()
            #expect(controller.indexPath(forObject: first) == IndexPath(row: 2, section: 0))
            #expect(recorder.batches.last?.changeset.movedRows.count == 1)
        }
        #expect(recorder.protocolErrors.isEmpty)
    }

    @Test func sectionsIndexTitlesAndLookups() throws {
        let stack = try TestStack()
        let context = stack.context()
        try context.performAndWait {
            for (group, name) in [("apple", "x"), ("avocado", "y"), ("banana", "z")] {
                let item = try context.insertNewObject(forEntityName: "Item")
                item["group"] = group
                item["name"] = name
            }
            try context.save()
            let controller = try itemController(context, recorder: ChangeRecorder())
            #expect(controller.sections?.map(\.name) == ["apple", "avocado", "banana"])
            #expect(controller.sections?.map(\.indexTitle) == ["A", "A", "B"])
            #expect(controller.sectionIndexTitles == ["A", "B"])
            #expect(controller.section(forSectionIndexTitle: "B", at: 1) == 2)
            let object = controller.object(at: IndexPath(row: 0, section: 1))
            #expect(object["name"] == "y")
            #expect(controller.indexPath(forObject: object) == IndexPath(row: 0, section: 1))
        }
    }

    /// A fetch that fails (here a predicate naming a key the entity lacks) leaves the results, their sections
    /// and section names as they were; before, the section names were reset first and reading the index titles
    /// of the old sections crashed (people filtering a full list with `bogus == 1` typed in one go).
    @Test(arguments: [0, 2])
    func aFailedFetchLeavesTheResultsAsTheyWere(fetchBatchSize: Int) throws {
        let stack = try TestStack()
        let context = stack.context()
        try context.performAndWait {
            for (group, name) in [("apple", "x"), ("avocado", "y"), ("banana", "z"), ("cherry", "w")] {
                let item = try context.insertNewObject(forEntityName: "Item")
                item["group"] = group
                item["name"] = name
            }
            try context.save()
            let recorder = ChangeRecorder()
            let controller = try itemController(context, recorder: recorder, predicate: FetchPredicate(format: "name != 'w'"))
            controller.fetchRequest.fetchBatchSize = fetchBatchSize
            try controller.performFetch()
            let rows = controller.sectionedIDs
            let goodRequest = controller.fetchRequest
            controller.fetchRequest.predicate = try FetchPredicate(format: "bogus == 1")
            #expect(throws: ObjectGraphError.self) { try controller.performFetch() }
            #expect(controller.sectionedIDs == rows)
            #expect(controller.sections?.map(\.name) == ["apple", "avocado", "banana"])
            #expect(controller.sectionIndexTitles == ["A", "B"])
            let object = controller.object(at: IndexPath(row: 0, section: 2))
            #expect(object["name"] == "z")
            #expect(controller.indexPath(forObject: object) == IndexPath(row: 0, section: 2))
            // With its request put back, it goes on tracking changes.
            controller.fetchRequest = goodRequest
            object["group"] = "apricot"
            context.processPendingChanges()
            #expect(controller.sections?.map(\.name) == ["apple", "apricot", "avocado"])
            #expect(recorder.batches.last?.reportedObjects.contains(object.objectID) == true)
        }
    }

    @Test func mergeIntoMainQueueContextReachesTheController() async throws {
        let stack = try TestStack()
        let background = stack.context(name: "import")
        let main = stack.context(.mainQueue, name: "main")
        main.automaticallyMergesChangesFromParent = true
        let recorder = Unchecked(ChangeRecorder())
        let controller = Unchecked(try await onMainQueue { try itemController(main, recorder: recorder.value) })
        try await background.perform {
            for index in 0..<50 {
                let item = try background.insertNewObject(forEntityName: "Item")
                item["group"] = index % 2 == 0 ? "even" : "odd"
                item["rank"] = Int64(index)
            }
            try background.save()
        }
        // Wait for the merge on the main queue itself (bounded), not for a fixed time.
        let deadline = ContinuousClock.now + .seconds(10)
        while try await onMainQueue({ controller.value.numberOfFetchedObjects }) < 50, ContinuousClock.now < deadline {}
        let (count, names, batches) = try await onMainQueue {
            (controller.value.numberOfFetchedObjects, controller.value.sections?.map(\.name),
             recorder.value.batches.map { $0.changeset.insertedRows.count })
        }
        #expect(count == 50)
        #expect(names == ["even", "odd"])
        #expect(batches == [50])
    }
}
