import Foundation
import SectionedChanges

extension ResultsReport {
    /// The batch as one ``SectionedChangeset``: exactly what the per-change delegate calls say, as the value a
    /// table view applies (for ``FetchedResultsControllerChangesetDelegate``).
    func sectionedChangeset() -> SectionedChangeset {
        var changeset = SectionedChangeset(deletedSections: IndexSet(deletedSections.map(\.index)),
            insertedSections: IndexSet(insertedSections.map(\.index)))
        for offset in rowOrder {
            // (Fields read in place: copying a change would count a reference to its object.)
            guard let path = changes[offset].type == .insert ? changes[offset].newPath : changes[offset].oldPath
            else { continue }
            switch changes[offset].type {
            case .insert: changeset.insertedRows.append(path.indexPath)
            case .delete: changeset.deletedRows.append(path.indexPath)
            case .move:
                guard let new = changes[offset].newPath else { continue }
                changeset.movedRows.append(RowMove(from: path.indexPath, to: new.indexPath))
            case .update:
                changeset.updatedRows.append(RowUpdate(from: path.indexPath, to: changes[offset].newPath?.indexPath))
            }
        }
        return changeset
    }
}
