import Foundation
import ObjectGraph

/// A controller delegate that counts what it hears and calls `onDidChange` when a batch ends — the hook the
/// controller benchmark stops its clock in.
public final class ListDelegate: FetchedResultsControllerDelegate, @unchecked Sendable {
    public var batches = 0
    public var objectChanges = 0
    public var sectionChanges = 0
    public var onDidChange: (() -> Void)?

    public init() {}

    public func controller(
        _ controller: AnyFetchedResultsController, didChange sectionInfo: FetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType
    ) { sectionChanges += 1 }

    public func controller(
        _ controller: AnyFetchedResultsController, didChange anObject: ManagedObject, at indexPath: IndexPath?,
        for type: FetchedResultsChangeType, newIndexPath: IndexPath?
    ) { objectChanges += 1 }

    public func controllerDidChangeContent(_ controller: AnyFetchedResultsController) {
        batches += 1
        onDidChange?()
    }
}

/// The list controller every workload uses: all people by (lastName, firstName) in 26 sections.
public func makeListController(
    _ context: ManagedObjectContext, batchSize: Int = 0, cacheName: String? = nil
) -> FetchedResultsController<ManagedObject> {
    var request = PersonModel.listRequest()
    request.fetchBatchSize = batchSize
    return FetchedResultsController(fetchRequest: request, managedObjectContext: context,
        sectionNameKeyPath: PersonModel.sectionKey, cacheName: cacheName)
}

/// The index path of `row` in `section` (the main package's `IndexPath(row:section:)` lives in a module that is
/// not a product).
@inline(__always)
public func listIndexPath(row: Int, section: Int) -> IndexPath { IndexPath(indexes: [section, row]) }
