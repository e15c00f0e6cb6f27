import Foundation

extension AnyFetchedResultsController {
    /// Fetches on another thread, as ``performFetchInBackground(completion:)`` does; with `narrowing`, by testing
    /// only the current results against the new request instead of reading the store from the start.
    ///
    /// Pass `narrowingCurrentResults: true` when the ``fetchRequest`` now selects some of the objects the current
    /// results hold and nothing else: its predicate implies the one the results were fetched with, as
    /// `name CONTAINS[cd] "mull"` implies `name CONTAINS[cd] "mul"` (the words typed into a search field, one more
    /// letter each time). The controller then asks the store which of its current results match the new
    /// predicate, a few thousand at a time by their keys, and keeps those in their order and sections: nothing is
    /// sorted, and no sort or section key is read again. On a long table this is much cheaper than the full
    /// fetch when the current results are a small part of it, or when the new predicate cannot use an index
    /// (a text search index needs three characters; see <doc:Fetching>); the caller, who knows both, decides.
    ///
    /// The answer is the full fetch's, provided the promise holds: each current result is tested with the same
    /// query, in the store, and the context's unsaved changes are placed as after any background fetch. Objects
    /// that are not among the current results are not looked at: were the promise broken (a predicate that
    /// admits new objects), they would be missing until the next full fetch. The controller falls back to the
    /// full background fetch by itself when the current results cannot be narrowed: before the first fetch,
    /// while they come from a section cache still being read, while nothing tracks their changes (no delegate
    /// and no change stream, so they may be out of date), when some are a parent context's unsaved objects, when
    /// the request's entity, sort, stores, limit or offset differ from the results', or when a store it reads is not
    /// an SQLite store (the others test every row in memory for any query, so a narrowing would cost more than a
    /// fetch). Core Data has no such
    /// call; its answer to typing is a new fetch each time.
    ///
    /// - Parameters:
    ///   - narrowing: whether the new request selects a subset of the current results (see above).
    ///   - completion: as for ``performFetchInBackground(completion:)``.
    public func performFetchInBackground(
        narrowingCurrentResults narrowing: Bool, completion: @escaping (Result<Void, ObjectGraphError>) -> Void
    ) {
        managedObjectContext.checkQueue("performFetchInBackground(completion:)")
        startBackgroundFetch(narrowing: narrowing, completion: completion)
    }

    /// The plan that tests the current results against ``fetchRequest``, with the fetch plan and the context's
    /// unsaved objects it leaves out; nil when the results cannot be narrowed (see
    /// ``performFetchInBackground(narrowingCurrentResults:completion:)``).
    func narrowingFetchPlan() -> (any BackgroundResultsReader, FetchPlan, [ManagedObject])? {
        let request = fetchRequest
        let current = resultsRequest
        guard hasFetched, isTracking, !missedChanges, case .indexed = core.form,
            let predicate = request.predicate, request.entityName == current.entityName,
            request.sortCriteria == current.sortCriteria, request.includesSubentities == current.includesSubentities,
            request.fetchLimit <= 0, request.fetchOffset <= 0, current.fetchLimit <= 0, current.fetchOffset <= 0,
            Self.sameStores(request.affectedStores, current.affectedStores),
            let (source, entity, model, fetchPlan) = backgroundSource(for: request),
            Self.findsRowsByKey(request, entity: entity, coordinator: managedObjectContext.persistentStoreCoordinator)
        else { return nil }
        let pending = Array(pendingTrackedObjects(among: fetchPlan.trackedEntityNames))
        // Results under temporary IDs are left out and placed from memory when they are the context's own unsaved
        // objects; a parent's unsaved objects (in a child context) have no row to test.
        let pendingIDs = Set(pending.map(\.objectID))
        guard temporaryPlacements.byObject.values.allSatisfy({ pendingIDs.contains($0.id) }) else { return nil }
        let reader = NarrowingFetchPlan(source: source, entity: entity, model: model, request: request,
            predicate: predicate, results: indexStorage, names: names, namespaces: namespaces,
            leftOut: pendingIDs, hooks: backgroundFetchHooks)
        return (reader, fetchPlan, pending)
    }

    /// Whether every store `request` reads finds a group of rows by primary key without testing the others: the
    /// SQLite store does (`Z_PK IN (…)`); the in-memory, atomic and PostgreSQL stores answer from their rows in
    /// memory, testing every one of them against each group, which would cost a full fetch per group.
    private static func findsRowsByKey(
        _ request: FetchRequest<ManagedObject>, entity: EntityDescription, coordinator: PersistentStoreCoordinator?
    ) -> Bool {
        guard let coordinator, let stores = try? coordinator.stores(forFetching: entity,
            includesSubentities: request.includesSubentities, affectedStores: request.affectedStores)
        else { return false }
        return !stores.isEmpty && stores.allSatisfy { $0.type == .sqlite }
    }

    /// Whether two requests' ``FetchRequest/affectedStores`` name the same stores (nil: all of them).
    private static func sameStores(_ lhs: [PersistentStore]?, _ rhs: [PersistentStore]?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): true
        case (let left?, let right?): Set(left.map(ObjectIdentifier.init)) == Set(right.map(ObjectIdentifier.init))
        default: false
        }
    }
}
