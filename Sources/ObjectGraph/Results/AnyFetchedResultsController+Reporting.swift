import Foundation

extension AnyFetchedResultsController {
    /// The current results as a snapshot (one pass over the IDs).
    public func snapshot() -> FetchedResultsSnapshot {
        adoptNewObjectIDs()
        return makeSnapshot(reloaded: [])
    }

    func makeSnapshot(reloaded: [ManagedObjectID]) -> FetchedResultsSnapshot {
        var items: [[ManagedObjectID]] = []
        items.reserveCapacity(runs.count)
        var ids = untrackedResults?[...] ?? index.allEntries.map(\.placed)[...]
        for count in runs.counts {
            items.append(ids.prefix(count).map(namespaces.id(for:)))
            ids = ids.dropFirst(count)
        }
        return FetchedResultsSnapshot(sectionIdentifiers: runs.sections.map { names[$0] },
            sectionItemIdentifiers: items, reloadedItemIdentifiers: reloaded)
    }

    /// A stream of the controller's change batches, for Swift-concurrency code: each processed batch
    /// (and each invalidation) is delivered as a ``FetchedResultsChangeSet``. A consumer turns tracking on
    /// like a delegate does. The stream ends when the controller goes away or the consumer stops.
    public func changes() -> AsyncStream<FetchedResultsChangeSet> {
        let (stream, continuation) = AsyncStream<FetchedResultsChangeSet>.makeStream(bufferingPolicy: .unbounded)
        let key = UUID()
        changeContinuations.withLock { $0[key] = continuation }
        continuation.onTermination = { [weak continuations = changeContinuations] _ in
            continuations?.withLock { $0[key] = nil }
        }
        return stream
    }

    func publish(_ changeSet: FetchedResultsChangeSet) {
        for continuation in changeContinuations.withLock({ Array($0.values) }) { continuation.yield(changeSet) }
    }

    /// After a fetch: a snapshot delegate gets its first snapshot.
    func reportInitialSnapshot() {
        if let delegate = delegate as? any FetchedResultsControllerSnapshotDelegate, delegate.tracksChanges {
            delegate.controller(self, didChangeContentWith: makeSnapshot(reloaded: []))
        }
    }

    /// Tells the delegate (in the form it asked for) and the change streams about one batch.
    func report(_ changes: [ResultsRowChange<ManagedObject>], oldRuns: SectionRuns, oldCount: Int) {
        let newSections = Set(runs.sections)
        let oldSections = Set(oldRuns.sections)
        let deletedSections = oldRuns.sections.enumerated().filter { !newSections.contains($0.element) }
        let insertedSections = runs.sections.enumerated().filter { !oldSections.contains($0.element) }
        // The changes in reporting order, each read where it is: no copy of a batch's changes.
        let order = Self.reportingOrder(of: changes)
        let ordered = order.lazy.map { changes[$0] }
        // What rows hear of: not a result that only took a new ID where it was (it is the same object).
        let rowOrder = changes.contains(where: \.identityOnly)
            ? order.filter { !(changes[$0].identityOnly && changes[$0].type == .update) } : order
        let rowsChanged = !rowOrder.isEmpty || !deletedSections.isEmpty || !insertedSections.isEmpty

        if rowsChanged, !changeContinuations.withLock({ $0.isEmpty }) {
            publish(FetchedResultsChangeSet(
                sectionChanges: deletedSections.map { .init(name: names[$0.element], index: $0.offset, type: .delete) }
                    + insertedSections.map { .init(name: names[$0.element], index: $0.offset, type: .insert) },
                objectChanges: rowOrder.map { offset -> FetchedResultsChangeSet.ObjectChange in
                    let change = changes[offset]
                    let placed = change.type == .delete ? change.oldID : change.newID
                    return .init(objectID: placed.map(namespaces.id(for:)) ?? change.object.objectID,
                        type: change.type,
                        indexPath: change.type == .insert ? nil : change.oldPath?.indexPath,
                        newIndexPath: change.type == .delete ? nil : change.newPath?.indexPath)
                },
                invalidatesAll: false))
        }
        guard let delegate, delegate.tracksChanges else { return }
        if let snapshotDelegate = delegate as? any FetchedResultsControllerSnapshotDelegate {
            let reloaded = Array(ordered.filter { $0.type == .update && !$0.identityOnly }.compactMap(\.newID)
                .map(namespaces.id(for:)))
            snapshotDelegate.controller(self, didChangeContentWith: makeSnapshot(reloaded: reloaded))
            return
        }
        if sectionNaming == nil, let differenceDelegate = delegate as? any FetchedResultsControllerDifferenceDelegate {
            if let difference = Self.difference(of: ordered, namespaces: namespaces) {
                differenceDelegate.controller(self, didChangeContentWith: difference)
            }
            return
        }
        guard rowsChanged else { return }
        if let changesetDelegate = delegate as? any FetchedResultsControllerChangesetDelegate {
            let changeset = Self.changeset(of: changes, in: rowOrder, deletedSections: deletedSections.map(\.offset),
                insertedSections: insertedSections.map(\.offset))
            changesetDelegate.controller(self, didChangeContentWith: changeset)
            return
        }
        delegate.controllerWillChangeContent(self)
        for (index, section) in deletedSections {
            let name = names[section]
            let count = oldRuns.counts[index]
            delegate.controller(self, didChange: FetchedResultsSectionInfo(name: name,
                indexTitle: resolvedIndexTitle(forSectionName: name), numberOfObjects: count, objects: { [] }),
                atSectionIndex: index, for: .delete)
        }
        for (index, _) in insertedSections {
            delegate.controller(self, didChange: sectionInfo(at: index), atSectionIndex: index, for: .insert)
        }
        for offset in rowOrder {
            let type = changes[offset].type
            let oldPath = type == .insert ? nil : changes[offset].oldPath?.indexPath
            let newPath = type == .delete ? nil : changes[offset].newPath?.indexPath
            delegate.controller(self, didChange: changes[offset].object, at: oldPath, for: type, newIndexPath: newPath)
        }
        delegate.controllerDidChangeContent(self)
    }

