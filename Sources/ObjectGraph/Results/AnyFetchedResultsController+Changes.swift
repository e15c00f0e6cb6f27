import Foundation
import SectionedChanges

/// A row's place as two integers: what a batch's changes carry until the delegate is called (Foundation's
/// `IndexPath` costs an allocation-sized value per copy).
struct RowPath: Equatable {
    let section: Int
    let row: Int

    var indexPath: IndexPath { IndexPath(row: row, section: section) }
}

/// One object's change in a batch as the controller reports it.
typealias ResultsObjectChange = ResultsRowChange<ManagedObject>

/// One result's change in a batch, with its positions before and after; `object` is the subject the batch named
/// it by (the controller's object; any value in tests of ``ResultsCore``).
struct ResultsRowChange<Subject> {
    let object: Subject
    let type: FetchedResultsChangeType
    /// The ID the object was placed under before the batch (nil for an insertion), in the controller's compact
    /// form: nothing to reference-count while a batch's changes are sorted and copied.
    var oldID: ResultID?
    /// Its ID after the batch (nil for a deletion), compact.
    var newID: ResultID?
    var oldIndex: Int?
    var newIndex: Int?
    var oldPath: RowPath?
    var newPath: RowPath?
    /// Whether only the object's ID changed (temporary to permanent) and nothing else about it: reported to
    /// those who know results by ID (snapshots, differences), not as an update of its row.
    var identityOnly = false
}

extension AnyFetchedResultsController {
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
    ///
    /// This decides, object by object, what leaves, arrives, is re-placed or changed in place (reading the
    /// objects, the predicate and the event); ``ResultsCore/apply(_:reporting:resolve:)`` does the rest.
    func applyChanges(
        deleted: [ManagedObject], changed: consuming [ManagedObject], insertedCount: Int,
        changedAttributes: [AttributeBits], reporting: Bool
    ) {
        let recordedCount = changed.count
        let predicate = resultsRequest.predicate
        var batch = ResultsBatch<ManagedObject>()
        // First, results saved since they were placed take their permanent IDs (or are re-placed).
        let reidentified = temporaryPlacements.isEmpty ? [] : objectsWithNewPermanentIDs(reporting: reporting)

        for object in deleted where tracks(object.entity) {
            guard let (placed, order, _) = placement(of: object),
                let (section, position) = index.locate(placed, order: order)
            else { continue }
            batch.removed.append(.init(subject: object, placed: placed, section: section, oldIndex: position))
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
            for (offset, object) in changed.enumerated()
            where offset < recordedCount || offset >= recordedCount + reidentified.count {
                identityOnly.remove(ObjectIdentifier(object))
            }
        }
        // The recorded objects are distinct; re-identified objects and those a related change reaches may
        // repeat one, and are placed once.
        var seen: Set<ObjectIdentifier>? = changed.count > recordedCount ? Set(deleted.map(ObjectIdentifier.init)) : nil

        for (number, object) in changed.enumerated() where tracks(object.entity) {
            if seen != nil, seen?.insert(ObjectIdentifier(object)).inserted == false { continue }
            let matches = !object.isDeleted && (predicate?.evaluate(with: object) ?? true)
                && managedObjectContext.isInStores(object, resultsRequest.affectedStores)
            guard let (placed, order, placedUnderCurrentID) = placement(of: object),
                let (section, position) = index.locate(placed, order: order)
            else {
                if matches { batch.added.append(.init(subject: object, entry: makeEntry(for: object))) }
                continue
            }
            let leaving = ResultsBatch<ManagedObject>.Leaving(subject: object, placed: placed, section: section,
                oldIndex: position)
            guard matches else {
                batch.removed.append(leaving)
                continue
            }
            // (An object placed under an earlier, temporary ID gets a new entry under its permanent one.) An
            // object whose event changed none of the attributes that place it keeps its place unread.
            let keysUnchanged = !missedChanges && number >= insertedCount && number < recordedCount
                && !changedAttributes[number - insertedCount].intersects(sortAndSectionAttributes(of: object.entity))
            if placedUnderCurrentID, keysUnchanged || keepsPlace(object, order: order, section: section) {
                batch.updatedInPlace.append(leaving)
            } else {
                batch.replaced.append(.init(leaving: leaving, entry: makeEntry(for: object),
                    identityOnly: !identityOnly.isEmpty && identityOnly.contains(ObjectIdentifier(object))))
            }
        }
        guard !batch.isEmpty else { return }

        // Results under temporary IDs are found by object too: they leave that table, and arrive in it anew.
        for leaving in batch.removed where namespaces.isTemporary(leaving.placed) {
            temporaryPlacements[ObjectIdentifier(leaving.subject)] = nil
        }
        for replacement in batch.replaced where namespaces.isTemporary(replacement.leaving.placed) {
            temporaryPlacements[ObjectIdentifier(replacement.leaving.subject)] = nil
        }
        _ = orderBytesByID  // (built from the index, if the results came from a section cache)
        let change = core.apply(batch, reporting: reporting, resolve: object(placedAs:))
        for arrival in batch.added where namespaces.isTemporary(arrival.entry.placed) {
            temporaryPlacements[ObjectIdentifier(arrival.subject)] = (arrival.subject,
                namespaces.id(for: arrival.entry.placed))
        }
        for replacement in batch.replaced where namespaces.isTemporary(replacement.entry.placed) {
            temporaryPlacements[ObjectIdentifier(replacement.leaving.subject)] = (replacement.leaving.subject,
                namespaces.id(for: replacement.entry.placed))
        }
        guard reporting, let change else { return }
        cacheIsStale = true
        report(change)
    }

    /// The object of a result the controller placed as `placed` (a fault when not registered), or nil when its
    /// entity is unknown.
    func object(placedAs placed: ResultID) -> ManagedObject? {
        try? managedObjectContext.object(with: namespaces.id(for: placed))
    }

    /// Forgets the results after every object was invalidated (a reset) and tells the delegate to fetch
    /// again: no per-object changes are reported (Core Data's rule).
    func invalidateContent() {
        index = ResultsIndex()
        untrackedResults = nil
        runs = SectionRuns()
        orderBytesByID = OrderBytesByID()
        namespaces = IDNamespaces()
        temporaryPlacements = TemporaryPlacements()
        loadedBatches = []
        hasFetched = false
        delegate?.controllerDidInvalidateContent(self)
        publish(.invalidated)
    }
}
