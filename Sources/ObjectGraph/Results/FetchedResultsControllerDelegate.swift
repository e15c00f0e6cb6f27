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
public protocol FetchedResultsControllerDelegate: AnyObject {
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
}

extension FetchedResultsControllerDelegate {
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
}