    /// The offsets of `changes` in reporting order: deletions, insertions, moves, updates; each kind by its
    /// position (old for all but insertions).
    ///
    /// Positions within one kind are distinct, so the order is that of the integers (kind, position): sorted by
    /// counting, eleven bits of them at a time — a few passes over the batch, where a comparison sort of a
    /// batch of thousands costs several times more. A small batch (one edit is a batch of one) is simply
    /// sorted: clearing the counters would cost more than sorting it.
    static func reportingOrder<Subject>(of changes: [ResultsRowChange<Subject>]) -> [Int] {
        func rank(_ type: FetchedResultsChangeType) -> Int {
            switch type {
            case .delete: 0
            case .insert: 1
            case .move: 2
            case .update: 3
            }
        }
        // (Fields are read in place: copying a change would count a reference to its object.)
        var keys = [Int](repeating: 0, count: changes.count)
        var largestPosition = 0
        for offset in changes.indices {
            let type = changes[offset].type
            let position = type == .insert ? changes[offset].newIndex ?? 0
                : changes[offset].oldIndex ?? changes[offset].newIndex ?? 0
            keys[offset] = position
            largestPosition = max(largestPosition, position)
        }
        // The kind above the largest position's bits.
        let kindShift = Int.bitWidth - largestPosition.leadingZeroBitCount
        for offset in changes.indices { keys[offset] |= rank(changes[offset].type) << kindShift }
        guard changes.count >= 64 else { return changes.indices.sorted { keys[$0] < keys[$1] } }
        let significantBits = kindShift + 2
        let digitBits = 11
        let digitMask = 1 << digitBits - 1
        var order = Array(changes.indices)
        var scratch = order
        var counts = [Int](repeating: 0, count: 1 << digitBits)
        var shift = 0
        keys.withUnsafeBufferPointer { keys in
            counts.withUnsafeMutableBufferPointer { counts in
                while shift < significantBits {
                    counts.update(repeating: 0)
                    for key in keys { counts[(key >> shift) & digitMask] += 1 }
                    var start = 0
                    for slot in counts.indices { (counts[slot], start) = (start, start + counts[slot]) }
                    order.withUnsafeBufferPointer { order in
                        scratch.withUnsafeMutableBufferPointer { scratch in
                            for offset in order {
                                let digit = (keys[offset] >> shift) & digitMask
                                scratch[counts[digit]] = offset
                                counts[digit] += 1
                            }
                        }
                    }
                    swap(&order, &scratch)
                    shift += digitBits
                }
            }
        }
        return order
    }

    /// The batch as a difference of IDs: removals at old offsets, insertions at new ones, moves (and
    /// objects whose ID changed) as associated pairs.
    static func difference<Subject>(of changes: some Sequence<ResultsRowChange<Subject>>, namespaces: IDNamespaces)
        -> CollectionDifference<ManagedObjectID>?
    {
        var steps: [CollectionDifference<ManagedObjectID>.Change] = []
        for change in changes {
            switch change.type {
            case .delete:
                if let id = change.oldID, let offset = change.oldIndex {
                    steps.append(.remove(offset: offset, element: namespaces.id(for: id), associatedWith: nil))
                }
            case .insert:
                if let id = change.newID, let offset = change.newIndex {
                    steps.append(.insert(offset: offset, element: namespaces.id(for: id), associatedWith: nil))
                }
            case .move, .update:
                guard let oldID = change.oldID, let newID = change.newID, let old = change.oldIndex,
                    let new = change.newIndex, change.type == .move || oldID != newID
                else { continue }
                steps.append(.remove(offset: old, element: namespaces.id(for: oldID), associatedWith: new))
                steps.append(.insert(offset: new, element: namespaces.id(for: newID), associatedWith: old))
            }
        }
        return CollectionDifference(steps)
    }
}
