import Foundation

/// What one context save changed, as object IDs: the value Core Data posts as
/// `NSManagedObjectContextDidSave`, made `Sendable` so it can be handed to other queues.
///
/// Hand it to another context's ``ManagedObjectContext/mergeChanges(fromContextDidSave:)-(ContextDidSave)`` *on that
/// context's queue* to bring it up to date. It also carries the saved rows' values, so merging never
/// needs to go back to the store.
public struct ContextDidSave: Sendable, CustomStringConvertible {
    /// Objects the save inserted (with their permanent IDs).
    public let insertedObjectIDs: Set<ManagedObjectID>
    /// Objects the save updated.
    public let updatedObjectIDs: Set<ManagedObjectID>
    /// Objects the save deleted.
    public let deletedObjectIDs: Set<ManagedObjectID>
    /// The saving context's name, if it has one.
    public let contextName: String?
    /// The saved rows: those of inserted objects first (``insertedRowCount`` of them), then those of updated
    /// ones; each object once. Merging walks them in this order, looking nothing up.
    let rows: [RowSnapshot]
    /// How many of ``rows`` are inserted objects'.
    let insertedRowCount: Int
    /// The permanent IDs the save gave objects that had temporary ones (temporary → permanent). Contexts
    /// that merge the save and know those objects by their temporary IDs (children of the saving context)
    /// switch them to the permanent ones.
    public let permanentIDs: [ManagedObjectID: ManagedObjectID]
    /// Identifies the saving context, so that it does not merge its own save.
    let sourceContext: ObjectIdentifier
    /// Whether the save reached a store (true) or was a child context's push into its parent (false, row
    /// versions unchanged: merging it takes its values unconditionally, last writer wins).
    let reachedStore: Bool

    /// A save of the objects whose saved rows are `rows` — the first `insertedRowCount` inserted, the rest
    /// updated; each object once — and of the `deleted` ones.
    init(
        rows: [RowSnapshot], insertedRowCount: Int, deleted: Set<ManagedObjectID>,
        contextName: String?, sourceContext: ObjectIdentifier,
        permanentIDs: [ManagedObjectID: ManagedObjectID] = [:], reachedStore: Bool = true
    ) {
        insertedObjectIDs = Set(rows[..<insertedRowCount].lazy.map(\.objectID))
        updatedObjectIDs = Set(rows[insertedRowCount...].lazy.map(\.objectID))
        deletedObjectIDs = deleted
        self.rows = rows
        self.insertedRowCount = insertedRowCount
        self.contextName = contextName
        self.sourceContext = sourceContext
        self.permanentIDs = permanentIDs
        self.reachedStore = reachedStore
        unresolved = nil
    }

    /// A commit event whose rows are still to be read from the store (see ``CommitRowsResolver``).
    let unresolved: CommitRowsResolver?
    /// Whether it is another coordinator's or process's commit: a context that merges it passes it on to its
    /// children that merge remote changes (``ManagedObjectContext/automaticallyMergesRemoteChanges``).
    var isRemote = false
    /// Whether the commit may have changed any object without naming it (another writer replaced or migrated the
    /// store): a context that merges it refreshes all its objects and tells observers all were invalidated.
    var invalidatesAllObjects = false

    /// A store commit event as a did-save: with its rows when it carries them, otherwise to be resolved (read)
    /// by the context that merges it.
    init(_ event: StoreCommitEvent) {
        insertedObjectIDs = event.insertedObjectIDs
        updatedObjectIDs = Set(event.updatedObjectIDs.keys)
        deletedObjectIDs = event.deletedObjectIDs
        contextName = event.contextName
        permanentIDs = event.permanentIDs
        sourceContext = event.sourceContext ?? ObjectIdentifier(StoreCommitSource.shared)
        reachedStore = true
        isRemote = event.origin.isRemote
        invalidatesAllObjects = event.invalidatesAllObjects
        if event.needsRowsFromStore {
            rows = []
            insertedRowCount = 0
            unresolved = CommitRowsResolver(event: event)
        } else {
            rows = event.rows
            insertedRowCount = event.insertedRowCount
            unresolved = nil
        }
    }

    /// True when the save changed nothing.
    public var isEmpty: Bool { insertedObjectIDs.isEmpty && updatedObjectIDs.isEmpty && deletedObjectIDs.isEmpty }

    public var description: String {
        "<ContextDidSave \(contextName ?? "unnamed"): +\(insertedObjectIDs.count) "
            + "~\(updatedObjectIDs.count) -\(deletedObjectIDs.count)>"
    }
}

/// The changes to a context's registered objects since it last processed pending changes: the value Core
/// Data posts as `NSManagedObjectContextObjectsDidChange`. Delivered on the context's queue; the objects
/// belong to that context and must not leave its queue.
///
/// An object is in at most one of the four sets.
public struct ObjectsDidChange {
    /// What the context recorded, by object identity; the public sets are made from it when first asked for.
    let recorded: RecordedChanges

    init(_ changes: PendingChanges) {
        recorded = RecordedChanges(changes)
    }

    /// Objects inserted into the context (including objects merged in from another context's save).
    public var insertedObjects: Set<ManagedObject> { recorded.insertedSet }
    /// Objects whose values changed in this context.
    public var updatedObjects: Set<ManagedObject> { recorded.updatedSet }
    /// Objects deleted in this context or by a merged save.
    public var deletedObjects: Set<ManagedObject> { recorded.deletedSet }
    /// Objects whose values were replaced by newer saved values (a merge or a refresh).
    public var refreshedObjects: Set<ManagedObject> { recorded.refreshedSet }
    /// True when every object was invalidated (``ManagedObjectContext/reset()``); re-fetch everything.
    public var invalidatedAllObjects: Bool { recorded.changes.invalidatedAll }

    /// True when nothing changed.
    public var isEmpty: Bool { recorded.changes.isEmpty }
}

/// The objects of one ``ObjectsDidChange`` as the context recorded them (in order, with their kinds), and the sets
/// made from them for observers that ask. A fetched-results controller walks the recorded objects
/// directly: hashing every changed object into four sets is most of what posting a merge would cost it.
final class RecordedChanges {
    let changes: PendingChanges
    private(set) lazy var insertedSet = Set(changes.objects(.inserted))
    private(set) lazy var updatedSet = Set(changes.objects(.updated))
    private(set) lazy var deletedSet = Set(changes.objects(.deleted))
    private(set) lazy var refreshedSet = Set(changes.objects(.refreshed))

    init(_ changes: PendingChanges) {
        self.changes = changes
    }
}

/// Stands for "not a context of this process" as the source of a commit event, so no context mistakes it for
/// its own save.
final class StoreCommitSource: Sendable {
    static let shared = StoreCommitSource()
}

extension Notification.Name {
    /// Posted by a context after it saved; `object` is the context, `userInfo[ContextDidSave.userInfoKey]`
    /// the ``ContextDidSave``.
    public static let managedObjectContextDidSave = Notification.Name("ObjectGraph.ManagedObjectContextDidSave")
    /// Posted by a context when a save begins, before objects are validated; `object` is the context.
    public static let managedObjectContextWillSave = Notification.Name("ObjectGraph.ManagedObjectContextWillSave")
}

extension ContextDidSave {
    /// The `userInfo` key under which a did-save notification carries the ``ContextDidSave``.
    public static let userInfoKey = "ContextDidSave"
}
