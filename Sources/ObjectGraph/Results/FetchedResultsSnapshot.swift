/// The identity and order of a controller's results: sections by name, objects by ID. The counterpart of
/// the `NSDiffableDataSourceSnapshot<String, NSManagedObjectID>` Core Data hands to snapshot delegates.
///
/// A snapshot carries identity and order only, so it also lists the objects whose values changed in
/// place in the batch (``reloadedItemIdentifiers``): a view that diffs snapshots by identity would
/// otherwise never redraw them.
public struct FetchedResultsSnapshot: Sendable, Hashable {
    /// The section names, in order.
    public let sectionIdentifiers: [String]
    /// The object IDs of each section, in order.
    public let sectionItemIdentifiers: [[ManagedObjectID]]
    /// Objects updated in place by the batch that produced this snapshot (empty for the first one).
    public let reloadedItemIdentifiers: [ManagedObjectID]

    /// All object IDs, in order.
    public var itemIdentifiers: [ManagedObjectID] { sectionItemIdentifiers.flatMap { $0 } }

    /// The number of objects.
    public var numberOfItems: Int { sectionItemIdentifiers.reduce(0) { $0 + $1.count } }

    /// The number of sections.
    public var numberOfSections: Int { sectionIdentifiers.count }

    /// The object IDs of the section named `identifier` (empty when there is none).
    public func itemIdentifiers(inSection identifier: String) -> [ManagedObjectID] {
        sectionIdentifiers.firstIndex(of: identifier).map { sectionItemIdentifiers[$0] } ?? []
    }
}

/// One change batch of a controller, as its ``AnyFetchedResultsController/changes()`` sequence delivers
/// it: plain values (IDs and index paths), so it can cross to any task.
public struct FetchedResultsChangeSet: Sendable, Hashable {
    /// A section inserted or deleted.
    public struct SectionChange: Sendable, Hashable {
        public let name: String
        public let index: Int
        public let type: FetchedResultsChangeType
    }

    /// An object inserted, deleted, moved or updated.
    public struct ObjectChange: Sendable, Hashable {
        /// The object's ID after the batch (before it, for a deletion).
        public let objectID: ManagedObjectID
        public let type: FetchedResultsChangeType
        /// The index path before the batch (nil for an insertion).
        public let indexPath: IndexPath?
        /// The index path after the batch (nil for a deletion).
        public let newIndexPath: IndexPath?
    }

    /// Section changes, deletions before insertions.
    public let sectionChanges: [SectionChange]
    /// Object changes: deletions, insertions, moves, updates.
    public let objectChanges: [ObjectChange]
    /// True when every object was invalidated (a reset): the consumer should fetch again; the other
    /// fields are empty.
    public let invalidatesAll: Bool

    static let invalidated = FetchedResultsChangeSet(sectionChanges: [], objectChanges: [], invalidatesAll: true)
}

import Foundation
