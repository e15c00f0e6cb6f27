import Foundation
import Testing
@testable import ObjectGraph

/// A controller on a child context (the view of a writer → view → workers stack) whose parent saves to the
/// store: its results follow the permanent IDs the parent's save gives objects pushed up from the child — in
/// place when the new ID keeps the order, with the next change batch otherwise.
@Suite struct ChildControllerPermanentIDTests {
    private static func request() -> FetchRequest<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortCriteria = [SortCriterion("group"), SortCriterion("name", comparison: .localized),
            SortCriterion("rank", ascending: false)]
        request.predicate = try? FetchPredicate(format: "rank != 1")
        request.fetchBatchSize = 4
        return request
    }

    @Test(arguments: 1...24)
    func resultsFollowPermanentIDsAfterTheParentSaves(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let stack = try TestStack(.sqlite)
        let writer = stack.context(name: "writer")
        try writer.performAndWait {
            for _ in 0..<80 { RandomItems.randomize(try writer.insertNewObject(forEntityName: "Item"), &rng) }
            try writer.save()
        }
        let view = child(of: writer, name: "view")
        let controller = FetchedResultsController(fetchRequest: Self.request(), managedObjectContext: view,
            sectionNameKeyPath: "group")
        let recorder = ChangeRecorder()
        try view.performAndWait {
            controller.delegate = recorder
            try controller.performFetch()
        }
        func pushFromAWorker() throws { try RandomItems.pushEdits(into: view, &rng) }
        for round in 0..<3 {
            try pushFromAWorker()
            try view.performAndWait {
                try RandomItems.edit(in: view, &rng)
                if round.isMultiple(of: 2) || seed.isMultiple(of: 2) { try view.save() }
            }
        }
        try view.performAndWait { try view.save() }
        try writer.performAndWait { try writer.save() }
        // Results whose permanent ID would move them are re-placed with the next change batch (moving rows
        // while a table reads them is not allowed), so one more change comes before the comparison.
        try pushFromAWorker()
        let shown = view.performAndWait { controller.sectionedIDs }
        let fresh = try view.performAndWait {
            let fresh = FetchedResultsController(fetchRequest: Self.request(), managedObjectContext: view,
                sectionNameKeyPath: "group")
            try fresh.performFetch()
            return fresh.sectionedIDs
        }
        #expect(shown == fresh)
        #expect(recorder.protocolErrors.isEmpty)
    }
}
