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
    func report(_ changes: [ResultsObjectChange], oldRuns: SectionRuns, oldCount: Int) {
        let newSections = Set(runs.sections)
        let oldSections = Set(oldRuns.sections)
        let deletedSections = oldRuns.sections.enumerated().filter { !newSections.contains($0.element) }
        let insertedSections = runs.sections.enumerated().filter { !oldSections.contains($0.element) }
        // The changes in reporting order, each read where it is: no copy of a batch's changes.
        let ordered = Self.reportingOrder(of: changes).lazy.map { changes[$0] }

        if !changeContinuations.withLock({ $0.isEmpty }) {
            publish(FetchedResultsChangeSet(
                sectionChanges: deletedSections.map { .init(name: names[$0.element], index: $0.offset, type: .delete) }
                    + insertedSections.map { .init(name: names[$0.element], index: $0.offset, type: .insert) },
                objectChanges: ordered.map {
                    .init(objectID: ($0.type == .delete ? $0.oldID : $0.newID).map(namespaces.id(for:)) ?? $0.object.objectID,
                        type: $0.type,
                        indexPath: $0.type == .insert ? nil : $0.oldPath?.indexPath,
                        newIndexPath: $0.type == .delete ? nil : $0.newPath?.indexPath)
                },
                invalidatesAll: false))
        }
        guard let delegate, delegate.tracksChanges else { return }
        if let snapshotDelegate = delegate as? any FetchedResultsControllerSnapshotDelegate {
            let reloaded = Array(ordered.filter { $0.type == .update }.compactMap(\.newID).map(namespaces.id(for:)))
            snapshotDelegate.controller(self, didChangeContentWith: makeSnapshot(reloaded: reloaded))
            return
        }
        if sectionNaming == nil, let differenceDelegate = delegate as? any FetchedResultsControllerDifferenceDelegate {
            if let difference = Self.difference(of: ordered, namespaces: namespaces) {
                differenceDelegate.controller(self, didChangeContentWith: difference)
            }
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
        for change in ordered {
            let oldPath = change.type == .insert ? nil : change.oldPath?.indexPath
            let newPath = change.type == .delete ? nil : change.newPath?.indexPath
            delegate.controller(self, didChange: change.object, at: oldPath, for: change.type, newIndexPath: newPath)
        }
        delegate.controllerDidChangeContent(self)
    }

    /// The offsets of `changes` in reporting order: deletions, insertions, moves, updates; each kind by its
    /// position (old for all but insertions).
    ///
    /// Sorts one packed integer per change (kind, then position), rather than moving the changes themselves
    /// around in a comparison sort.
    static func reportingOrder(of changes: [ResultsObjectChange]) -> [Int] {
        func rank(_ type: FetchedResultsChangeType) -> Int {
            switch type {
            case .delete: 0
            case .insert: 1
            case .move: 2
            case .update: 3
            }
        }
        // Positions are below 2^40 and offsets below 2^20 in any real batch; wider ones fall back.
        let fits = changes.count < 1 << 20 && changes.allSatisfy { ($0.oldIndex ?? $0.newIndex ?? 0) < 1 << 40 }
        guard fits else {
            return changes.indices.sorted {
                let (left, right) = (rank(changes[$0].type), rank(changes[$1].type))
                if left != right { return left < right }
                return (changes[$0].oldIndex ?? changes[$0].newIndex ?? 0)
                    < (changes[$1].oldIndex ?? changes[$1].newIndex ?? 0)
            }
        }
        var keys = changes.enumerated().map { offset, change in
            rank(change.type) << 60 | (change.oldIndex ?? change.newIndex ?? 0) << 20 | offset
        }
        keys.sort()
        for position in keys.indices { keys[position] &= 1 << 20 - 1 }
        return keys
    }

    /// The batch as a difference of IDs: removals at old offsets, insertions at new ones, moves (and
    /// objects whose ID changed) as associated pairs.
    static func difference(of changes: some Sequence<ResultsObjectChange>, namespaces: IDNamespaces)
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
