import Foundation
import Testing
@testable import ObjectGraph

/// `performFetchInBackground(narrowingCurrentResults: true)`: a narrower request tests only the current results,
/// and gives exactly what a full fetch gives — with unsaved edits in the context, saves merged between the
/// steps, nils, ties and emptied sections.
@Suite struct NarrowingFetchTests {
    private static var timeout: DispatchTime { .now() + 60 }

    fileprivate static func request(predicate: FetchPredicate?) -> FetchRequest<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortCriteria = [SortCriterion("group"), SortCriterion("name", comparison: .localized),
            SortCriterion("rank", ascending: false)]
        request.predicate = predicate
        request.fetchBatchSize = 4
        return request
    }

    /// Runs a background fetch (narrowing or not) of `controller` and waits for it.
    private static func fetch(_ controller: AnyFetchedResultsController, narrowing: Bool) throws {
        let done = DispatchSemaphore(value: 0)
        let outcome = Unchecked<Result<Void, ObjectGraphError>?>(nil)
        controller.managedObjectContext.performAndWait {
            controller.performFetchInBackground(narrowingCurrentResults: narrowing) { result in
                outcome.value = result
                done.signal()
            }
        }
        guard done.wait(timeout: timeout) == .success, let result = outcome.value else {
            Issue.record("The background fetch did not complete in time.")
            throw CancellationError()
        }
        try result.get()
    }

    /// IDs per section and section names of a fetch made now.
    private static func fresh(in context: ManagedObjectContext, request: FetchRequest<ManagedObject>) throws
        -> ([[ManagedObjectID]], [String])
    {
        try context.performAndWait {
            let fresh = FetchedResultsController(fetchRequest: request, managedObjectContext: context,
                sectionNameKeyPath: "group")
            try fresh.performFetch()
            return (fresh.sectionedIDs, (0..<fresh.numberOfSections).compactMap(fresh.sectionName(at:)))
        }
    }

    private static func shown(_ controller: AnyFetchedResultsController) -> ([[ManagedObjectID]], [String]) {
        controller.managedObjectContext.performAndWait {
            (controller.sectionedIDs, (0..<controller.numberOfSections).compactMap(controller.sectionName(at:)))
        }
    }

    /// One more condition, random: a predicate implied by nothing but itself, ANDed to the current one.
    private static func narrower(_ rng: inout SeededRandom) throws -> FetchPredicate {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return try FetchPredicate(format: "rank >= %@", Int64.random(in: 0..<3, using: &rng))
        case 1:
            let letters = ["a", "e", "o", "z", "d", "é"]
            return try FetchPredicate(format: "name CONTAINS[cd] %@", letters[Int.random(in: 0..<letters.count, using: &rng)])
        case 2: return try FetchPredicate(format: "group != %@", RandomItems.groups[Int.random(in: 0..<5, using: &rng)])
        default: return try FetchPredicate(format: "name != nil")
        }
    }

    /// A store of random items, a writer context on it, and a merging view context with a controller over every
    /// item, fetched (tracked by a delegate when asked).
    private struct Fixture {
        let stack: TestStack
        let writer: ManagedObjectContext
        let view: ManagedObjectContext
        let controller: FetchedResultsController<ManagedObject>
        let recorder = ChangeRecorder()
        var rng: SeededRandom

        init(seed: UInt64, count: Int, tracked: Bool, kind: StoreKind = .sqlite) throws {
            var local = SeededRandom(seed: seed)
            let stack = try TestStack(kind)
            let writer = stack.context(name: "writer")
            try writer.performAndWait {
                for _ in 0..<count { RandomItems.randomize(try writer.insertNewObject(forEntityName: "Item"), &local) }
                try writer.save()
            }
            let view = stack.context(name: "view")
            view.performAndWait { view.automaticallyMergesChangesFromParent = true }
            let controller = FetchedResultsController(fetchRequest: NarrowingFetchTests.request(predicate: nil),
                managedObjectContext: view, sectionNameKeyPath: "group")
            let recorder = recorder
            try view.performAndWait {
                if tracked { controller.delegate = recorder }
                try controller.performFetch()
            }
            (self.stack, self.writer, self.view, self.controller, rng) = (stack, writer, view, controller, local)
        }
    }

    @Test(arguments: 1...30)
    func narrowingGivesWhatAFullFetchGives(seed: UInt64) throws {
        // (A few stores are larger than a narrowing's group of results.)
        let fixture = try Fixture(seed: seed, count: seed <= 2 ? 9000 : 300, tracked: true)
        let (writer, view, controller) = (fixture.writer, fixture.view, fixture.controller)
        var rng = fixture.rng
        var predicate: FetchPredicate?
        for _ in 0..<4 {
            // Saved elsewhere and merged, and unsaved here: both must be in the narrowed results as in a fetch.
            var local = rng
            try writer.performAndWait {
                try RandomItems.edit(in: writer, &local)
                try writer.save()
            }
            try view.performAndWait { try RandomItems.edit(in: view, &local) }
            rng = local
            let next = try Self.narrower(&rng)
            predicate = predicate.map { .and([$0, next]) } ?? next
            view.performAndWait { controller.fetchRequest.predicate = predicate }
            try Self.fetch(controller, narrowing: true)
            #expect(view.performAndWait { controller.lastFetchNarrowed })
            #expect(Self.shown(controller) == (try Self.fresh(in: view, request: Self.request(predicate: predicate))))
            // Changes after a narrowing are tracked as usual.
            try view.performAndWait { try RandomItems.edit(in: view, &local) }
            #expect(Self.shown(controller) == (try Self.fresh(in: view, request: Self.request(predicate: predicate))))
        }
    }

    @Test func resultsNothingTracksAreFetchedInFull() throws {
        let fixture = try Fixture(seed: 5, count: 50, tracked: false)
        let (view, controller) = (fixture.view, fixture.controller)
        // Nothing tracks these results: a save merged meanwhile may have changed which objects match.
        let predicate = try FetchPredicate(format: "rank >= 2")
        view.performAndWait { controller.fetchRequest.predicate = predicate }
        try Self.fetch(controller, narrowing: true)
        #expect(!view.performAndWait { controller.lastFetchNarrowed })
        #expect(Self.shown(controller) == (try Self.fresh(in: view, request: Self.request(predicate: predicate))))
    }

    /// Stores that keep their rows in memory test every row for any query: narrowing there would cost a fetch per
    /// group of results, so the controller fetches in full.
    @Test func aStoreInMemoryIsFetchedInFull() throws {
        let fixture = try Fixture(seed: 7, count: 50, tracked: true, kind: .inMemory)
        let (view, controller) = (fixture.view, fixture.controller)
        let predicate = try FetchPredicate(format: "rank >= 1")
        view.performAndWait { controller.fetchRequest.predicate = predicate }
        try Self.fetch(controller, narrowing: true)
        #expect(!view.performAndWait { controller.lastFetchNarrowed })
        #expect(Self.shown(controller) == (try Self.fresh(in: view, request: Self.request(predicate: predicate))))
    }

    @Test func aChangedSortIsFetchedInFull() throws {
        let fixture = try Fixture(seed: 6, count: 50, tracked: true)
        let (view, controller) = (fixture.view, fixture.controller)
        var request = Self.request(predicate: try FetchPredicate(format: "rank >= 1"))
        request.sortCriteria = [SortCriterion("group"), SortCriterion("rank")]
        view.performAndWait { controller.fetchRequest = request }
        try Self.fetch(controller, narrowing: true)
        #expect(!view.performAndWait { controller.lastFetchNarrowed })
        #expect(Self.shown(controller) == (try Self.fresh(in: view, request: request)))
    }
}
