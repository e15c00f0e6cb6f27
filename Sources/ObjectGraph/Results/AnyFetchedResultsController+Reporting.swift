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

    /// Tells the delegate (in the form it asked for) and the change streams about one batch: the batch becomes
    /// one ``ResultsReport``, which each adapter turns into what its listener takes.
    func report(_ change: ResultsChange<ManagedObject>) {
        let report = ResultsReport(change, newRuns: runs)
        if report.rowsChanged, !changeContinuations.withLock({ $0.isEmpty }) {
            publish(report.changeSet(names: names, namespaces: namespaces))
        }
        guard let delegate, delegate.tracksChanges else { return }
        switch ResultsDelegateKind(delegate, sectioned: sectionNaming != nil) {
        case .snapshot:
            guard let snapshotDelegate = delegate as? any FetchedResultsControllerSnapshotDelegate else { return }
            snapshotDelegate.controller(self,
                didChangeContentWith: makeSnapshot(reloaded: report.reloadedIDs(namespaces: namespaces)))
        case .difference:
            guard let differenceDelegate = delegate as? any FetchedResultsControllerDifferenceDelegate,
                let difference = report.difference(namespaces: namespaces)
            else { return }
            differenceDelegate.controller(self, didChangeContentWith: difference)
        case .changeset:
            guard report.rowsChanged,
                let changesetDelegate = delegate as? any FetchedResultsControllerChangesetDelegate
            else { return }
            changesetDelegate.controller(self, didChangeContentWith: report.sectionedChangeset())
        case .calls:
            guard report.rowsChanged else { return }
            callDelegate(delegate, with: report)
        }
    }

    /// The classic adapter: will-change, the deleted and inserted sections, each row change at its index
    /// paths (in reporting order), did-change — as UIKit's batch updates take them.
    private func callDelegate(_ delegate: any FetchedResultsControllerDelegate, with report: ResultsReport<ManagedObject>) {
        delegate.controllerWillChangeContent(self)
        for (index, section) in report.deletedSections {
            let name = names[section]
            delegate.controller(self, didChange: FetchedResultsSectionInfo(name: name,
                indexTitle: resolvedIndexTitle(forSectionName: name), numberOfObjects: report.oldRuns.counts[index],
                objects: { [] }),
                atSectionIndex: index, for: .delete)
        }
        for (index, _) in report.insertedSections {
            delegate.controller(self, didChange: sectionInfo(at: index), atSectionIndex: index, for: .insert)
        }
        let changes = report.changes
        for offset in report.rowOrder {
            let type = changes[offset].type
            let oldPath = type == .insert ? nil : changes[offset].oldPath?.indexPath
            let newPath = type == .delete ? nil : changes[offset].newPath?.indexPath
            delegate.controller(self, didChange: changes[offset].object, at: oldPath, for: type, newIndexPath: newPath)
        }
        delegate.controllerDidChangeContent(self)
    }
}
