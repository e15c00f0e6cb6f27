import Foundation
import SectionedChanges

/// A row's place as two integers: what a batch's changes carry until the delegate is called (Foundation's
/// `IndexPath` costs an allocation-sized value per copy).
struct RowPath: Equatable {
    let section: Int
    let row: Int

    var indexPath: IndexPath { IndexPath(row: row, section: section) }
}

/// One object's change in a batch, with its positions before and after.
struct ResultsObjectChange {
    let object: ManagedObject
    let type: FetchedResultsChangeType
    /// The ID the object was placed under before the batch (nil for an insertion), in the controller's compact
    /// form: nothing to reference-count while a batch's changes are sorted and copied.
    var oldID: PlacedID?
    /// Its ID after the batch (nil for a deletion), compact.
    var newID: PlacedID?
    var oldIndex: Int?
    var newIndex: Int?
    var oldPath: RowPath?
    var newPath: RowPath?
    /// Whether only the object's ID changed (temporary to permanent) and nothing else about it: reported to
    /// those who know results by ID (snapshots, differences), not as an update of its row.
    var identityOnly = false
}

extension AnyFetchedResultsController {
    /// A result that leaves its place in a batch: its placement and where it was.
    private struct Leaving {
        let object: ManagedObject
        /// The ID it was placed under, compact.
        let placed: PlacedID
        let section: Int32
        var oldIndex = 0
    }

    /// A new result of a batch with the entry it arrives with. A struct, not a tuple: arrays of tuples holding
    /// references are copied and destroyed through the run time's generic tuple code, several times slower.
    private struct Arrival {
        let object: ManagedObject
        let entry: ResultsEntry
    }

    /// A result re-placed in a batch: where it left and the entry it arrives with.
    private struct Replacement {
        let leaving: Leaving
        let entry: ResultsEntry
        /// Re-placed only because its ID changed (see ``ResultsObjectChange/identityOnly``).
        var identityOnly = false
    }

    /// Applies a context change to the results and reports it.
    ///
    /// Cost: O(k log n) for k changed objects among n results (plus n / 32 to refresh chunk offsets),
    /// never a re-sort or re-diff of the whole list.
    func contextDidChange(_ change: ObjectsDidChange) {
        guard hasFetched, isTracking else {
            if hasFetched, untrackedResults == nil, !change.isEmpty { missedChanges = true }
            return
        }
        // Results fetched again because the section cache was damaged already hold this change.
        if settleCachedResults() { return }
        // An event that only says IDs changed: results placed under temporary IDs follow.
        if change.isEmpty, !change.invalidatedAllObjects {
            guard untrackedResults == nil, !temporaryPlacements.isEmpty else { return }
            seenObjectIDGeneration = managedObjectContext.objectIDGeneration
            applyChanges(deleted: [], changed: [], insertedCount: 0, changedAttributes: [], reporting: true)
            return
        }
        if change.invalidatedAllObjects {
            seenObjectIDGeneration = managedObjectContext.objectIDGeneration
            invalidateContent()
            return
        }
        // (Each object is recorded under one kind at most.) Deleted objects, and the others: inserted first.
        let recorded = change.recorded.changes
        var deleted: [ManagedObject] = []
        var changed: [ManagedObject] = []
        // For the updated and refreshed objects (after the inserted ones), the attributes the event changed.
        var changedAttributes: [AttributeBits] = []
        changed.reserveCapacity(recorded.objects.count)
        deleted.reserveCapacity(recorded.count(of: .deleted))
        for (object, kind) in zip(recorded.objects, recorded.kinds) where kind == .inserted { changed.append(object) }
        let insertedCount = changed.count
        changedAttributes.reserveCapacity(recorded.objects.count - insertedCount)
        for (slot, object) in recorded.objects.enumerated() {
            switch recorded.kinds[slot] {
            case .updated?, .refreshed?:
                changed.append(object)
                changedAttributes.append(recorded.attributes[slot])
            case .deleted?: deleted.append(object)
            case .inserted?, nil: continue
            }
        }
        // Results fetched untracked, for a delegate or stream that came later: fetched again with their keys
        // (which this change is part of) and the difference reported.
        if untrackedResults != nil {
            let updated = changed[insertedCount...]
            let reached = relatedPaths.isEmpty ? [] : updated.flatMap { relatedPaths.sources(reaching: $0) }
            startTrackingUntrackedResults(updated: Set((updated + reached).map(ObjectIdentifier.init)))
            return
        }
        seenObjectIDGeneration = managedObjectContext.objectIDGeneration
        applyChanges(deleted: deleted, changed: changed, insertedCount: insertedCount,
            changedAttributes: changedAttributes, reporting: true)
    }

