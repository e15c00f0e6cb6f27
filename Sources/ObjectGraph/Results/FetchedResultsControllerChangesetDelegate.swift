import Foundation
import SectionedChanges

/// A delegate that receives each change batch as one `SectionedChangeset` — the value a table view applies
/// as is — instead of one call per change.
///
/// The changeset holds exactly what the per-change calls of ``FetchedResultsControllerDelegate`` would have
/// said, in the same UIKit conventions: section deletions and insertions, row deletions and updates at their
/// index paths before the batch, insertions after it, moves from one to the other. It comes after the
/// controller's results are the new ones (read them for the inserted and updated rows), and never empty.
///
/// When the delegate is one of these (and not a snapshot delegate), it is told only through
/// ``controller(_:didChangeContentWith:)``: none of the per-change methods is called.
public protocol FetchedResultsControllerChangesetDelegate: FetchedResultsControllerDelegate {
    /// The results changed by `changeset`.
    func controller(_ controller: AnyFetchedResultsController, didChangeContentWith changeset: SectionedChangeset)
}
