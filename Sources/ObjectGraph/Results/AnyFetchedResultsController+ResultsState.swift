extension AnyFetchedResultsController {
    /// Everything ``performFetch()`` replaces: kept before a fetch so that one that fails (a predicate naming an
    /// unknown key, a store error) leaves the results, their sections and their section names as they were,
    /// instead of results whose section numbers point into a new, empty name table.
    struct ResultsState {
        let index: ResultsIndex
        let untrackedResults: [ResultID]?
        let pendingCachedResults: PendingCachedResults?
        let runs: SectionRuns
        let names: SectionNames
        let namespaces: IDNamespaces
        let orderBytesByID: OrderBytesByID?
        let temporaryPlacements: TemporaryPlacements
        let keyAttributePositionsByEntity: [String: KeyAttributePositions]
        let loadedBatches: [Int]
        let hasFetched: Bool
        let missedChanges: Bool
        let resultsCameFromCache: Bool
        let plan: FetchPlan
    }

    /// The results as they stand (without waiting for a section cache still being read).
    var resultsState: ResultsState {
        ResultsState(
            index: indexStorage, untrackedResults: untrackedResults, pendingCachedResults: pendingCachedResults,
            runs: runs, names: names, namespaces: namespaces, orderBytesByID: orderBytesByIDStorage,
            temporaryPlacements: temporaryPlacements,
            keyAttributePositionsByEntity: keyAttributePositionsByEntity, loadedBatches: loadedBatches,
            hasFetched: hasFetched, missedChanges: missedChanges, resultsCameFromCache: resultsCameFromCache,
            plan: plan)
    }

    /// Puts back results kept by ``resultsState``.
    func restore(_ state: ResultsState) {
        indexStorage = state.index
        untrackedResults = state.untrackedResults
        pendingCachedResults = state.pendingCachedResults
        runs = state.runs
        names = state.names
        namespaces = state.namespaces
        orderBytesByIDStorage = state.orderBytesByID
        temporaryPlacements = state.temporaryPlacements
        keyAttributePositionsByEntity = state.keyAttributePositionsByEntity
        loadedBatches = state.loadedBatches
        hasFetched = state.hasFetched
        missedChanges = state.missedChanges
        resultsCameFromCache = state.resultsCameFromCache
        plan = state.plan
    }
}
