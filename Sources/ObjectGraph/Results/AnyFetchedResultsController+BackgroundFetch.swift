import Foundation

extension AnyFetchedResultsController {
    /// Fetches the results on another thread, so that the context's queue (the user interface, for a
    /// main-queue context) is not held up by a long query, and calls `completion` on the context's queue
    /// once the new results are in place.
    ///
    /// Until then the controller keeps its previous results and, while it has a delegate, keeps reporting
    /// their changes as before; the new results replace them in one step, as ``performFetch()`` would, and
    /// take in everything that changed in the context while they were read (merged saves, local edits,
    /// unsaved changes). Reload the table in `completion`, as after ``performFetch()``. Changing
    /// ``fetchRequest`` while a background fetch runs does not affect it or the results being shown.
    ///
    /// The store (for a child context, the parent, on the parent's queue) is read on another thread when the
    /// request has a ``FetchRequest/fetchBatchSize`` and no limit or offset, and its sort and section keys are
    /// stored attributes; otherwise the results are fetched as ``performFetch()`` fetches them, on the
    /// context's queue, and `completion` still runs later. With a ``cacheName``, a current section cache is
    /// read as ``performFetch()`` reads it (at once, on the queue); otherwise the results read on the other
    /// thread are written to the cache there, under the same rules as ``performFetch()``'s. Core Data has no
    /// such call for its controller: its asynchronous fetch request fills a context, not a controller.
    ///
    /// A later ``performFetch()`` or `performFetchInBackground(completion:)` cancels a background fetch still
    /// running (in the SQLite store its query stops at once); its completion then receives
    /// ``ObjectGraphError/fetchCancelled``, and so does one whose context was reset meanwhile. Every completion is called exactly once, on the context's queue, after
    /// this call returns.
    ///
    /// - Parameter completion: the outcome: success, or the error ``performFetch()`` would throw (the results
    ///   then stay as they were), or ``ObjectGraphError/fetchCancelled``.
    public func performFetchInBackground(completion: @escaping (Result<Void, ObjectGraphError>) -> Void) {
        performFetchInBackground(narrowingCurrentResults: false, completion: completion)
    }

    /// Starts a background fetch (see ``performFetchInBackground(completion:)``): testing only the current
    /// results when `narrowing` and ``narrowingFetchPlan()`` allow it, else reading the store.
    func startBackgroundFetch(narrowing: Bool, completion: @escaping (Result<Void, ObjectGraphError>) -> Void) {
        cancelBackgroundFetch()
        let context = managedObjectContext
        let finish = QueueBound(completion)
        func later(_ result: Result<Void, ObjectGraphError>) {
            context.perform { finish.value(result) }
        }
        let chosen: (any BackgroundResultsReader, FetchPlan, [ManagedObject])?
        if narrowing, let narrowed = narrowingFetchPlan() {
            chosen = narrowed
            lastFetchNarrowed = true
        } else {
            chosen = backgroundFetchPlan()
            lastFetchNarrowed = false
        }
        guard let (readPlan, fetchPlan, pending) = chosen else {
            lastFetchRanInBackground = false
            later(Result { () throws(ObjectGraphError) in try performFetch() })
            return
        }
        let fetch = BackgroundFetch(plan: fetchPlan, completion: completion,
            pendingAtStart: pending)
        fetch.observation = context.addObjectsDidChangeObserver { [weak self, weak fetch] change in
            guard let self, let fetch else { return }
            self.record(change, during: fetch)
        }
        backgroundFetch = fetch
        lastFetchRanInBackground = true
        let ticket = fetch.ticket
        let controller = QueueBound(self)
        DispatchQueue.global(qos: .userInitiated).async {
            let outcome = Result { () throws(ObjectGraphError) in try readPlan.run(ticket) }
            context.perform { controller.value.install(outcome, ticket: ticket) }
            // The section cache is written meanwhile: a million results take most of a second to write.
            if case .success(let results) = outcome, let write = results.cacheWrite {
                // (Results the cache turned out not to hold — a save came in meanwhile — are left to
                // `writeCache()`.)
                if !write.perform() { context.perform { controller.value.cacheIsStale = true } }
                readPlan.hooks?.didWriteCache()
            }
        }
    }

