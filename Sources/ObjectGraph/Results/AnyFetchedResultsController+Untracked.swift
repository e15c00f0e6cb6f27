import Foundation

/// Untracked results: what a controller holds when nothing listens for changes.
///
/// Core Data's controller without a delegate keeps its results as fetched: membership and order never
/// change. Such a controller needs no sort keys and no ID lookup, only the IDs in order and the section
/// runs — 16 bytes per result instead of about 150. So a batched controller fetched without change
/// tracking streams IDs and section keys from the store in the store's order (the same order the tracked
/// fetch reads) and keeps just those.
///
/// When tracking begins later (a delegate that tracks changes is set, or a ``changes()`` consumer
/// appears), the controller reads the sort and section keys of its results with one keyed fetch. If the
/// results are still what was fetched, that is all; otherwise the delegate hears the difference as one
/// change batch, so that its rows end up as the controller's.
extension AnyFetchedResultsController {
    /// Whether ``performFetch()`` may keep untracked results: no tracking, no section cache (which is written
    /// from sort keys), batched objects, one store and a context reading it directly, no fetch limit or
    /// offset, keys that are stored attributes, and no unsaved changes the fetch would have to place among
    /// the rows.
    func mayFetchUntracked(entity: EntityDescription, model: ManagedObjectModel, storeCount: Int?) -> Bool {
        guard !isTracking, cacheName == nil, plan.readsKeysOnly, storeCount == 1,
            managedObjectContext.parent == nil, fetchRequest.fetchLimit <= 0, fetchRequest.fetchOffset <= 0
        else { return false }
        return keysAreStoredAttributes(model: model) && pendingTrackedObjects().isEmpty
    }

    /// Reads the results' IDs and section runs, streamed in the store's order, and makes them the untracked
    /// results.
    ///
    /// - Throws: ``ObjectGraphError/sectionsOutOfOrder(index:sectionName:)`` when a section name comes back
    ///   after another section, or any fetch error.
    func fetchUntracked(entity: EntityDescription, model: ManagedObjectModel) throws(ObjectGraphError) {
        let sectionKeys = sectionNaming?.keys ?? []
        var ids: [ResultID] = []
        var sectionRuns = SectionRuns()
        var outOfOrder: (index: Int, name: String)?
        // The numbering tables are local while rows arrive, and stored back after.
        var (names, namespaces) = (names, namespaces)
        let naming = sectionNaming
        try managedObjectContext.objectSource().visitKeyedRows(
            entity: entity, predicate: fetchRequest.predicate, sortCriteria: fetchRequest.sortCriteria,
            keys: sectionKeys, includesSubentities: fetchRequest.includesSubentities,
            stores: fetchRequest.affectedStores, model: model)
        { id, values throws(ObjectGraphError) in
            let section = names.number(for: naming?.name(values: values[...]) ?? "")
            if sectionRuns.sections.last != section, sectionRuns.run(of: section) != nil, outOfOrder == nil {
                outOfOrder = (ids.count, names[section])
            }
            ids.append(namespaces.resultID(for: id))
            sectionRuns.appendOne(to: section)
        }
        (self.names, self.namespaces) = (names, namespaces)
        if let outOfOrder { throw .sectionsOutOfOrder(index: outOfOrder.index, sectionName: outOfOrder.name) }
        index = ResultsIndex()
        untrackedResults = ids
        runs = sectionRuns
        orderBytesByIDStorage = nil
        temporaryPlacements = TemporaryPlacements()
    }

    /// The position of `placed` among untracked results, by a linear search (Core Data's untracked
    /// controller searches its array too); nil when it is not there.
    func untrackedPosition(of placed: ResultID) -> Int? {
        untrackedResults?.firstIndex(of: placed)
    }

