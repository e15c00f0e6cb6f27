extension AnyFetchedResultsController {
    /// Everything ``performFetch()`` replaces: kept before a fetch so that one that fails (a predicate naming an
    /// unknown key, a store error) leaves the results, their sections and their section names as they were,
    /// instead of results whose section numbers point into a new, empty name table.
    struct ResultsState {
        let index: ResultsIndex
        let untrackedResults: [PlacedID]?
        let pendingCachedResults: PendingCachedResults?
        let runs: SectionRuns
        let names: SectionNames
        let namespaces: IDNamespaces
        let placedOrders: PlacedOrders?
        let temporaryPlacements: TemporaryPlacements
        let ordering: RowOrdering
        let trackedEntityNames: Set<String>
        let relatedPaths: RelatedKeyPaths
        let keyPlacesByEntity: [String: KeyPlaces]
        let loadedBatches: [Int]
        let hasFetched: Bool
        let missedChanges: Bool
        let resultsCameFromCache: Bool
        let placedRequest: FetchRequest<ManagedObject>
    }

    /// The results as they stand (without waiting for a section cache still being read).
    var resultsState: ResultsState {
        ResultsState(
            index: indexStorage, untrackedResults: untrackedResults, pendingCachedResults: pendingCachedResults,
            runs: runs, names: names, namespaces: namespaces, placedOrders: placedOrdersStorage,
            temporaryPlacements: temporaryPlacements, ordering: ordering, trackedEntityNames: trackedEntityNames,
            relatedPaths: relatedPaths, keyPlacesByEntity: keyPlacesByEntity, loadedBatches: loadedBatches,
            hasFetched: hasFetched, missedChanges: missedChanges, resultsCameFromCache: resultsCameFromCache,
            placedRequest: placedRequest)
    }

    /// Puts back results kept by ``resultsState``.
    func restore(_ state: ResultsState) {
        indexStorage = state.index
        untrackedResults = state.untrackedResults
        pendingCachedResults = state.pendingCachedResults
        runs = state.runs
        names = state.names
        namespaces = state.namespaces
        placedOrdersStorage = state.placedOrders
        temporaryPlacements = state.temporaryPlacements
        ordering = state.ordering
        trackedEntityNames = state.trackedEntityNames
        relatedPaths = state.relatedPaths
        keyPlacesByEntity = state.keyPlacesByEntity
        loadedBatches = state.loadedBatches
        hasFetched = state.hasFetched
        missedChanges = state.missedChanges
        resultsCameFromCache = state.resultsCameFromCache
        placedRequest = state.placedRequest
    }
}
