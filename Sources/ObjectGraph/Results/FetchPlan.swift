import Foundation

/// What a controller's fetch decided, once per ``AnyFetchedResultsController/performFetch()`` (or background
/// fetch), and what every later change batch and object access follows until the next fetch: the request the
/// results were fetched with, their order, the entities it tracks, the related key paths whose changes re-place
/// results, and how objects are loaded.
///
/// It differs from the controller's ``AnyFetchedResultsController/fetchRequest`` while a background fetch of a
/// changed request runs: changes are judged against the results' own request.
struct FetchPlan: Sendable {
    /// The request the results were fetched with.
    let request: FetchRequest<ManagedObject>
    /// The results' order: the request's sort criteria, then the ID (and the store, when several are read).
    let ordering: RowOrdering
    /// The entities whose objects can be results (the request's, and its descendants' when it includes them).
    let trackedEntityNames: Set<String>
    /// Key paths through relationships in the sort, section and predicate keys: a change to an object they
    /// reach re-places the results that reach it.
    let relatedPaths: RelatedKeyPaths
    /// How many stores the request reads (nil when they cannot be told).
    let storeCount: Int?

    /// How the results' objects are loaded.
    enum ObjectLoading: Equatable, Sendable {
        /// A batch of this many rows at a time when first asked for; least recently used batches beyond
        /// ``AnyFetchedResultsController/retainedBatchCount`` are released (the request's `fetchBatchSize`).
        case batches(Int)
        /// As the context has them: objects are registered by the fetch; results from the section cache load a
        /// batch of ``AnyFetchedResultsController/defaultLoadingBatchSize`` at a time and keep them.
        case whole
    }

    /// How the results' objects are loaded.
    var objectLoading: ObjectLoading {
        request.fetchBatchSize > 0 ? .batches(request.fetchBatchSize) : .whole
    }

    /// Whether the fetch reads IDs and keys rather than whole objects (a batched request: see
    /// ``AnyFetchedResultsController/performFetch()``).
    var readsKeysOnly: Bool { request.fetchBatchSize > 0 }

    /// The plan of `request` over `entity`.
    init(
        request: FetchRequest<ManagedObject>, sectionNaming: SectionNaming?, entity: EntityDescription,
        model: ManagedObjectModel, coordinator: PersistentStoreCoordinator?
    ) {
        self.request = request
        // Results of one store never tie on their IDs: the store is left out of each result's order bytes.
        storeCount = (try? coordinator?.stores(forFetching: entity, includesSubentities: request.includesSubentities,
            affectedStores: request.affectedStores).count) ?? nil
        ordering = RowOrdering(criteria: request.sortCriteria, tieBreaksByStore: (storeCount ?? 2) > 1)
        trackedEntityNames = request.includesSubentities
            ? Set(model.entityAndDescendants(of: entity).map(\.name)) : [entity.name]
        relatedPaths = RelatedKeyPaths(
            keyPaths: request.sortCriteria.map(\.key) + (sectionNaming?.keys ?? []) + (request.predicate?.keyPaths ?? []),
            entity: entity, model: model)
    }

    /// The plan of a controller that has not fetched yet: nothing tracked.
    init(unfetched request: FetchRequest<ManagedObject>) {
        self.request = request
        ordering = RowOrdering(criteria: request.sortCriteria)
        trackedEntityNames = []
        relatedPaths = RelatedKeyPaths()
        storeCount = nil
    }
}
