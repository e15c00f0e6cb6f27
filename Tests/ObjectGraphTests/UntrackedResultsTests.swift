import Foundation
import Testing
@testable import ObjectGraph
import SectionedChanges

/// A batched controller without a delegate keeps only its results' IDs and section runs (Core Data's
/// untracked mode), and starts tracking, with keys, when a delegate or change stream comes later.
@Suite struct UntrackedResultsTests {
    private static func request() -> FetchRequest<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortCriteria = [SortCriterion("group"), SortCriterion("name", comparison: .localized),
            SortCriterion("rank", ascending: false)]
        request.fetchBatchSize = 4
        return request
    }

    private static func controller(in context: ManagedObjectContext, delegate: ChangeRecorder?) throws
        -> FetchedResultsController<ManagedObject>
    {
        let controller = FetchedResultsController(fetchRequest: request(), managedObjectContext: context,
            sectionNameKeyPath: "group")
        controller.delegate = delegate
        try controller.performFetch()
        return controller
    }

    /// What a tracked controller over the same store holds now, read in a context of its own.
    private static func trackedResults(_ stack: TestStack) throws -> (rows: [[ManagedObjectID]], names: [String]) {
        let other = stack.context(name: "oracle")
        let recorder = ChangeRecorder()
        return try other.performAndWait {
            let oracle = try controller(in: other, delegate: recorder)
            #expect(oracle.untrackedResults == nil)
            return (oracle.sectionedIDs, (0..<oracle.numberOfSections).compactMap(oracle.sectionName(at:)))
        }
    }

    private static func seeded(_ kind: StoreKind, _ rng: inout SeededRandom, count: Int) throws -> TestStack {
        let stack = try TestStack(kind)
        let writer = stack.context()
        try writer.performAndWait {
            for _ in 0..<count { RandomItems.randomize(try writer.insertNewObject(forEntityName: "Item"), &rng) }
            try writer.save()
        }
        return stack
    }

    @Test(arguments: [StoreKind.sqlite, .inMemory])
    func untrackedResultsAreWhatATrackedControllerHolds(kind: StoreKind) throws {
        var rng = SeededRandom(seed: 11)
        let stack = try Self.seeded(kind, &rng, count: 300)
        let context = stack.context()
        try context.performAndWait {
            let controller = try Self.controller(in: context, delegate: nil)
            // Only IDs are kept: no entries with keys.
            #expect(controller.untrackedResults?.count == 300)
            #expect(controller.index.isEmpty)
            let tracked = try Self.trackedResults(stack)
            #expect(controller.sectionedIDs == tracked.rows)
            #expect((0..<controller.numberOfSections).compactMap(controller.sectionName(at:)) == tracked.names)
            #expect(controller.fetchedObjectIDs == tracked.rows.flatMap { $0 })
            #expect(controller.snapshot().sectionItemIdentifiers == tracked.rows)
            for (section, rows) in tracked.rows.enumerated() {
                for (row, id) in rows.enumerated() where row.isMultiple(of: 7) {
                    let path = IndexPath(row: row, section: section)
                    let object = controller.object(at: path)
                    #expect(object.objectID == id)
                    #expect(controller.indexPath(forObject: object) == path)
                    #expect(controller.indexPath(forObjectID: id) == path)
                }
            }
        }
    }

    @Test func untrackedResultsStayAsFetched() throws {
        var rng = SeededRandom(seed: 3)
        let stack = try Self.seeded(.sqlite, &rng, count: 40)
        let view = stack.context(name: "view")
        let controller = try view.performAndWait { try Self.controller(in: view, delegate: nil) }
        let before = view.performAndWait { controller.sectionedIDs }
        let writer = stack.context()
        let save = try writer.performAndWait {
            try RandomItems.edit(in: writer, &rng)
            return try writer.saveCapturingDidSave()
        }
        view.performAndWait {
            if let save { view.mergeChanges(fromContextDidSave: save) }
            #expect(controller.sectionedIDs == before)
        }
    }

    @Test func sectionsOutOfOrderAreRefusedAsInATrackedFetch() throws {
        var rng = SeededRandom(seed: 5)
        let stack = try Self.seeded(.sqlite, &rng, count: 30)
        let context = stack.context()
        context.performAndWait {
            var request = Self.request()
            request.sortCriteria = [SortCriterion("rank")]
            func error(delegate: ChangeRecorder?) -> ObjectGraphError? {
                let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context,
                    sectionNameKeyPath: "group")
                controller.delegate = delegate
                do {
                    try controller.performFetch()
                    return nil
                } catch {
                    return error
                }
            }
            let untracked = error(delegate: nil)
            #expect(untracked != nil)
            #expect(untracked.map(String.init(describing:)) == error(delegate: ChangeRecorder()).map(String.init(describing:)))
        }
    }

    /// Seeded random histories: the controller is fetched without a delegate, the store changes (merged
    /// saves and local edits), a delegate is set, then more changes come. The delegate's batches, applied
    /// to its rows with UIKit's semantics, give a tracked controller's results every time.
    @Test(arguments: [StoreKind.sqlite, .inMemory])
    func aDelegateSetLaterCatchesUpWithOneBatch(kind: StoreKind) throws {
        var caughtUp = 0
        for seed in UInt64(1)...40 {
            var rng = SeededRandom(seed: seed)
            let label = "\(kind) seed \(seed)"
            let stack = try Self.seeded(kind, &rng, count: Int.random(in: 0..<40, using: &rng))
            let view = stack.context(name: "view")
            let writer = stack.context(name: "writer")
            writer.mergePolicy = .mergeByPropertyObjectTrump
            view.mergePolicy = .mergeByPropertyObjectTrump
            let controller = try view.performAndWait { try Self.controller(in: view, delegate: nil) }
            var rows = view.performAndWait { controller.sectionedIDs }
            var names = view.performAndWait { (0..<controller.numberOfSections).compactMap(controller.sectionName(at:)) }
            let recorder = ChangeRecorder()

            for step in 0..<6 {
                let before = recorder.batches.count
                // Before the delegate (steps 0–2) these changes are not reported; step 3 sets it.
                if step == 3 {
                    view.performAndWait { controller.delegate = recorder }
                } else if Bool.random(using: &rng) {
                    let save = try writer.performAndWait {
                        try RandomItems.edit(in: writer, &rng)
                        return try writer.saveCapturingDidSave()
                    }
                    view.performAndWait {
                        if let save { view.mergeChanges(fromContextDidSave: save) }
                    }
                } else {
                    try view.performAndWait {
                        try RandomItems.edit(in: view, &rng)
                        // Permanent IDs first, so that the batch's inserted IDs are the ones saved.
                        try view.obtainPermanentIDs(for: Array(view.insertedObjects))
                        view.processPendingChanges()
                        try view.save()
                    }
                }
                guard step >= 3 else {
                    let unchanged = view.performAndWait { controller.sectionedIDs } == rows
                    #expect(unchanged, "\(label): untracked rows changed")
                    continue
                }
                let tracked = try Self.trackedResults(stack)
                let now = view.performAndWait { controller.sectionedIDs }
                let agrees = now == tracked.rows
                #expect(agrees, "\(label) step \(step): the controller differs from a tracked fetch")
                #expect(view.performAndWait { controller.untrackedResults == nil })
                #expect(recorder.protocolErrors.isEmpty, "\(label): \(recorder.protocolErrors)")
                let batches = recorder.batches[before...]
                #expect(batches.count <= 1, "\(label) step \(step): \(batches.count) batches")
                if let batch = batches.last {
                    if step == 3 { caughtUp += 1 }
                    #expect(Set(batch.reportedObjects).count == batch.reportedObjects.count, "\(label): reported twice")
                    for move in batch.changeset.movedRows where move.from == move.to {
                        #expect(names[move.from.section] != tracked.names[move.to.section],
                            "\(label): a move to the same index path \(move.from)")
                    }
                    #expect(throws: Never.self, "\(label)") {
                        try batch.changeset.validate(oldRowCounts: rows.map(\.count), newRowCounts: now.map(\.count))
                    }
                    let applies = batch.changeset.applied(to: rows) { batch.inserted[$0] } == now
                    #expect(applies, "\(label) step \(step): applying \(batch.changeset) does not give the new rows")
                } else {
                    let unchanged = rows == now
                    #expect(unchanged, "\(label) step \(step): rows changed without a callback")
                }
                rows = now
                names = tracked.names
            }
        }
        #expect(caughtUp >= 10, "only \(caughtUp) histories changed before the delegate came")
    }

    /// Core Data's controller fetches at most `fetchLimit` objects after skipping `fetchOffset`, as a plain
    /// fetch does: batched or not, tracked or not, with unsaved objects among the rows or not.
    @Test(arguments: [StoreKind.sqlite, .inMemory])
    func theFirstFetchHonoursLimitAndOffset(kind: StoreKind) throws {
        var rng = SeededRandom(seed: 21)
        let stack = try Self.seeded(kind, &rng, count: 60)
        let context = stack.context()
        try context.performAndWait {
            for pending in [false, true] {
                if pending {
                    for _ in 0..<5 { RandomItems.randomize(try context.insertNewObject(forEntityName: "Item"), &rng) }
                }
                for batchSize in [0, 4] {
                    for delegate in [nil, ChangeRecorder()] {
                        var request = Self.request()
                        request.fetchBatchSize = batchSize
                        request.fetchLimit = 17
                        request.fetchOffset = 9
                        let expected = try context.fetch(request).map(\.objectID)
                        #expect(expected.count == 17)
                        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context,
                            sectionNameKeyPath: "group")
                        controller.delegate = delegate
                        try controller.performFetch()
                        #expect(controller.fetchedObjectIDs == expected,
                            "pending \(pending), batch \(batchSize), tracked \(delegate != nil)")
                        withExtendedLifetime(delegate) {}
                    }
                }
            }
        }
    }

    @Test func aChangeStreamOnUntrackedResultsCatchesUpAtTheNextChange() async throws {
        var rng = SeededRandom(seed: 9)
        let stack = try Self.seeded(.sqlite, &rng, count: 20)
        let view = stack.context(name: "view")
        let controller = try view.performAndWait { try Self.controller(in: view, delegate: nil) }
        let stream = controller.changes()
        var iterator = stream.makeAsyncIterator()
        try view.performAndWait {
            let item = try view.insertNewObject(forEntityName: "Item")
            item["group"] = "0"
            item["name"] = "first"
            view.processPendingChanges()
        }
        let changeSet = await iterator.next()
        #expect(changeSet?.sectionChanges == [.init(name: "0", index: 0, type: .insert)])
        #expect(changeSet?.objectChanges.map(\.type) == [.insert])
        #expect(changeSet?.objectChanges.first?.newIndexPath == IndexPath(row: 0, section: 0))
        #expect(view.performAndWait { controller.numberOfFetchedObjects } == 21)
    }
}