    /// Places a batch's objects anew and, when `reporting`, tells the delegate and the change streams.
    ///
    /// `changed` holds the inserted objects first (`insertedCount` of them), then the updated and refreshed
    /// ones, each with the attributes its event changed in `changedAttributes`; every object appears once in
    /// `deleted` and `changed` together. Without `reporting` (objects that changed while a background fetch
    /// ran, placed among its results before anyone sees them) nothing is reported and no change list is made.
    func applyChanges(
        deleted: [ManagedObject], changed: consuming [ManagedObject], insertedCount: Int,
        changedAttributes: [AttributeBits], reporting: Bool
    ) {
        let recordedCount = changed.count
        let predicate = placedRequest.predicate
        // Re-placed and new results carry the entries they arrive with.
        var replaced: [Replacement] = []
        var updatedInPlace: [Leaving] = []
        var added: [Arrival] = []
        // First, results saved since they were placed take their permanent IDs (or are re-placed).
        let reidentified = temporaryPlacements.isEmpty ? [] : objectsWithNewPermanentIDs(reporting: reporting)

        var removed: [Leaving] = []
        for object in deleted where tracks(object.entity) {
            guard let (placed, order, _) = placement(of: object),
                let (section, position) = index.locate(placed, order: order)
            else { continue }
            removed.append(Leaving(object: object, placed: placed, section: section, oldIndex: position))
        }
        if !reidentified.isEmpty { changed.append(contentsOf: reidentified) }
        if !relatedPaths.isEmpty {
            for offset in insertedCount..<recordedCount {
                changed.append(contentsOf: relatedPaths.sources(reaching: changed[offset]))
            }
        }
        // Re-identified results that nothing else in the batch names: only their IDs changed.
        var identityOnly: Set<ObjectIdentifier> = []
        if !reidentified.isEmpty {
            identityOnly = Set(reidentified.map(ObjectIdentifier.init))
            for (offset, object) in changed.enumerated() where offset < recordedCount || offset >= recordedCount + reidentified.count {
                identityOnly.remove(ObjectIdentifier(object))
            }
        }
        // The recorded objects are distinct; re-identified objects and those a related change reaches may
        // repeat one, and are placed once.
        var seen: Set<ObjectIdentifier>? = changed.count > recordedCount ? Set(deleted.map(ObjectIdentifier.init)) : nil

        for (number, object) in changed.enumerated() where tracks(object.entity) {
            if seen != nil, seen?.insert(ObjectIdentifier(object)).inserted == false { continue }
            let matches = !object.isDeleted && (predicate?.evaluate(with: object) ?? true)
                && managedObjectContext.isInStores(object, placedRequest.affectedStores)
            guard let (placed, order, placedUnderCurrentID) = placement(of: object),
                let (section, position) = index.locate(placed, order: order)
            else {
                if matches { added.append(Arrival(object: object, entry: makeEntry(for: object))) }
                continue
            }
            let leaving = Leaving(object: object, placed: placed, section: section, oldIndex: position)
            guard matches else {
                removed.append(leaving)
                continue
            }
            // (An object placed under an earlier, temporary ID gets a new entry under its permanent one.) An
            // object whose event changed none of the attributes that place it keeps its place unread.
            let keysUnchanged = !missedChanges && number >= insertedCount && number < recordedCount
                && !changedAttributes[number - insertedCount].intersects(placingAttributes(of: object.entity))
            if placedUnderCurrentID, keysUnchanged || keepsPlace(object, order: order, section: section) {
                updatedInPlace.append(leaving)
            } else {
                replaced.append(Replacement(leaving: leaving, entry: makeEntry(for: object),
                    identityOnly: !identityOnly.isEmpty && identityOnly.contains(ObjectIdentifier(object))))
            }
        }
        guard !(removed.isEmpty && added.isEmpty && replaced.isEmpty && updatedInPlace.isEmpty) else { return }

        // Where everything was, before anything moves.
        let oldRuns = runs
        let oldCount = index.count

        // Take the leavers out and put the arrivals in.
        var leavingOldIndexes: [Int] = []
        leavingOldIndexes.reserveCapacity(removed.count + replaced.count)
        for leavers in [removed, replaced.map { $0.leaving }] {
            for leaving in leavers {
                leavingOldIndexes.append(leaving.oldIndex)
                runs.removeOne(from: leaving.section)
                placedOrders[leaving.placed] = nil
                if namespaces.isTemporary(leaving.placed) { temporaryPlacements[ObjectIdentifier(leaving.object)] = nil }
            }
        }
        index.remove(atPositions: leavingOldIndexes)
        // In order, so that one search per arrival places it and gives its final position. An arrival's `origin`
        // numbers the new results first, then the re-placed ones.
        let arrivals = added.map { $0.entry } + replaced.map { $0.entry }
        let arrivalOrder = Self.sortedByOrder(arrivals)
        let arrivingNewIndexes = index.insert(sorted: arrivalOrder.map { arrivals[$0] })
        var newIndexes = [Int](repeating: 0, count: arrivals.count)
        var newSectionArrivals: [(entry: ResultsEntry, position: Int)] = []
        for (origin, position) in zip(arrivalOrder, arrivingNewIndexes) {
            let object = origin < added.count ? added[origin].object : replaced[origin - added.count].leaving.object
            let entry = arrivals[origin]
            newIndexes[origin] = position
            placedOrders[entry.placed] = entry.order
            if namespaces.isTemporary(entry.placed) {
                temporaryPlacements[ObjectIdentifier(object)] = (object, namespaces.id(for: entry.placed))
            }
            if runs.hasRepeats || !runs.addOne(to: entry.section) { newSectionArrivals.append((entry, position)) }
        }
        updateSections(newSectionArrivals: newSectionArrivals,
            arrivals: zip(arrivalOrder, arrivingNewIndexes).map { (arrivals[$0].section, $1) })
        guard reporting else {
            placedOrders.growOneShardAhead()
            return
        }

        // Where everything is now, and how each change is reported.
        var changes: [ResultsObjectChange] = []
        changes.reserveCapacity(removed.count + arrivals.count + updatedInPlace.count)
        var scratchRuns = oldRuns
        func oldPath(_ offset: Int) -> RowPath {
            let (section, row) = scratchRuns.locate(offset)
            return RowPath(section: section, row: row)
        }
        for leaving in removed {
            changes.append(ResultsObjectChange(object: leaving.object, type: .delete, oldID: leaving.placed,
                oldIndex: leaving.oldIndex, oldPath: oldPath(leaving.oldIndex)))
        }
        for (number, arrival) in added.enumerated() {
            let offset = newIndexes[number]
            changes.append(ResultsObjectChange(object: arrival.object, type: .insert, newID: arrival.entry.placed,
                newIndex: offset, newPath: rowPath(forGlobalIndex: offset)))
        }
        // (The re-placed results' new positions follow the new ones' in `newIndexes`.)
        let replacedNewIndexes = newIndexes[added.count...]
        let sortedLeavingOldIndexes = leavingOldIndexes.sorted()
        let inPlace = Self.replacedKeepingTheirPlace(
            zip(replaced, replacedNewIndexes).map { place, newIndex in
                (place.leaving.oldIndex, newIndex, place.leaving.section == place.entry.section)
            },
            leavingOldIndexes: sortedLeavingOldIndexes,
            arrivingNewIndexes: arrivingNewIndexes)
        for (offset, (place, newIndex)) in zip(replaced, replacedNewIndexes).enumerated() {
            changes.append(ResultsObjectChange(object: place.leaving.object,
                type: inPlace.contains(offset) ? .update : .move, oldID: place.leaving.placed,
                newID: place.entry.placed,
                oldIndex: place.leaving.oldIndex, newIndex: newIndex, oldPath: oldPath(place.leaving.oldIndex),
                newPath: rowPath(forGlobalIndex: newIndex), identityOnly: place.identityOnly))
        }
        // Objects that neither left nor arrived keep their rank among such objects: the k-th of them now sits
        // after the arrivals whose own rank among them (position minus the arrivals before) is at most k.
        let arrivalRanks = arrivingNewIndexes.enumerated().map { $1 - $0 }
        for leaving in updatedInPlace {
            let rank = leaving.oldIndex - sortedLeavingOldIndexes.countBelow(leaving.oldIndex)
            let offset = rank + arrivalRanks.countBelow(rank + 1)
            changes.append(ResultsObjectChange(object: leaving.object, type: .update, oldID: leaving.placed,
                newID: leaving.placed, oldIndex: leaving.oldIndex, newIndex: offset,
                oldPath: oldPath(leaving.oldIndex), newPath: rowPath(forGlobalIndex: offset)))
        }
        changes = avoidingSamePathMoves(changes, oldRuns: oldRuns, oldCount: oldCount)
        placedOrders.growOneShardAhead()
        cacheIsStale = true
        report(changes, oldRuns: oldRuns, oldCount: oldCount)
    }

