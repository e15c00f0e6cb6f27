import Foundation
import SectionedChanges

/// Hears about changes to a fetched-results controller's results: the counterpart of
/// `NSFetchedResultsControllerDelegate`. Every method is optional.
///
/// For one change batch the controller calls ``controllerWillChangeContent(_:)``, then every section
/// change, then every object change, then ``controllerDidChangeContent(_:)`` — and nothing at all when no
/// result changed. Index paths follow UIKit's batch-update rules, so the calls map one to one onto a
/// table view's `beginUpdates`, `deleteRows`/`insertRows`/`moveRow`/`reloadRows`, `endUpdates`:
/// deletions and updates name index paths before the batch, insertions index paths after it, moves both.
///
/// Core Data turns tracking on only when the delegate implements a change method; Swift cannot see which
/// optional methods a type implements, so a delegate that only supplies index titles returns false from
/// ``tracksChanges``.
public protocol FetchedResultsControllerDelegate: AnyObject {
    /// Whether the controller should follow its context's changes for this delegate (default true).
    var tracksChanges: Bool { get }
    /// A change batch starts.
    func controllerWillChangeContent(_ controller: AnyFetchedResultsController)
    /// A section was inserted (at its new index) or deleted (at its old index).
    func controller(
        _ controller: AnyFetchedResultsController, didChange sectionInfo: FetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType)
    /// An object was inserted (`newIndexPath`), deleted (`indexPath`), moved (both) or updated (both;
    /// reload at `indexPath`, configure from the object).
    func controller(
        _ controller: AnyFetchedResultsController, didChange anObject: ManagedObject, at indexPath: IndexPath?,
        for type: FetchedResultsChangeType, newIndexPath: IndexPath?)
    /// A change batch ended; the controller's results are the new ones.
    func controllerDidChangeContent(_ controller: AnyFetchedResultsController)
    /// The index title for a section name; nil keeps the controller's default.
    func controller(_ controller: AnyFetchedResultsController, sectionIndexTitleForSectionName sectionName: String)
        -> String?
    /// Every object of the context was invalidated (``ManagedObjectContext/reset()``): the controller
    /// dropped its results without reporting each one. Call ``AnyFetchedResultsController/performFetch()``
    /// and reload the view.
    func controllerDidInvalidateContent(_ controller: AnyFetchedResultsController)
}

extension FetchedResultsControllerDelegate {
    public var tracksChanges: Bool { true }
    public func controllerWillChangeContent(_ controller: AnyFetchedResultsController) {}
    public func controller(
        _ controller: AnyFetchedResultsController, didChange sectionInfo: FetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType
    ) {}
    public func controller(
        _ controller: AnyFetchedResultsController, didChange anObject: ManagedObject, at indexPath: IndexPath?,
        for type: FetchedResultsChangeType, newIndexPath: IndexPath?
    ) {}
    public func controllerDidChangeContent(_ controller: AnyFetchedResultsController) {}
    public func controller(
        _ controller: AnyFetchedResultsController, sectionIndexTitleForSectionName sectionName: String
    ) -> String? { nil }
    public func controllerDidInvalidateContent(_ controller: AnyFetchedResultsController) {}
}

/// A delegate that receives whole snapshots instead of individual changes: the counterpart of
/// `controller(_:didChangeContentWith: NSDiffableDataSourceSnapshot)`.
///
/// When the delegate is one of these, it is told only through
/// ``controller(_:didChangeContentWith:)`` — after ``AnyFetchedResultsController/performFetch()``
/// and after every change batch — and none of the per-change methods is called.
public protocol FetchedResultsControllerSnapshotDelegate: FetchedResultsControllerDelegate {
    /// The results are now `snapshot`.
    func controller(_ controller: AnyFetchedResultsController, didChangeContentWith snapshot: FetchedResultsSnapshot)
}

/// A delegate of a controller without sections that receives each change batch as a difference of object
/// IDs: the counterpart of `controller(_:didChangeContentWith: CollectionDifference<NSManagedObjectID>)`.
///
/// Used only when the controller has no section naming and the delegate is not a snapshot delegate; then
/// none of the per-change methods is called. Applying the difference to the previous IDs gives the
/// current ones (an object saved for the first time is removed under its temporary ID and inserted under
/// its permanent one).
public protocol FetchedResultsControllerDifferenceDelegate: FetchedResultsControllerDelegate {
    /// The results changed by `difference`.
    func controller(
        _ controller: AnyFetchedResultsController, didChangeContentWith difference: CollectionDifference<ManagedObjectID>)
}
