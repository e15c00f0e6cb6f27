import Foundation

/// Results from a section cache whose body is still being read: how many there are, the first of them, and
/// the read.
struct PendingCachedResults {
    let count: Int
    let head: [ResultsEntry]
    let tail: CachedResultsTail
}

extension AnyFetchedResultsController {
    /// How many results there are (without waiting for a section cache being read).
    var resultCount: Int { pendingCachedResults?.count ?? untrackedResults?.count ?? index.count }

    /// The compact ID of the result at `offset`, from the cache's head while its body is being read.
    func resultID(atGlobalIndex offset: Int) -> ResultID {
        if let pending = pendingCachedResults, offset < pending.head.count { return pending.head[offset].placed }
        if let untracked = untrackedResults { return untracked[offset] }
        return index[offset].placed
    }

    /// The compact IDs of the results in `range`, from the cache's head while its body is being read.
    func resultIDs(in range: Range<Int>) -> [ResultID] {
        if let pending = pendingCachedResults, range.upperBound <= pending.head.count {
            return pending.head[range].map(\.placed)
        }
        if let untracked = untrackedResults { return Array(untracked[range]) }
        return index.entries(in: range).map(\.placed)
    }

    /// Waits for the section cache's body unless the head of the results holds `indexPath`, so that a
    /// position outside the head is checked against the final results.
    func settleCachedResults(unlessHeadHolds indexPath: IndexPath) {
        guard let pending = pendingCachedResults else { return }
        if let offset = globalIndex(of: indexPath), offset < pending.head.count { return }
        settleCachedResults()
    }

    /// Joins the section cache's body, read on another thread, to the results (waiting for it if it is not
    /// read yet). A body that turns out damaged (its head was intact, or it would not have been used) means
    /// the results are fetched after all, the cache is rewritten, and the delegate is told to reload.
    ///
    /// - Returns: whether the results were fetched again.
    @discardableResult
    func settleCachedResults() -> Bool {
        guard core.isReadingCache, let pending = pendingCachedResults else { return false }
        pendingCachedResults = nil
        switch pending.tail.wait() {
        case .complete(let results):
            indexStorage = results
            return false
        case .damaged:
            refetchAfterDamagedCache(head: pending.head)
            return true
        }
    }

    private func refetchAfterDamagedCache(head: [ResultsEntry]) {
        resultsCameFromCache = false
        cacheIsStale = true
        let context = managedObjectContext
        do throws(ObjectGraphError) {
            guard let model = context.persistentStoreCoordinator?.managedObjectModel,
                let entity = model.entity(named: fetchRequest.entityName)
            else { throw .unknownEntity(fetchRequest.entityName) }
            try placeFetchedEntries(try fetchEntries(entity: entity, model: model))
            writeCache()
        } catch {
            // Nothing better to show than what was shown: the head, until the next fetch.
            if let cacheName { AnyFetchedResultsController.deleteCache(withName: cacheName, in: cacheDirectory) }
            indexStorage = ResultsIndex(sorted: head)
            runs = SectionRuns(of: head)
            orderBytesByIDStorage = nil
        }
        delegate?.controllerDidInvalidateContent(self)
    }
}
