import Foundation
import SectionedChanges

/// Keeps the results of a fetch request up to date, in sections, and reports every change with
/// UIKit-correct index paths: the counterpart of Core Data's `NSFetchedResultsController`.
///
/// For example, the list of a people browser:
///
/// ```swift
/// var request = FetchRequest<Person>(entityName: "Person")
/// request.sortCriteria = [SortCriterion("lastName", comparison: .caseAndDiacriticInsensitive)]
/// request.fetchBatchSize = 50
/// let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: mainContext,
///                                           sectionNameKeyPath: "sectionTitle", cacheName: "people")
/// controller.delegate = listViewController
/// try controller.performFetch()
/// let person = controller.object(at: IndexPath(row: 0, section: 0))
/// ```
///
/// The first sort criterion must keep sections together (sort on the section key, or on a key that
/// orders the same way). Changes are tracked while the controller has a delegate (or a ``AnyFetchedResultsController/changes()``
/// consumer); each batch of context changes (a local edit, a save, a merge) produces one will-change /
/// did-change pair, and a batch that changes no result produces nothing. Unlike Core Data's controller,
/// a change to a related object that a sort criterion, the section naming or the predicate reads
/// through a to-one key path (`company.name`) re-evaluates the fetched objects pointing to it.
public final class FetchedResultsController<Result: ManagedObject>: AnyFetchedResultsController {
    /// Creates a controller. Call ``AnyFetchedResultsController/performFetch()`` to load the results.
    ///
    /// - Parameters:
    ///   - fetchRequest: what to fetch; it needs at least one sort criterion. Its `fetchBatchSize` makes
    ///     the controller load objects a batch at a time.
    ///   - managedObjectContext: the context to fetch from and track (use it on its queue).
    ///   - sectionNameKeyPath: the key path whose value names each object's section; nil for one section.
    ///   - cacheName: the name of a persistent section cache (see ``AnyFetchedResultsController/performFetch()``);
    ///     nil for none.
    public convenience init(
        fetchRequest: FetchRequest<Result>, managedObjectContext: ManagedObjectContext,
        sectionNameKeyPath: String? = nil, cacheName: String? = nil
    ) {
        self.init(fetchRequest: fetchRequest, managedObjectContext: managedObjectContext,
            sectionNaming: sectionNameKeyPath.map(SectionNaming.keyPath), cacheName: cacheName)
    }

    /// Creates a controller whose sections are named by `sectionNaming` (a key path, or a name derived in
    /// Swift from stored values).
    public init(
        fetchRequest: FetchRequest<Result>, managedObjectContext: ManagedObjectContext,
        sectionNaming: SectionNaming?, cacheName: String? = nil
    ) {
        super.init(
            fetchRequest: fetchRequest.cast(to: ManagedObject.self), managedObjectContext: managedObjectContext,
            sectionNaming: sectionNaming, cacheName: cacheName)
    }

    /// The fetched objects in order, or nil before ``AnyFetchedResultsController/performFetch()``.
    public var fetchedObjects: [Result]? {
        fetchedObjectsUntyped?.compactMap { $0 as? Result }
    }

    /// The object at `indexPath`.
    ///
    /// - Precondition: `indexPath` is inside the results.
    public func object(at indexPath: IndexPath) -> Result {
        let object = untypedObject(at: indexPath)
        guard let typed = object as? Result else {
            preconditionFailure("\(object.objectID) is \(type(of: object)), not \(Result.self).")
        }
        return typed
    }
}