    /// The offsets of `entries` in order of their order bytes. Sorts plain integers — each entry's first
    /// sixteen order bytes as two words, and its offset — and compares whole order bytes only where those
    /// words tie, instead of moving entries and counting references to their bytes in every comparison.
    static func sortedByOrder(_ entries: [ResultsEntry]) -> [Int] {
        var keys = entries.enumerated().map { offset, entry in
            let words = ResultsIndex.leadingWords(of: entry.order)
            return (first: words.0, second: words.1, offset: offset)
        }
        keys.sort { left, right in
            if (left.first, left.second) != (right.first, right.second) {
                return (left.first, left.second) < (right.first, right.second)
            }
            return RowOrdering.compare(entries[left.offset].order, entries[right.offset].order) < 0
        }
        return keys.map(\.offset)
    }

    /// Updates the section runs after a batch's entries moved: counts were adjusted one by one; new
    /// sections get runs beside their neighbours; a split section (an order that does not group sections)
    /// falls back to rebuilding the runs from the entries.
    private func updateSections(
        newSectionArrivals: [(entry: ResultsEntry, position: Int)], arrivals: [(section: Int32, position: Int)]
    ) {
        if runs.hasRepeats {
            runs = SectionRuns(of: index.allEntries)
            return
        }
        // Each new section, at the position of its first object, after the section before that object.
        var firstPositions: [Int32: (position: Int, count: Int)] = [:]
        for (entry, position) in newSectionArrivals {
            let known = firstPositions[entry.section]
            firstPositions[entry.section] = (min(known?.position ?? position, position), (known?.count ?? 0) + 1)
        }
        for (section, place) in firstPositions.sorted(by: { $0.value.position < $1.value.position }) {
            let previous = place.position == 0 ? -1 : (runs.run(of: index[place.position - 1].section) ?? -1)
            runs.insertRun(section, count: place.count, after: previous)
        }
        runs.removeEmptyRuns()
        // Every arrival must now sit in its own section's run; otherwise the order split a section.
        for (section, position) in arrivals {
            let (run, _) = runs.locate(position)
            if runs.sections[run] != section {
                runs = SectionRuns(of: index.allEntries)
                return
            }
        }
    }

    /// Forgets the results after every object was invalidated (a reset) and tells the delegate to fetch
    /// again: no per-object changes are reported (Core Data's rule).
    func invalidateContent() {
        index = ResultsIndex()
        untrackedResults = nil
        runs = SectionRuns()
        placedOrders = PlacedOrders()
        namespaces = IDNamespaces()
        temporaryPlacements = TemporaryPlacements()
        loadedBatches = []
        hasFetched = false
        delegate?.controllerDidInvalidateContent(self)
        publish(.invalidated)
    }
}
