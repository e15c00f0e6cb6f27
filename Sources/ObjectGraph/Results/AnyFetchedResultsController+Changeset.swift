import Foundation
import SectionedChanges

extension AnyFetchedResultsController {
    /// A batch as one ``SectionedChangeset``: the changes at `order` (offsets into `changes`, in reporting
    /// order) and the sections deleted (old indexes) and inserted (new indexes) — what the per-change delegate
    /// calls say, as the value a table view applies.
    static func changeset<Subject>(
        of changes: [ResultsRowChange<Subject>], in order: [Int], deletedSections: [Int], insertedSections: [Int]
    ) -> SectionedChangeset {
        var changeset = SectionedChangeset(deletedSections: IndexSet(deletedSections),
            insertedSections: IndexSet(insertedSections))
        for offset in order {
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
