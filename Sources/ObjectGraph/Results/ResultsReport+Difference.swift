import Foundation

extension ResultsReport {
    /// The batch as a difference of IDs (for ``FetchedResultsControllerDifferenceDelegate`` on results without
    /// sections): removals at old offsets, insertions at new ones, moves — and results whose ID changed — as
    /// associated pairs. Nil if the steps do not form a difference (never for a batch the core made).
    func difference(namespaces: IDNamespaces) -> CollectionDifference<ManagedObjectID>? {
        var steps: [CollectionDifference<ManagedObjectID>.Change] = []
        for change in ordered {
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

    /// The IDs of the results whose contents changed (for a snapshot's reloaded items): updates, not results
    /// that only took a new ID.
    func reloadedIDs(namespaces: IDNamespaces) -> [ManagedObjectID] {
        ordered.filter { $0.type == .update && !$0.identityOnly }.compactMap(\.newID).map(namespaces.id(for:))
    }
}
