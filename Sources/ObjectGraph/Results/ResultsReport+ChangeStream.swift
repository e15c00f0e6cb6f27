import Foundation

extension ResultsReport where Subject == ManagedObject {
    /// The batch as the ``AnyFetchedResultsController/changes()`` stream delivers it: section and row changes
    /// with IDs and index paths (rows that only took a new ID where they were are left out, as for the delegate
    /// calls).
    func changeSet(names: SectionNames, namespaces: IDNamespaces) -> FetchedResultsChangeSet {
        FetchedResultsChangeSet(
            sectionChanges: deletedSections.map { .init(name: names[$0.section], index: $0.index, type: .delete) }
                + insertedSections.map { .init(name: names[$0.section], index: $0.index, type: .insert) },
            objectChanges: rowOrder.map { offset -> FetchedResultsChangeSet.ObjectChange in
                let change = changes[offset]
                let placed = change.type == .delete ? change.oldID : change.newID
                return .init(objectID: placed.map(namespaces.id(for:)) ?? change.object.objectID,
                    type: change.type,
                    indexPath: change.type == .insert ? nil : change.oldPath?.indexPath,
                    newIndexPath: change.type == .delete ? nil : change.newPath?.indexPath)
            },
            invalidatesAll: false)
    }
}
