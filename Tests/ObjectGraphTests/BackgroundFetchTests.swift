import Foundation
import Testing
@testable import ObjectGraph

/// `performFetchInBackground(completion:)`: the store is read on another thread while the context goes on,
/// and the results put in place take in everything that changed meanwhile — so they are what a fetch made at
/// that moment gives.
@Suite struct BackgroundFetchTests {
    /// When a test waiting from now on for a background fetch gives up.
    private static var timeout: DispatchTime { .now() + 60 }

    /// Makes random edits in a context of its own, saves them and returns the did-save.
    private static func savedEdits(_ stack: TestStack, _ rng: inout SeededRandom) throws -> ContextDidSave? {
        let writer = stack.context(name: "writer")
        var local = rng
        defer { rng = local }
        return try writer.performAndWait {
            try RandomItems.edit(in: writer, &local)
            return try writer.saveCapturingDidSave()
        }
    }

    private static func request(predicate: FetchPredicate? = nil, batchSize: Int = 4) -> FetchRequest<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortCriteria = [SortCriterion("group"), SortCriterion("name", comparison: .localized),
            SortCriterion("rank", ascending: false)]
        request.predicate = predicate
        request.fetchBatchSize = batchSize
        return request
    }

    private static func seeded(_ rng: inout SeededRandom, count: Int) throws -> TestStack {
        let stack = try TestStack(.sqlite)
        let writer = stack.context()
        try writer.performAndWait {
            for _ in 0..<count { RandomItems.randomize(try writer.insertNewObject(forEntityName: "Item"), &rng) }
            try writer.save()
        }
        return stack
    }

    /// A view context on a store of `count` random items and a controller over them (not fetched yet).
    private static func seededController(seed: UInt64, count: Int, request: FetchRequest<ManagedObject> = request())
        throws -> (TestStack, ManagedObjectContext, FetchedResultsController<ManagedObject>)
    {
        var rng = SeededRandom(seed: seed)
        let stack = try seeded(&rng, count: count)
        let view = stack.context(name: "view")
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: view,
            sectionNameKeyPath: "group")
        return (stack, view, controller)
    }

    /// Makes the controller's next background fetches wait, before they read the store, for `mayRead`.
    private static func holdReads(of controller: AnyFetchedResultsController, until mayRead: DispatchSemaphore) {
        controller.managedObjectContext.performAndWait {
            controller.backgroundFetchHooks = BackgroundFetchHooks(willRead: { _ = mayRead.wait(timeout: Self.timeout) })
        }
    }

    /// Makes the controller's next background fetch wait before it reads the store (until `mayRead`), and
    /// after it read it (signalling `hasRead`) before its results are put in place (until `mayInstall`).
    private static func holdReadAndInstall(of controller: AnyFetchedResultsController)
        -> (mayRead: DispatchSemaphore, hasRead: DispatchSemaphore, mayInstall: DispatchSemaphore)
    {
        let (mayRead, hasRead, mayInstall) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0),
            DispatchSemaphore(value: 0))
        controller.managedObjectContext.performAndWait {
            controller.backgroundFetchHooks = BackgroundFetchHooks(
                willRead: { _ = mayRead.wait(timeout: Self.timeout) },
                didRead: {
                    hasRead.signal()
                    _ = mayInstall.wait(timeout: Self.timeout)
                })
        }
        return (mayRead, hasRead, mayInstall)
    }

    /// Starts a background fetch of `controller` on its context's queue and waits for its completion.
    static func fetchInBackground(_ controller: AnyFetchedResultsController) throws
        -> Result<Void, ObjectGraphError>
    {
        let started = start(controller)
        return try started.wait()
    }

    /// A background fetch started and not yet waited for.
    struct Started {
        let done = DispatchSemaphore(value: 0)
        let outcome = Unchecked<Result<Void, ObjectGraphError>?>(nil)

        func wait() throws -> Result<Void, ObjectGraphError> {
            guard done.wait(timeout: BackgroundFetchTests.timeout) == .success, let result = outcome.value else {
                Issue.record("The background fetch did not complete in time.")
                throw CancellationError()
            }
            return result
        }
    }

    static func start(_ controller: AnyFetchedResultsController) -> Started {
        let started = Started()
        controller.managedObjectContext.performAndWait {
            controller.performFetchInBackground { result in
                #expect(started.outcome.value == nil, "a completion called twice")
                started.outcome.value = result
                started.done.signal()
            }
        }
        return started
    }

    /// What a fetch made now in `context` gives: IDs per section and section names.
    private static func freshResults(in context: ManagedObjectContext, request: FetchRequest<ManagedObject>) throws
        -> ([[ManagedObjectID]], [String])
    {
        try context.performAndWait {
            let fresh = FetchedResultsController(fetchRequest: request, managedObjectContext: context,
                sectionNameKeyPath: "group")
            try fresh.performFetch()
            return (fresh.sectionedIDs, (0..<fresh.numberOfSections).compactMap(fresh.sectionName(at:)))
        }
    }

    private static func wasCancelled(_ result: Result<Void, ObjectGraphError>) -> Bool {
        if case .failure(.fetchCancelled) = result { return true }
        return false
    }

    private static func results(of controller: AnyFetchedResultsController) -> ([[ManagedObjectID]], [String]) {
        controller.managedObjectContext.performAndWait {
            (controller.sectionedIDs, (0..<controller.numberOfSections).compactMap(controller.sectionName(at:)))
        }
    }

    @Test func aBackgroundFetchGivesWhatAFetchGives() throws {
        var rng = SeededRandom(seed: 21)
        let stack = try Self.seeded(&rng, count: 400)
        let view = stack.context(name: "view")
        // Unsaved changes in the context join the store's rows, as in a fetch.
        try view.performAndWait { try RandomItems.edit(in: view, &rng) }
        let request = Self.request(predicate: try FetchPredicate(format: "rank >= 1"))
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: view,
            sectionNameKeyPath: "group")
        let recorder = ChangeRecorder()
        view.performAndWait { controller.delegate = recorder }
        try Self.fetchInBackground(controller).get()
        #expect(view.performAndWait { controller.lastFetchRanInBackground })
        let expected = try Self.freshResults(in: view, request: request)
        #expect(expected.0.joined().count > 100)
        #expect(Self.results(of: controller) == expected)
        #expect(recorder.batches.isEmpty)
    }

    /// Saves of other contexts made and merged (in order, as a context merges them) at random moments: before
    /// the store is read, after it was read, after the results are in place; and local edits at each step. Once
    /// every save is merged, the results equal a fetch made then, and changes after that are tracked as usual.
    @Test(arguments: 1...40)
    func changesWhileTheFetchRunsJoinItsResults(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let stack = try Self.seeded(&rng, count: 120)
        let view = stack.context(name: "view")
        let request = Self.request(predicate: seed.isMultiple(of: 2) ? try FetchPredicate(format: "rank != 2") : nil)
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: view,
            sectionNameKeyPath: "group")
        let recorder = ChangeRecorder()
        try view.performAndWait {
            controller.delegate = recorder
            try controller.performFetch()
            try RandomItems.edit(in: view, &rng)
        }
        var saves: [ContextDidSave] = []
        var merged = 0
        /// Saves two batches of edits elsewhere, merges some of the saves not merged yet, edits locally.
        func changeSomething() throws {
            saves += try (0..<2).compactMap { _ in try Self.savedEdits(stack, &rng) }
            let upTo = Int.random(in: merged...saves.count, using: &rng)
            try view.performAndWait {
                for save in saves[merged..<upTo] { view.mergeChanges(fromContextDidSave: save) }
                try RandomItems.edit(in: view, &rng)
            }
            merged = upTo
        }
        let (mayRead, hasRead, mayInstall) = Self.holdReadAndInstall(of: controller)
        let started = Self.start(controller)
        try changeSomething()
        mayRead.signal()
        #expect(hasRead.wait(timeout: Self.timeout) == .success)
        try changeSomething()
        mayInstall.signal()
        try started.wait().get()
        // The saves merged only now (made before or after the read) are tracked as usual; then a local save and
        // one more merge.
        view.performAndWait {
            for save in saves[merged...] { view.mergeChanges(fromContextDidSave: save) }
        }
        #expect(Self.results(of: controller) == (try Self.freshResults(in: view, request: request)))
        try view.performAndWait { try view.save() }
        let last = try Self.savedEdits(stack, &rng)
        view.performAndWait { if let last { view.mergeChanges(fromContextDidSave: last) } }
        #expect(Self.results(of: controller) == (try Self.freshResults(in: view, request: request)))
        #expect(recorder.protocolErrors.isEmpty)
    }

    @Test func theShownResultsStayTrackedUnderTheirOwnRequestWhileTheFetchRuns() throws {
        let old = Self.request(predicate: try FetchPredicate(format: "rank >= 2"))
        let (stack, view, controller) = try Self.seededController(seed: 8, count: 60, request: old)
        let recorder = ChangeRecorder()
        let mayRead = DispatchSemaphore(value: 0)
        try view.performAndWait {
            controller.delegate = recorder
            try controller.performFetch()
            controller.fetchRequest.predicate = try FetchPredicate(format: "rank < 2")
        }
        Self.holdReads(of: controller, until: mayRead)
        let started = Self.start(controller)
        // Two new items, one for each request: the shown results take the one their own request matches.
        let writer = stack.context(name: "writer")
        let save = try writer.performAndWait {
            for rank in [Int64(0), 3] {
                let item = try writer.insertNewObject(forEntityName: "Item")
                item["group"] = "C"
                item["rank"] = rank
            }
            return try writer.saveCapturingDidSave()
        }
        view.performAndWait { if let save { view.mergeChanges(fromContextDidSave: save) } }
        #expect(Self.results(of: controller) == (try Self.freshResults(in: view, request: old)))
        #expect(recorder.batches.count == 1)
        #expect(recorder.batches.first?.changeset.insertedRows.count == 1)
        mayRead.signal()
        try started.wait().get()
        let new = view.performAndWait { controller.fetchRequest }
        #expect(Self.results(of: controller) == (try Self.freshResults(in: view, request: new)))
    }

    @Test func aLaterFetchCancelsOneStillRunning() throws {
        let (stack, view, controller) = try Self.seededController(seed: 4, count: 50)
        defer { withExtendedLifetime(stack) {} }  // (its folder holds the store)
        let mayRead = DispatchSemaphore(value: 0)
        Self.holdReads(of: controller, until: mayRead)
        let first = Self.start(controller)
        let narrowed = Self.request(predicate: try FetchPredicate(format: "group == 'B'"))
        view.performAndWait {
            controller.fetchRequest = narrowed
            controller.backgroundFetchHooks = nil
        }
        let second = Self.start(controller)
        try second.wait().get()
        mayRead.signal()
        #expect(Self.wasCancelled(try first.wait()))
        // The cancelled fetch, finishing later, changes nothing.
        let late = Self.start(controller)
        try late.wait().get()
        #expect(Self.results(of: controller) == (try Self.freshResults(in: view, request: narrowed)))
        #expect(Self.results(of: controller).1 == ["B"])

        // A synchronous fetch cancels one still running, too.
        Self.holdReads(of: controller, until: mayRead)
        let third = Self.start(controller)
        try view.performAndWait {
            controller.fetchRequest = Self.request()
            try controller.performFetch()
        }
        mayRead.signal()
        #expect(Self.wasCancelled(try third.wait()))
        #expect(Self.results(of: controller) == (try Self.freshResults(in: view, request: Self.request())))
    }

    @Test func aResetWhileTheFetchRunsCancelsIt() throws {
        let (stack, view, controller) = try Self.seededController(seed: 6, count: 30)
        defer { withExtendedLifetime(stack) {} }  // (its folder holds the store)
        let mayRead = DispatchSemaphore(value: 0)
        Self.holdReads(of: controller, until: mayRead)
        let started = Self.start(controller)
        view.performAndWait { view.reset() }
        mayRead.signal()
        #expect(Self.wasCancelled(try started.wait()))
        #expect(view.performAndWait { controller.fetchedObjectIDs } == nil)
    }

    @Test func aFailedBackgroundFetchLeavesTheResultsAsTheyWere() throws {
        let (stack, view, controller) = try Self.seededController(seed: 9, count: 40)
        defer { withExtendedLifetime(stack) {} }  // (its folder holds the store)
        try view.performAndWait { try controller.performFetch() }
        let before = Self.results(of: controller)
        try view.performAndWait { controller.fetchRequest.predicate = try FetchPredicate(format: "rank > 1 AND bogus == 1") }
        let result = try Self.fetchInBackground(controller)
        guard case .failure(let error) = result else {
            Issue.record("A predicate naming an unknown key fetched: \(result)")
            return
        }
        #expect("\(error)".contains("bogus"))
        #expect(Self.results(of: controller) == before)
    }

    /// Requests a background fetch does not take (without a batch size, or with a limit) are fetched on the
    /// context's queue: the completion still comes later, with the same results.
    @Test(arguments: [false, true])
    func requestsThatCannotBeReadInBackgroundAreFetchedAsUsual(limited: Bool) throws {
        var rng = SeededRandom(seed: 12)
        let stack = try Self.seeded(&rng, count: 50)
        let view = stack.context(name: "view")
        var request = Self.request(batchSize: limited ? 4 : 0)
        if limited { request.fetchLimit = 20 }
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: view,
            sectionNameKeyPath: "group")
        let returned = Unchecked(false)
        let started = Started()
        view.performAndWait {
            controller.performFetchInBackground { result in
                // Called after the call returned, not inside it.
                #expect(returned.value)
                started.outcome.value = result
                started.done.signal()
            }
            returned.value = true
        }
        try started.wait().get()
        #expect(!view.performAndWait { controller.lastFetchRanInBackground })
        #expect(Self.results(of: controller) == (try Self.freshResults(in: view, request: request)))
    }

    /// A child context's background fetch reads its parent (on the parent's queue) while workers below the
    /// child push their saves into it and the child edits, pushes into the parent, and edits again.
    @Test(arguments: 1...24)
    func aChildContextReadsItsParentInBackground(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let stack = try Self.seeded(&rng, count: 80)
        let writer = stack.context(name: "writer")
        let view = child(of: writer, name: "view")
        let request = Self.request(predicate: try FetchPredicate(format: "rank != 1"))
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: view,
            sectionNameKeyPath: "group")
        let recorder = ChangeRecorder()
        try view.performAndWait {
            controller.delegate = recorder
            try controller.performFetch()
            try RandomItems.edit(in: view, &rng)
        }
        func pushFromAWorker() throws { try RandomItems.pushEdits(into: view, &rng) }
        let (mayRead, hasRead, mayInstall) = Self.holdReadAndInstall(of: controller)
        let started = Self.start(controller)
        try pushFromAWorker()
        try view.performAndWait {
            try RandomItems.edit(in: view, &rng)
            if seed.isMultiple(of: 2) { try view.save() }
        }
        mayRead.signal()
        #expect(hasRead.wait(timeout: Self.timeout) == .success)
        try pushFromAWorker()
        try view.performAndWait { try RandomItems.edit(in: view, &rng) }
        mayInstall.signal()
        try started.wait().get()
        #expect(view.performAndWait { controller.lastFetchRanInBackground })
        #expect(Self.results(of: controller) == (try Self.freshResults(in: view, request: request)))
        // Tracked as usual afterwards, through a push into the parent and the parent's save too.
        try pushFromAWorker()
        try view.performAndWait { try view.save() }
        try writer.performAndWait { try writer.save() }
        // (Results the permanent IDs move are re-placed with the next change batch: one more.)
        try pushFromAWorker()
        #expect(Self.results(of: controller) == (try Self.freshResults(in: view, request: request)))
        #expect(recorder.protocolErrors.isEmpty)
    }
}