    /// Starts tracking untracked results: reads their sort and section keys with one keyed fetch and, when
    /// the results changed since they were fetched, reports the difference as one change batch (objects
    /// in `updated` that keep their place are reported as updates). Does nothing for tracked results or
    /// while nothing tracks; when the fetch fails, the results stay as they are and the next change tries
    /// again.
    func startTrackingUntrackedResults(updated: Set<ObjectIdentifier> = []) {
        guard hasFetched, let old = untrackedResults, isTracking,
            let model = managedObjectContext.persistentStoreCoordinator?.managedObjectModel,
            let entity = model.entity(named: fetchRequest.entityName)
        else { return }
        let oldRuns = runs
        let fresh: [ResultsEntry]
        do {
            fresh = try fetchEntries(entity: entity, model: model)
            untrackedResults = nil
            try placeFetchedEntries(fresh)
        } catch {
            untrackedResults = old
            runs = oldRuns
            index = ResultsIndex()
            orderBytesByIDStorage = nil
            return
        }
        seenObjectIDGeneration = managedObjectContext.objectIDGeneration
        var changes = changesSinceUntrackedFetch(old: old, oldRuns: oldRuns, updated: updated)
        guard !changes.isEmpty else { return }
        changes = core.avoidingSamePathMoves(changes, oldRuns: oldRuns, oldCount: old.count, resolve: object(placedAs:))
        cacheIsStale = true
        report(ResultsChange(oldRuns: oldRuns, oldCount: old.count, changes: changes))
    }

    /// The changes that turn the untracked results `old` (in `oldRuns`) into the current ones: departures,
    /// arrivals, and moves for the fewest objects that must move (the rest keep their relative order and
    /// section: a longest increasing run of old positions).
    private func changesSinceUntrackedFetch(old: [ResultID], oldRuns: SectionRuns, updated: Set<ObjectIdentifier>)
        -> [ResultsRowChange<ManagedObject>]
    {
        var scratchOldRuns = oldRuns
        let new = index.allEntries
        if updated.isEmpty, new.count == old.count, zip(new, old).allSatisfy({ $0.placed == $1 }) { return [] }
        var oldPositions: [ResultID: Int] = [:]
        oldPositions.reserveCapacity(old.count)
        for (position, placed) in old.enumerated() { oldPositions[placed] = position }

        func object(for placed: ResultID) -> ManagedObject? {
            let id = namespaces.id(for: placed)
            return managedObjectContext.registered(id) ?? (try? managedObjectContext.object(with: id))
        }
        func oldPath(_ position: Int) -> RowPath {
            let (section, row) = scratchOldRuns.locate(position)
            return RowPath(section: section, row: row)
        }
        var changes: [ResultsRowChange<ManagedObject>] = []
        // Objects in both, in new order, that stayed in their section: candidates to keep their place.
        var candidates: [(old: Int, new: Int)] = []
        var stillThere = [Bool](repeating: false, count: old.count)
        var movers: [(old: Int, new: Int)] = []
        for (position, entry) in new.enumerated() {
            guard let oldPosition = oldPositions[entry.placed] else {
                if let object = object(for: entry.placed) {
                    changes.append(ResultsRowChange(object: object, type: .insert, newID: entry.placed,
                        newIndex: position, newPath: rowPath(forGlobalIndex: position)))
                }
                continue
            }
            stillThere[oldPosition] = true
            let oldSection = oldRuns.sections[scratchOldRuns.locate(oldPosition).section]
            if oldSection == entry.section {
                candidates.append((oldPosition, position))
            } else {
                movers.append((oldPosition, position))
            }
        }
        for (position, placed) in old.enumerated() where !stillThere[position] {
            if let object = object(for: placed) {
                changes.append(ResultsRowChange(object: object, type: .delete, oldID: placed, oldIndex: position,
                    oldPath: oldPath(position)))
            }
        }
        var kept = [Bool](repeating: false, count: candidates.count)
        for offset in ResultsCore.longestIncreasingRun(candidates.map(\.old)) { kept[offset] = true }
        for (offset, candidate) in candidates.enumerated() {
            if kept[offset] {
                let placed = old[candidate.old]
                guard let object = managedObjectContext.registered(namespaces.id(for: placed)),
                    updated.contains(ObjectIdentifier(object))
                else { continue }
                changes.append(ResultsRowChange(object: object, type: .update, oldID: placed, newID: placed,
                    oldIndex: candidate.old, newIndex: candidate.new, oldPath: oldPath(candidate.old),
                    newPath: rowPath(forGlobalIndex: candidate.new)))
            } else {
                movers.append(candidate)
            }
        }
        for mover in movers {
            let placed = old[mover.old]
            guard let object = object(for: placed) else { continue }
            changes.append(ResultsRowChange(object: object, type: .move, oldID: placed, newID: placed,
                oldIndex: mover.old, newIndex: mover.new, oldPath: oldPath(mover.old),
                newPath: rowPath(forGlobalIndex: mover.new)))
        }
        return changes
    }
}