    /// Cancels the background fetch in flight, if any: its completion hears ``ObjectGraphError/fetchCancelled``.
    func cancelBackgroundFetch() {
        guard let fetch = backgroundFetch else { return }
        backgroundFetch = nil
        fetch.ticket.cancel()
        fetch.observation = nil
        let finish = QueueBound(fetch.completion)
        managedObjectContext.perform { finish.value(.failure(.fetchCancelled)) }
    }

    /// Notes what changed in the context while a background fetch ran; a reset cancels it (the unsaved
    /// changes whose rows it left out are gone).
    private func record(_ change: ObjectsDidChange, during fetch: BackgroundFetch) {
        guard fetch === backgroundFetch else { return }
        let recorded = change.recorded.changes
        if recorded.invalidatedAll {
            cancelBackgroundFetch()
            return
        }
        for (object, kind) in zip(recorded.objects, recorded.kinds) {
            guard let kind else { continue }
            fetch.note(object, deleted: kind == .deleted)
        }
    }

    /// Puts the results of a finished background fetch in place (unless a later fetch cancelled it), places
    /// the objects that changed meanwhile among them, and calls the completion.
    func install(_ outcome: Result<BackgroundFetchResults, ObjectGraphError>, ticket: FetchTicket) {
        guard let fetch = backgroundFetch, fetch.ticket === ticket else { return }
        backgroundFetch = nil
        fetch.observation = nil
        let results: BackgroundFetchResults
        switch outcome {
        case .failure(let error):
            fetch.completion(.failure(error))
            return
        case .success(let fetched):
            results = fetched
        }
        // The results being replaced are freed on another thread: a million entries take a third of a second to
        // free, which would stall the queue as much as a synchronous fetch's reading does.
        // (Handed over once the controller no longer holds them, so that the last reference goes there.)
        let replaced = ReplacedResults(index: indexStorage, orderBytesByID: orderBytesByIDStorage, untracked: untrackedResults)
        // Results under temporary IDs, found while the old placements still hold their objects (a saved object
        // nothing else holds leaves the context once they let go), and before the context adopts the permanent
        // IDs its parent gave them meanwhile (the results then follow, as after any such change).
        var newTemporaryPlacements = TemporaryPlacements()
        for id in results.temporaryIDs {
            if let object = managedObjectContext.registered(id) { newTemporaryPlacements[ObjectIdentifier(object)] = (object, id) }
        }
        plan = fetch.plan
        keyAttributePositionsByEntity = [:]
        loadedBatches = []
        untrackedResults = nil
        index = results.index
        runs = results.runs
        names = results.names
        namespaces = results.namespaces
        orderBytesByIDStorage = results.orderBytesByID
        temporaryPlacements = newTemporaryPlacements
        DispatchQueue.global(qos: .utility).async { withExtendedLifetime(replaced) {} }
        resultsCameFromCache = false
        hasFetched = true
        missedChanges = false
        seenObjectIDGeneration = managedObjectContext.objectIDGeneration
        managedObjectContext.adoptPendingPermanentIDs()
        // Objects whose rows were left out (unsaved changes then), that changed since, or that have unsaved
        // changes now: each placed from its values in memory, once.
        // (What happened to an object since it was left out, a merged deletion say, decides over its having been
        // left out; its unsaved state now decides over both.)
        for object in fetch.pendingAtStart where !fetch.hasNoted(object) { fetch.note(object, deleted: false) }
        for object in pendingTrackedObjects(among: trackedEntityNames) { fetch.note(object, deleted: object.isDeleted) }
        let deleted = fetch.noted.filter(\.deleted).map(\.object)
        let changed = fetch.noted.filter { !$0.deleted }.map(\.object)
        // (Results whose objects took permanent IDs just now are re-placed here too, before anyone reads them.)
        if !deleted.isEmpty || !changed.isEmpty || !temporaryPlacements.isEmpty {
            applyChanges(deleted: deleted, changed: changed, insertedCount: 0,
                changedAttributes: [AttributeBits](repeating: .all, count: changed.count), reporting: false)
        }
        seenObjectIDGeneration = managedObjectContext.objectIDGeneration
        if observation == nil {
            observation = managedObjectContext.addObjectsDidChangeObserver(followingObjectIDs: true) {
                [weak self] change in
                self?.contextDidChange(change)
            }
        }
        // (Results no cache write will hold are written by `writeCache()`.)
        cacheIsStale = cacheName != nil && results.cacheWrite == nil
        reportInitialSnapshot()
        fetch.completion(.success(()))
    }

    /// Where a background fetch of `request` reads its rows, its entity and model, and its fetch plan; nil when
    /// the context has no coordinator or the model no such entity.
    func backgroundSource(for request: FetchRequest<ManagedObject>)
        -> (any ObjectSource, EntityDescription, ManagedObjectModel, FetchPlan)?
    {
        guard let coordinator = managedObjectContext.persistentStoreCoordinator,
            let entity = coordinator.managedObjectModel.entity(named: request.entityName),
            var source = try? managedObjectContext.objectSource()
        else { return nil }
        // A child context's rows are its parent's state, read on the parent's queue; the child adopts the
        // parent's new permanent IDs when the results are back on its own queue.
        if var parentSource = source as? ParentContextObjectSource {
            parentSource.adoptsInChild = false
            source = parentSource
        }
        let model = coordinator.managedObjectModel
        let fetchPlan = FetchPlan(request: request, sectionNaming: sectionNaming, entity: entity, model: model,
            coordinator: coordinator)
        return (source, entity, model, fetchPlan)
    }

    /// What a background fetch reads and how it places rows, and the context's unsaved objects it leaves out of
    /// the rows, when the request allows one (see ``performFetchInBackground(completion:)``); nil otherwise.
    private func backgroundFetchPlan() -> (any BackgroundResultsReader, FetchPlan, [ManagedObject])? {
        let request = fetchRequest
        let context = managedObjectContext
        guard !request.sortCriteria.isEmpty, request.fetchBatchSize > 0,
            request.fetchLimit <= 0, request.fetchOffset <= 0,
            let (source, entity, model, fetchPlan) = backgroundSource(for: request)
        else { return nil }
        guard keysAreStoredAttributes(model: model, among: fetchPlan.trackedEntityNames) else { return nil }
        // A current section cache is read at once, with no query, by the fetch on the queue; the results read
        // here are written to it (a child context's only if no ancestor answered from unsaved changes).
        let pending = Array(pendingTrackedObjects(among: fetchPlan.trackedEntityNames))
        let readable = usableSectionCache(for: request, trackedEntityNames: fetchPlan.trackedEntityNames, model: model,
            hasPendingChanges: !pending.isEmpty)
        if let readable, readable.isCurrent() { return nil }
        var ancestorReads: (@Sendable () -> Int)?
        if context.parent != nil {
            ancestorReads = { @Sendable in context.readsOfUnsavedAncestorState.load(ordering: .relaxed) }
        }
        let readPlan = BackgroundFetchPlan(source: source, entity: entity, model: model, request: request,
            keys: request.sortCriteria.map(\.key) + (sectionNaming?.keys ?? []), sectionNaming: sectionNaming,
            ordering: fetchPlan.ordering, leftOut: Set(pending.map(\.objectID)), cache: readable,
            readsOfUnsavedAncestorState: ancestorReads, hooks: backgroundFetchHooks)
        return (readPlan, fetchPlan, pending)
    }
}

/// Results a background fetch replaced, on their way to be freed on another thread.
private struct ReplacedResults: Sendable {
    let index: ResultsIndex
    let orderBytesByID: OrderBytesByID?
    let untracked: [ResultID]?
}
